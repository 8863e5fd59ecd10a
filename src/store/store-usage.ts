import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from './atomic-write.js';

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
    };
  } catch {
    return null;
  }
}

/** The size at most: what was measured plus what was added since. */
export function estimatedBytes(usage: StoreUsage): number {
  return usage.measuredBytes + usage.addedBytes;
}

export function writeUsage(storeDir: string, usage: StoreUsage): void {
  // A cache of what a walk can tell again: atomic, but not worth an fsync.
  writeFileAtomicSync(path.join(storeDir, FILE), `${JSON.stringify(usage)}\n`);
}

/** Adds a snapshot's bytes to the estimate; a store with no measure yet starts from nothing measured. */
export function noteAdded(storeDir: string, bytes: number, now: Date): StoreUsage {
  const usage = readUsage(storeDir) ?? { measuredBytes: 0, measuredAt: now.toISOString(), addedBytes: 0 };
  usage.addedBytes += bytes;
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
