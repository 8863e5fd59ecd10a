import { CheckpointError, describeError } from '../core/errors.js';
import { withQuotedNames } from '../core/json-names.js';
import { escapeControls } from '../core/quote.js';
import { isTerminal, writeText } from './stdio.js';

/** Exit codes of the CLI, documented in docs/cli.md. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** A restore needed confirmation and did not get it. */
  notConfirmed: 3,
} as const;

export interface Output {
  json: boolean;
  color: boolean;
  isTTY: boolean;
  debug: boolean;
  print: (text: string) => void;
  printJson: (value: unknown) => void;
  note: (text: string) => void;
  progress: (text: string) => void;
  endProgress: () => void;
  bold: (text: string) => string;
  dim: (text: string) => string;
  warn: (text: string) => string;
}

/** Colours only on a terminal and never with NO_COLOR; progress only on a terminal. */
export function createOutput(
  options: { json?: boolean; color?: boolean; debug?: boolean },
  env = process.env,
): Output {
  const isTTY = isTerminal(1);
  const color =
    isTTY && options.color !== false && !('NO_COLOR' in env && env.NO_COLOR !== '') && !options.json;
  const paint = (open: number, close: number) => (text: string) =>
    color ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  let progressShown = false;
  const stderrTTY = isTerminal(2);
  return {
    json: Boolean(options.json),
    color,
    isTTY,
    debug: Boolean(options.debug),
    print: (text) => writeText(1, text.endsWith('\n') ? text : `${text}\n`),
    // A name that is not valid UTF-8 as git quotes it, listed in quotedNames (see json-names.ts).
    printJson: (value) => writeText(1, `${JSON.stringify(withQuotedNames(value), null, 2)}\n`),
    note: (text) => writeText(2, `${text}\n`),
    progress: (text) => {
      if (!stderrTTY || options.json) return;
      writeText(2, `\r\u001b[2K${text}`);
      progressShown = true;
    },
    endProgress: () => {
      if (progressShown) writeText(2, '\r\u001b[2K');
      progressShown = false;
    },
    bold: paint(1, 22),
    dim: paint(2, 22),
    warn: paint(33, 39),
  };
}

export async function confirm(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

const USAGE_CODES = new Set(['INVALID_INPUT', 'INVALID_ROOT', 'OUTSIDE_ROOT']);

/** One line on stderr, the stack only with --debug; returns the exit code. */
export function reportError(error: unknown, debug: boolean): number {
  // Security: a message can quote a remote's answer or a file's name: no control character reaches the terminal.
  writeText(2, `claude-checkpoint: ${escapeControls(describeError(error))}\n`);
  if (debug && error instanceof Error && error.stack) writeText(2, `${error.stack}\n`);
  return error instanceof CheckpointError && USAGE_CODES.has(error.code) ? EXIT.usage : EXIT.failure;
}
