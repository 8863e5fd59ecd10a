import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { bytesFromText, fsPath } from '../core/raw-path.js';
import { isRestorablePath } from '../core/snapshot.js';
import { writeFileAtomic } from './atomic-write.js';
import { nodeFs } from './fs-seam.js';
import { RESTORE_TEMP_PREFIX } from './worktree-writer.js';

export interface RestoreJournal {
  target: string;
  undo: string;
  /** The paths `undo` is to be restored at (empty: the whole tree); absent in journals of older versions. */
  paths?: string[];
  /** Folders (relative, '.' for the root) where the restore writes temp files. */
  dirs: string[];
  startedAt: string;
}

/**
 * Notes a restore in progress (its target, the snapshot that undoes it, the folders it writes in), so
 * an interrupted one can be named, and its temp files found and removed, by the next restore.
 */
export async function beginRestore(file: string, journal: RestoreJournal): Promise<void> {
  writeFileAtomic(nodeFs, file, JSON.stringify(journal));
}

export async function endRestore(file: string): Promise<void> {
  await fsp.rm(file, { force: true });
}

/** Cleans up after a restore that was killed midway; returns what it was doing, or `null`. */
export async function recoverInterruptedRestore(file: string, root: string): Promise<RestoreJournal | null> {
  let journal: RestoreJournal;
  try {
    journal = JSON.parse(await fsp.readFile(file, 'utf8')) as RestoreJournal;
  } catch {
    return null;
  }
  const realRoot = await fsp.realpath(root).catch(() => root);
  for (const dir of Array.isArray(journal.dirs) ? journal.dirs : []) {
    if (dir !== '.' && !isRestorablePath(dir)) continue;
    const absolute = path.join(root, dir);
    // Security: a folder swapped for a link since is not followed: only the project's own are cleaned.
    const real = await fsp.realpath(fsPath(absolute), { encoding: 'buffer' }).catch(() => null);
    if (real === null || !real.equals(bytesFromText(path.join(realRoot, dir)))) continue;
    // A folder whose name is not valid UTF-8 is read by its bytes (see raw-path.ts); our temp files' names are ASCII.
    const names = await fsp.readdir(fsPath(absolute)).catch(() => [] as string[]);
    for (const name of names) {
      if (name.startsWith(RESTORE_TEMP_PREFIX))
        await fsp.rm(fsPath(path.join(absolute, name)), { force: true });
    }
  }
  return journal;
}
