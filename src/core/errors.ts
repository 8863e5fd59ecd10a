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
