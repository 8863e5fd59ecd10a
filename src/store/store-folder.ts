import {
  closeSync,
  constants,
  type Dirent,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  type Stats,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';

// Security: the one check every folder and file of the store passes before we write, append, create or
// delete through it. A link planted in the place of one (`git/`, `cache/`, `transcripts/`, `kinds.jsonl`)
// would carry those writes out of the store, into another repository's `.git` or any folder (safety
// audit of 2026-12-07, items 2-4): refused, as the store base, `projects/<p>` and `run/` are. Nothing
// heavier than node:fs and the error class is loaded: the hooks' loader runs it (code-cache.ts).

/**
 * Makes each folder in turn where it is missing (0700, its missing parents too) and refuses one that is
 * there as a symbolic link or as anything but a folder. One lstat per folder when all are there.
 */
export function ensureStoreFolders(dirs: readonly string[]): void {
  for (const dir of dirs) ensureStoreFolder(dir);
}

function ensureStoreFolder(dir: string): void {
  let stats = lstatSync(dir, { throwIfNoEntry: false });
  if (stats?.isDirectory()) return;
  if (stats === undefined) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') mkdirSync(dir, { recursive: true, mode: 0o700 });
      else if (code !== 'EEXIST')
        throw new CheckpointError(
          'IO_FAILED',
          `could not create the snapshot store ${dir}: ${(error as Error).message}`,
          { cause: error },
        );
    }
    stats = lstatSync(dir, { throwIfNoEntry: false });
    if (stats?.isDirectory()) return;
  }
  throw refusal(dir, stats, 'folder');
}

/**
 * Refuses a folder of the store that is there as a symbolic link or as anything but a folder; a missing
 * one is fine (for readers, and for `git init`, which makes its own).
 */
export function refuseStoreFolderLink(dir: string): void {
  const stats = lstatSync(dir, { throwIfNoEntry: false });
  if (stats !== undefined && !stats.isDirectory()) throw refusal(dir, stats, 'folder');
}

/**
 * Refuses a fan-out folder `objects/xx` that is there as a symbolic link or as anything but a folder:
 * git writes a snapshot's new objects into them, and gc prunes through them, so a link in one's place
 * carries those writes and deletions into whatever it points at (brief h-left, item 3). One listing of
 * `objectsDir` gives each entry's type (no lstat per folder: 256 of them in a packed store's life);
 * an entry whose type the file system does not give is looked at with lstat.
 */
export function refuseFanOutLinks(objectsDir: string): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(objectsDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // no store yet: git init makes it
    throw error;
  }
  for (const entry of entries) {
    if (!entry.isDirectory() && FAN_OUT_NAME.test(entry.name))
      refuseStoreFolderLink(path.join(objectsDir, entry.name));
  }
}

/** A fan-out folder's name: the first two hex digits of the oids it holds. */
const FAN_OUT_NAME = /^[0-9a-f]{2}$/;

/** Refuses a file of the store that is there as a symbolic link or as anything but a plain file. */
export function refuseStoreFileLink(file: string): void {
  const stats = lstatSync(file, { throwIfNoEntry: false });
  if (stats !== undefined && !stats.isFile()) throw refusal(file, stats, 'file');
}

function refusal(at: string, stats: Stats | undefined, kind: 'folder' | 'file'): CheckpointError {
  const what = stats?.isSymbolicLink()
    ? 'a symbolic link'
    : `not a ${kind === 'folder' ? 'folder' : 'plain file'}`;
  return new CheckpointError(
    'UNSAFE_PATH',
    `refusing to use the snapshot store ${at}: it is ${what}, where the store keeps a ${kind} of its own. Nothing was written through it; move it away (the store makes a new one) and try again.`,
  );
}

/**
 * The folders down to a project's store, `<base>/projects/<p>`, then `under` it, in order: what
 * ensureStoreFolders checks before a write there.
 */
export function projectStoreFolders(storeDir: string, ...under: string[]): string[] {
  const projects = path.dirname(storeDir);
  return [path.dirname(projects), projects, storeDir, ...under.map((name) => path.join(storeDir, name))];
}

/**
 * Writes a small file of the store in place (0600), or appends to it, creating it where missing: never
 * through a link put in its place (O_NOFOLLOW fails with ELOOP). For the files that are not written
 * atomically (see atomic-write.ts for those that are).
 */
export function writeStoreFileInPlace(
  file: string,
  text: string,
  how: 'replace' | 'append' = 'replace',
): void {
  const flags =
    constants.O_WRONLY |
    constants.O_CREAT |
    constants.O_NOFOLLOW |
    (how === 'append' ? constants.O_APPEND : constants.O_TRUNC);
  const fd = openSync(file, flags, 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
