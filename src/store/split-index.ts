import { closeSync, constants, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import path from 'node:path';

// The store's index is split (store-setup.ts): `index` holds the entries changed since the shared index
// (`sharedindex.<oid>`) was written, and every git that writes the index rewrites and hashes it whole.
// git starts a new shared index only past splitIndex.maxPercentChange *new* paths; a changed file's entry
// does not count, so the split index grew with every file ever changed (121 KB at 10,000 files after a
// few hundred snapshots), hashed again by each of a snapshot's three index writes (issue 26).

/**
 * git's settings for one index write that starts a new shared index, and removes the shared indexes no
 * index names any more (`now`: git keeps the one it has just written; every index of the store is
 * written by a git of ours holding the store's lock, and an early scan without it reads a link to the
 * index, taken over only if no one wrote the store since; see takeEarlyScan).
 */
export const NEW_SHARED_INDEX_ARGS: readonly string[] = [
  '-c',
  'splitIndex.maxPercentChange=0',
  '-c',
  'splitIndex.sharedIndexExpire=now',
];

/**
 * Whether the next index write should start a new shared index: the split index holds more entries than
 * √(8 × the shared index's), counting the `coming` entries the write will add or replace (read before
 * they are written, so that the check runs beside git's work). Rewriting the shared index costs as
 * much as the split index's growth over many snapshots costs in all; the square root balances the two
 * (about 90 entries at 1,000 files, 280 at 10,000, 900 at 100,000, where a snapshot changes some ten
 * files). False when the index is not split or a header cannot be read: git then writes as it always
 * does.
 */
export function isNewSharedIndexDue(gitDir: string, coming = 0): boolean {
  const written = indexEntryCount(path.join(gitDir, 'index'));
  if (written === null) return false;
  const split = written + coming;
  if (split === 0) return false;
  const shared = newestSharedIndex(gitDir);
  if (shared === null) return false;
  const sharedEntries = indexEntryCount(shared);
  return sharedEntries !== null && split * split > SPLIT_FACTOR * sharedEntries;
}

const SPLIT_FACTOR = 8;

/** The shared index git touches on every read and write of the split index: the newest of them. */
function newestSharedIndex(gitDir: string): string | null {
  let newest: { file: string; mtimeMs: number } | null = null;
  let names: string[];
  try {
    names = readdirSync(gitDir);
  } catch {
    return null;
  }
  for (const name of names) {
    if (!SHARED_INDEX.test(name)) continue;
    const file = path.join(gitDir, name);
    const stats = lstatSync(file, { throwIfNoEntry: false });
    if (stats?.isFile() && (newest === null || stats.mtimeMs > newest.mtimeMs))
      newest = { file, mtimeMs: stats.mtimeMs };
  }
  return newest?.file ?? null;
}

const SHARED_INDEX = /^sharedindex\.(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** An index file's entry count, from its 12-byte header (`DIRC`, version, count); null if unreadable. */
function indexEntryCount(file: string): number | null {
  let fd: number | undefined;
  try {
    // Security: read only, never through a link.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const header = Buffer.alloc(12);
    if (readSync(fd, header, 0, 12, 0) !== 12 || header.toString('latin1', 0, 4) !== 'DIRC') return null;
    return header.readUInt32BE(8);
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
