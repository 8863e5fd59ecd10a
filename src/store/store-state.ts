import { readFileSync } from 'node:fs';
import type { FileStamp, SnapshotRecord } from '../core/snapshot.js';
import { writeFileAtomicSync } from './atomic-write.js';

/** What the store remembers between calls, in `state.json`; rebuilt from git when missing. */
export interface StoreState {
  latest?: SnapshotRecord | null;
  /**
   * The other snapshots of the latest's second when it was recorded, each id with its exact time: what
   * tells the newest of one second apart without reading their commits (issue 26: ids carry seconds
   * only). Absent when not all of them were known; a snapshot of that second not named here (one whose
   * record stopped before the state's) sends the listing back to the commits.
   */
  latestSecond?: Record<string, string>;
  /** The tree of the private index as last written. */
  index?: { tree: string };
  exclusions: { large: Array<{ path: string; bytes: number } & Partial<FileStamp>>; nested: string[] };
  /** The snapshotIncludeIgnored patterns the index was last brought in line with. */
  includeIgnored?: string[];
  /** The size cap the index was last checked against (see indexedOverCap). */
  maxFileBytes?: number;
  /**
   * The config files git read (and the default ones) and the global excludes file they name, with what
   * they looked like (see globalExcludesChanged).
   */
  globalExcludes?: { configFiles: string[]; configs: string; file: string; excludes: string };
  /**
   * The folders git's scan could not open (see parseUnreadableFolders): its untracked cache remembers
   * them, and the scans after the first say nothing of them.
   */
  unreadable?: Array<{ path: string; error: string }>;
  /**
   * Which check of the index against the ignore rules it has had (see IGNORE_CHECK in
   * snapshot-capture.ts): a store older than a fix may hold ignored files no rule change will show.
   */
  ignoreCheck?: number;
  /**
   * The `.gitignore` files above files the index took in again, with their stamps, as they were when
   * the index was last checked against the ignore rules (see ignoreFilesAbove in snapshot-capture.ts).
   */
  ignoreFiles?: Record<string, string>;
}

/** Read synchronously: a file of a few hundred bytes, read up to three times per snapshot. */
export async function readState(file: string): Promise<StoreState> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoreState>;
    return {
      ...(parsed.latest !== undefined ? { latest: parsed.latest } : {}),
      ...(isStringRecord(parsed.latestSecond) ? { latestSecond: parsed.latestSecond } : {}),
      ...(parsed.index ? { index: parsed.index } : {}),
      ...(Array.isArray(parsed.includeIgnored) ? { includeIgnored: parsed.includeIgnored } : {}),
      ...(typeof parsed.maxFileBytes === 'number' ? { maxFileBytes: parsed.maxFileBytes } : {}),
      ...(parsed.globalExcludes ? { globalExcludes: parsed.globalExcludes } : {}),
      ...(Array.isArray(parsed.unreadable) ? { unreadable: parsed.unreadable } : {}),
      ...(typeof parsed.ignoreCheck === 'number' ? { ignoreCheck: parsed.ignoreCheck } : {}),
      ...(isStringRecord(parsed.ignoreFiles) ? { ignoreFiles: parsed.ignoreFiles } : {}),
      exclusions: {
        large: Array.isArray(parsed.exclusions?.large) ? parsed.exclusions.large : [],
        nested: Array.isArray(parsed.exclusions?.nested) ? parsed.exclusions.nested : [],
      },
    };
  } catch {
    return { exclusions: { large: [], nested: [] } };
  }
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((item) => typeof item === 'string')
  );
}

export async function writeState(file: string, state: StoreState): Promise<void> {
  // A cache of what git can tell again: atomic, but not worth an fsync on every snapshot.
  writeFileAtomicSync(file, `${JSON.stringify(state)}\n`);
}
