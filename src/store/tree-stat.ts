import { lstatSync, type Stats } from 'node:fs';
import path from 'node:path';
import { fsPath } from '../core/raw-path.js';
import type { FileStamp } from '../core/snapshot.js';

/**
 * lstat of paths of the tree at `root` (`/`-separated, relative), following no link on the way: under a
 * folder that became a symbolic link (or a file) nothing is there as far as a snapshot or a restore
 * goes, as git sees it ("beyond a symbolic link"), so nothing is read, kept aside or written through the
 * link (adversarial trial, 2026-12-06: a tracked folder swapped for a link to a folder holding the same
 * names stopped every snapshot). Every answer is remembered for the caller's run: many paths share
 * their folders. Synchronous on purpose: one lstat per path is a short burst, several times cheaper
 * than a round trip through the thread pool each.
 */
export function treeStat(root: string): (file: string) => Stats | null {
  const seen = new Map<string, Stats | null>();
  const stat = (file: string): Stats | null => {
    let stats = seen.get(file);
    if (stats === undefined) {
      const parent = path.posix.dirname(file);
      if (parent !== '.' && stat(parent)?.isDirectory() !== true) stats = null;
      else {
        try {
          stats = lstatSync(fsPath(path.join(root, file)), { throwIfNoEntry: false }) ?? null;
        } catch {
          stats = null; // cannot be read: gone, as far as we can tell
        }
      }
      seen.set(file, stats);
    }
    return stats;
  };
  return stat;
}

/**
 * The stamp of a regular file of `bytes` bytes at `file` (project-relative, its folders checked by a
 * treeStat first), or null when it is not that file now. Read in nanoseconds (bigint): a number of
 * milliseconds cannot tell two writes of one millisecond apart. Decimal strings, as JSON keeps them.
 */
export function fileStamp(root: string, file: string, bytes: number): FileStamp | null {
  try {
    const stats = lstatSync(fsPath(path.join(root, file)), { bigint: true, throwIfNoEntry: false });
    if (!stats?.isFile() || stats.size !== BigInt(bytes)) return null;
    return { mtimeNs: stats.mtimeNs.toString(), ino: stats.ino.toString() };
  } catch {
    return null;
  }
}
