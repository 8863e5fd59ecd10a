import { fstatSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { AppDeps } from '../app/deps.js';
import { describeError } from '../core/errors.js';
import { ADAPTERS, AGENTS, type Agent } from './agents.js';
import { HOOK_EVENTS, type HookContext, type HookEvent } from './common.js';
import { handleHook, ROOT_OPTION } from './handlers.js';
import { parseHookInput } from './input.js';

/** Time budgets: a hook must never hold up a session; past its budget it gives up and says why. */
export const HOOK_BUDGET_MS: Readonly<Record<HookEvent, number>> = {
  SessionStart: 8_000,
  UserPromptSubmit: 10_000,
  PreCompact: 25_000,
  PostToolUse: 5_000,
  PostToolUseFailure: 5_000,
};

const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/**
 * The hook input. Read straight from fd 0 rather than through `process.stdin`, whose stream machinery
 * costs a hook more to load than reading the input does; the stream is the fallback for a non-blocking
 * pipe.
 */
async function readStdin(): Promise<string> {
  // A terminal (or /dev/null) has no input to give; node:tty would tell a terminal apart, but loading it
  // loads the whole stream stack.
  if (inputIsCharacterDevice()) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      const read = readSync(0, buffer, 0, buffer.length, null);
      if (read === 0) return Buffer.concat(chunks).toString('utf8');
      size += read;
      if (size <= MAX_INPUT_BYTES) chunks.push(Buffer.from(buffer.subarray(0, read)));
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return Buffer.concat(chunks).toString('utf8');
  }
  return new Promise((resolve) => {
    process.stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_INPUT_BYTES) chunks.push(chunk);
    });
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function inputIsCharacterDevice(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return true; // no fd 0 at all: no input either
  }
}

/**
 * Writes all of `text` to fd 1 or 2 before returning, without `process.stdout`, whose stream machinery
 * costs a hook more to load than its output takes to write. Retries a full non-blocking pipe.
 */
function writeAll(fd: number, text: string): void {
  let bytes = Buffer.from(text, 'utf8');
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return; // the reader went away
    }
  }
}

/**
 * Runs one hook: reads Claude Code's hook JSON on stdin, acts on it within the event's time budget, and
 * writes its output. Never throws: a broken checkpoint tool must never break a session, so problems are
 * explained on stderr and the caller exits 0.
 */
export async function runHook(
  event: string,
  options: { root?: string | undefined; agent?: string | undefined },
  deps: AppDeps,
  context: HookContext = {},
): Promise<void> {
  const note = (text: string) => writeAll(2, `claude-checkpoint hook ${event}: ${text}\n`);
  const agent = (options.agent ?? 'claude') as Agent;
  const adapter = ADAPTERS[agent];
  if (!adapter) {
    note(`unknown agent '${options.agent}'; expected one of ${AGENTS.join(', ')}. Nothing done.`);
    return;
  }
  if (agent === 'claude' && !(HOOK_EVENTS as readonly string[]).includes(event)) {
    note(`unknown event; expected one of ${HOOK_EVENTS.join(', ')}. Nothing done.`);
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const raw = parseHookInput(await readStdin());
    const mapped = adapter.toEvent(event, raw);
    if (!mapped) return; // an event or tool this agent reports that is not ours to act on
    const { event: hookEvent, input } = mapped;
    if (options.root !== undefined) input[ROOT_OPTION] = path.resolve(deps.cwd(), options.root);
    const budget = Number(deps.env.CHECKPOINT_HOOK_TIMEOUT_MS) || HOOK_BUDGET_MS[hookEvent];
    const result = await Promise.race([
      handleHook(hookEvent, input, deps, { ...context, briefOnNextPrompt: adapter.briefOnNextPrompt }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`gave up after ${budget} ms so as not to hold up the session`)),
          budget,
        );
      }),
    ]);
    const output = adapter.render(event, result);
    if (output) writeAll(1, `${output}\n`);
    for (const text of result.notes) note(text);
  } catch (error) {
    note(`${describeError(error)}. The session continues unaffected.`);
  } finally {
    clearTimeout(timer);
  }
}
