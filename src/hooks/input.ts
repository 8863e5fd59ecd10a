/**
 * Claude Code's hook input, read defensively: fields differ across versions (and between events), so
 * every accessor accepts anything and returns `undefined` for what is missing or of another type.
 */
export type HookInput = Record<string, unknown>;

/**
 * Set in an input cut at its limit (hook-io.ts, MAX_INPUT_BYTES): how many bytes the whole input had. The
 * hook says so (run.ts); what came before the cut is still acted on.
 */
export const INPUT_CUT_KEY = 'claude-checkpoint:inputBytes';

/**
 * Set in an input whose JSON object had not ended when the input did, or when the wait for it did
 * (hook-io.ts): how many bytes were read. As with INPUT_CUT_KEY, only its whole fields are acted on.
 */
export const INPUT_UNFINISHED_KEY = 'claude-checkpoint:inputUnfinished';

/** Whether the reader cut the input (INPUT_CUT_KEY, INPUT_UNFINISHED_KEY): a field may be missing from it. */
export function isInputCut(raw: HookInput): boolean {
  return INPUT_CUT_KEY in raw || INPUT_UNFINISHED_KEY in raw;
}

export function parseHookInput(text: string): HookInput {
  if (text.trim() === '') return {};
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as HookInput) : {};
}

export function stringField(input: unknown, ...keys: string[]): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  for (const key of keys) {
    const value = (input as Record<string, unknown>)[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

export function numberField(input: unknown, ...keys: string[]): number | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  for (const key of keys) {
    const value = (input as Record<string, unknown>)[key];
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  }
  return undefined;
}

export function objectField(input: unknown, key: string): Record<string, unknown> | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export function booleanField(input: unknown, ...keys: string[]): boolean | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  for (const key of keys) {
    const value = (input as Record<string, unknown>)[key];
    if (typeof value === 'boolean') return value;
  }
  return undefined;
}

/** The outcome of a shell tool call (Bash, PowerShell), from whichever fields this Claude Code version provides. */
export function bashOutcome(
  input: HookInput,
  context: { failed: boolean } = { failed: false },
): { command?: string; exitCode?: number; note?: string } {
  const toolInput = objectField(input, 'tool_input');
  const command = stringField(toolInput, 'command');
  const responseObject = objectField(input, 'tool_response');
  let exitCode = numberField(
    responseObject,
    'exit_code',
    'exitCode',
    'returnCode',
    'return_code',
    'code',
    'status',
  );
  const interrupted = booleanField(responseObject, 'interrupted');
  const isError = booleanField(responseObject, 'is_error', 'isError');
  if (exitCode === undefined && (isError === true || context.failed))
    exitCode = numberFromText(stringField(input, 'error')) ?? 1;
  // A plain success report (stdout/stderr, not interrupted) carries no exit code: it exited 0.
  if (exitCode === undefined && responseObject && interrupted !== true) exitCode = 0;
  // A failure's `error` mixes stdout and stderr ("Exit code 1\n<output>"): it is labelled output, not stderr.
  const stderr = stringField(responseObject, 'stderr');
  const report = stderr
    ? { label: 'stderr', text: stderr }
    : context.failed || isError === true
      ? { label: 'output', text: stringField(input, 'error') ?? stringField(responseObject, 'stdout') }
      : { label: 'output', text: stringField(responseObject, 'output') };
  const parts: string[] = [];
  const description = stringField(toolInput, 'description');
  if (description) parts.push(description);
  if (interrupted) parts.push('interrupted');
  if (exitCode !== undefined && exitCode !== 0 && report?.text) {
    // The first line that says something: failure reports often start with a bare "Exit code N".
    const firstLine = report.text
      .trim()
      .split('\n')
      .find((line) => line.trim() !== '' && !/^exit code -?\d+$/i.test(line.trim()));
    if (firstLine) parts.push(`${report.label}: ${firstLine.trim()}`);
  }
  return {
    ...(command ? { command } : {}),
    ...(exitCode !== undefined ? { exitCode } : {}),
    ...(parts.length > 0 ? { note: parts.join('; ') } : {}),
  };
}

/** "Exit code 2" and similar, as failure messages phrase it. */
function numberFromText(text: string | undefined): number | undefined {
  const match = text ? /exit(?: code|ed with)?[: ]+(-?\d+)/i.exec(text) : null;
  return match?.[1] ? Number(match[1]) : undefined;
}
