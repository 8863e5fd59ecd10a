import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from './atomic-write.js';
import { refuseStoreFolderLink } from './store-folder.js';

/**
 * What a project's store uses on disk, without walking it: the size last measured (by gc, which walks
 * the store anyway) plus an upper bound of what snapshots have added since (the bytes of the files they
 * read, before compression). Kept in `usage.json` beside the store's git folder and written holding the
 * store's lock. Walking a store of a million files costs seconds; reading this costs one small file.
 */
export interface StoreUsage {
  measuredBytes: number;
  measuredAt: string;
  /** Added since the measure, at most: snapshots' file bytes before compression, plus a little per commit. */
  addedBytes: number;
  /**
   * Snapshots recorded since a gc last packed the store (absent in older files: 0). Each one left a loose
   * commit and ref, which every listing reads one file at a time (see isPackDue).
   */
  unpackedSnapshots: number;
  /**
   * Set only when the last gc deleted every snapshot the size cap may delete and the store stayed over
   * its cap: what was left (the snapshots it never deletes, the newest, a restore's undo, and the newest
   * others within a margin above them) took this many bytes. `doctor` then says to raise the cap, since
   * another gc cannot help, and the next trim is due only past a margin above it (see capDueBytes).
   */
  floorBytes?: number;
}

/**
 * How many snapshots a store takes before a gc packs them, as `git gc --auto` packs a repository past
 * its loose objects: a few hundred loose commits cost a listing tens of milliseconds, 10,000 cost
 * seconds (issue 28), and one background gc per this many snapshots is rare enough not to be felt.
 */
export const PACK_AFTER_SNAPSHOTS = 256;

/** Whether enough snapshots have gone loose since the last gc that one is due to pack them. */
export function isPackDue(usage: StoreUsage): boolean {
  return usage.unpackedSnapshots >= PACK_AFTER_SNAPSHOTS;
}

const FILE = 'usage.json';

export function readUsage(storeDir: string): StoreUsage | null {
  try {
    const parsed = JSON.parse(readFileSync(path.join(storeDir, FILE), 'utf8')) as Partial<StoreUsage>;
    if (typeof parsed.measuredBytes !== 'number' || typeof parsed.addedBytes !== 'number') return null;
    return {
      measuredBytes: parsed.measuredBytes,
      measuredAt: String(parsed.measuredAt ?? ''),
      addedBytes: parsed.addedBytes,
      unpackedSnapshots: typeof parsed.unpackedSnapshots === 'number' ? parsed.unpackedSnapshots : 0,
      ...(typeof parsed.floorBytes === 'number' ? { floorBytes: parsed.floorBytes } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * Whether the figure was measured: an older store that had snapshots before its usage file was written
 * has none (`measuredAt` empty) until a gc walks it.
 */
export function isMeasured(usage: StoreUsage): boolean {
  return usage.measuredAt !== '';
}

/** The size at most: what was measured plus what was added since. */
export function estimatedBytes(usage: StoreUsage): number {
  return usage.measuredBytes + usage.addedBytes;
}

export function writeUsage(storeDir: string, usage: StoreUsage): void {
  // A cache of what a walk can tell again: atomic, but not worth an fsync.
  refuseStoreFolderLink(storeDir); // Security: the temp file and rename happen in the store's own folder
  writeFileAtomicSync(path.join(storeDir, FILE), `${JSON.stringify(usage)}\n`);
}

/**
 * Adds what was stored to the estimate, and the snapshots recorded to the count since the last pack; a
 * store with no figure yet starts unmeasured.
 */
export function noteAdded(storeDir: string, bytes: number, snapshots = 0): StoreUsage {
  const usage = readUsage(storeDir) ?? {
    measuredBytes: 0,
    // Nothing walked the store: it may hold snapshots from before this file (see isMeasured).
    measuredAt: '',
    addedBytes: 0,
    unpackedSnapshots: 0,
  };
  usage.addedBytes += bytes;
  usage.unpackedSnapshots += snapshots;
  writeUsage(storeDir, usage);
  return usage;
}

/** One project's store as the whole-store accounting sees it. */
export interface ProjectStoreEntry {
  storeDir: string;
  /** The project's folder, as its store recorded it at set-up; `null` when set-up never finished. */
  root: string | null;
  usage: StoreUsage | null;
}

/** Every project's store under `base`, with its cached usage: one folder listing and two small reads each. */
export function listProjectStores(base: string): ProjectStoreEntry[] {
  const projects = path.join(base, 'projects');
  let names: string[];
  try {
    names = readdirSync(projects);
  } catch {
    return [];
  }
  return names.sort().map((name) => {
    const storeDir = path.join(projects, name);
    let root: string | null = null;
    try {
      root = readFileSync(path.join(storeDir, 'git', 'claude-checkpoint-ready'), 'utf8').trim() || null;
    } catch {
      // set-up never finished: no root recorded
    }
    return { storeDir, root, usage: readUsage(storeDir) };
  });
}
