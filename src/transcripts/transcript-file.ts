import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { TranscriptRecord } from '../core/transcript.js';
import { hashHex } from '../git/hash.js';

/** The first bytes of a transcript, hashed: a file replaced under the same name reads afresh. */
export const FINGERPRINT_BYTES = 4096;

/**
 * Opens a transcript to read: a regular file, reached without following a link at its last step (the path
 * comes from the agent's hook payload). `null` when it cannot be read; the caller closes `fd`.
 */
export function openTranscript(file: string): { fd: number; size: number } | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isFile()) return { fd, size: stats.size };
  } catch {
    // fall through: closed below
  }
  closeSync(fd);
  return null;
}

/**
 * What a read before remembered, when the file is still the one it read (not shorter, same first bytes)
 * and the state is of this reader's version; else `null`, and the file is read afresh.
 */
export function knownState<State extends { version: number; offset: number; fingerprint: string }>(
  fd: number,
  size: number,
  previous: State | null,
  version: number,
): State | null {
  return previous &&
    previous.version === version &&
    previous.offset <= size &&
    fingerprintOf(fd, Math.min(previous.offset, FINGERPRINT_BYTES)) === previous.fingerprint
    ? previous
    : null;
}

/** sha256 of the file's first `bytes` bytes, shortened. */
export function fingerprintOf(fd: number, bytes: number): string {
  const buffer = Buffer.alloc(bytes);
  let done = 0;
  while (done < bytes) {
    const read = readSync(fd, buffer, done, bytes - done, done);
    if (read === 0) break;
    done += read;
  }
  return hashHex('sha256', buffer.subarray(0, done)).slice(0, 32);
}

/** What every reader remembers between reads: where it stopped, which file it was, and the first prompt. */
export interface IncrementalState {
  version: number;
  /** Bytes read: the end of the last complete line (or the start of a tool call still running). */
  offset: number;
  /** A digest of the file's first bytes: another file at the same path starts over. */
  fingerprint: string;
  /** How far the search for the first prompt has read, while none is found. */
  goalSearchedTo: number;
  goal?: string | undefined;
}

/** One agent's steps, given to readIncrementally. */
export interface IncrementalReader<State extends IncrementalState, Scan extends { end: number }> {
  version: number;
  /** The lines from `from` to `to` (new since the last read), read backwards. */
  scan: (fd: number, from: number, to: number, known: State | null) => Scan;
  /** Whether the scan found lines that a read before took in removed (a rewind): read all again. */
  rewound?: (scan: Scan) => boolean;
  /** The first prompt a person typed, searched forwards from `from`; how far it read. */
  findGoal: (
    fd: number,
    from: number,
    to: number,
    scan: Scan,
  ) => { goal?: string | undefined; searchedTo: number };
  /** The state after this read: what was known, and what the scan found. */
  merge: (known: State | null, scan: Scan, base: IncrementalState) => State;
}

/** What a read of a transcript hands over: the record, the state to keep for the next read. */
export interface ReadResult<State> {
  record: TranscriptRecord;
  state: State;
  /**
   * Of the record's files, those written in what this read took in (since the read before): a file
   * written in an earlier turn and again in this one is in it. Absent where the reader cannot tell.
   */
  filesSinceLastRead?: readonly string[] | undefined;
}

/**
 * Reads a transcript from where the last read stopped (`previous`), or from its start when it is another
 * file. Returns `null` when the file cannot be read; a foreign or damaged file yields what little it holds.
 */
export function readIncrementally<State extends IncrementalState, Scan extends { end: number }>(
  file: string,
  previous: State | null,
  reader: IncrementalReader<State, Scan>,
): State | null {
  const opened = openTranscript(file);
  if (!opened) return null;
  const { fd, size } = opened;
  try {
    let known = knownState(fd, size, previous, reader.version);
    let scan = reader.scan(fd, known?.offset ?? 0, size, known);
    if (known && reader.rewound?.(scan)) {
      known = null;
      scan = reader.scan(fd, 0, size, null);
    }
    let goal = known?.goal;
    let goalSearchedTo = known?.goalSearchedTo ?? 0;
    if (goal === undefined && goalSearchedTo < scan.end) {
      const found = reader.findGoal(fd, goalSearchedTo, scan.end, scan);
      goal = found.goal;
      goalSearchedTo = found.searchedTo;
    }
    return reader.merge(known, scan, {
      version: reader.version,
      offset: scan.end,
      fingerprint: fingerprintOf(fd, Math.min(scan.end, FINGERPRINT_BYTES)),
      goalSearchedTo,
      goal,
    });
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Whether `value` holds the fields every remembered state has, well formed. */
export function isIncrementalState(value: Record<string, unknown>): boolean {
  return (
    Number.isSafeInteger(value.offset) &&
    Number.isSafeInteger(value.goalSearchedTo) &&
    typeof value.fingerprint === 'string' &&
    (value.goal === undefined || typeof value.goal === 'string') &&
    (value.status === undefined || typeof value.status === 'string')
  );
}

/**
 * The texts every state holds (the first prompt, the status, the commands and their notes) with
 * `change` applied: what is kept on disk passes through redaction like everything else.
 */
export function mapCommonText<
  State extends IncrementalState & {
    status?: string | undefined;
    commands: ReadonlyArray<{ command: string; note?: string | undefined }>;
  },
>(state: State, change: (text: string) => string): State {
  return {
    ...state,
    ...(state.goal !== undefined ? { goal: change(state.goal) } : {}),
    ...(state.status !== undefined ? { status: change(state.status) } : {}),
    commands: state.commands.map((command) => ({
      ...command,
      command: change(command.command),
      ...(command.note !== undefined ? { note: change(command.note) } : {}),
    })),
  };
}
