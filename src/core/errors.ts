/** Machine-readable reason for a failure; the message is for people. */
export type CheckpointErrorCode =
  | 'INVALID_INPUT'
  | 'INVALID_ROOT'
  | 'OUTSIDE_ROOT'
  | 'CORRUPT'
  | 'UNSUPPORTED_VERSION'
  | 'UNSAFE_PATH'
  | 'GIT_FAILED'
  | 'IO_FAILED'
  | 'LOCKED';

/** The one error type of this project. Messages say what failed, on which value, and what to do next. */
export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  readonly code: CheckpointErrorCode;

  constructor(code: CheckpointErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export function isCheckpointError(error: unknown, code?: CheckpointErrorCode): error is CheckpointError {
  return error instanceof CheckpointError && (code === undefined || error.code === code);
}

/** A short, single-line description of any thrown value. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * A message and the sentence that follows it, with one full stop between: a message that already ends a
 * sentence (most of ours do) gets no second one (trial 4, item 9: "CHECKPOINT_PROJECT_ROOT.. The session").
 */
export function thenSentence(message: string, next: string): string {
  return `${/[.!?]$/.test(message) ? message : `${message}.`} ${next}`;
}

/** A failed write to the process's own output, in one line: `could not write to stdout: no space left on device (ENOSPC)`. */
export function describeOutputError(
  stream: 'stdout' | 'stderr',
  error: { code?: string; message: string },
): string {
  // Node's message is `ENOSPC: no space left on device, write`.
  const words = error.message.replace(/^[A-Z0-9_]+: /, '').replace(/, write$/, '');
  return `could not write to ${stream}: ${words}${error.code ? ` (${error.code})` : ''}`;
}
