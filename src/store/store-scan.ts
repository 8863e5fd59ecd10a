import { type BigIntStats, lstatSync } from 'node:fs';
import path from 'node:path';

// How git is run in the private store, and its scan (one `git status`), in one place: the capture runs
// them (store-git.ts, snapshot-capture.ts), and the CLI's loader starts the scan of `claude-checkpoint
// snapshot` before the command has loaded (cli/early-snapshot.ts). Node's modules only: the loader loads
// this.

/** Who the store's commits are by: never the user's identity, which may not even be set. */
export const STORE_IDENTITY = {
  GIT_AUTHOR_NAME: 'claude-checkpoint',
  GIT_AUTHOR_EMAIL: 'claude-checkpoint@localhost',
  GIT_COMMITTER_NAME: 'claude-checkpoint',
  GIT_COMMITTER_EMAIL: 'claude-checkpoint@localhost',
};

/**
 * glibc's malloc gives memory back to the system after each object git deflates and takes it again for
 * the next: on a first snapshot of 10,000 files that churn was three quarters of `git add`'s time
 * (16 s against 3.6 s, same peak memory; issue 26). A little slack keeps the memory between objects.
 * Other C libraries ignore these variables.
 */
export const MALLOC_SLACK = {
  MALLOC_TOP_PAD_: String(4 * 1024 * 1024),
  MALLOC_TRIM_THRESHOLD_: String(32 * 1024 * 1024),
};

/** Long enough for a first snapshot, a restore or a gc of a very large tree. */
export const GIT_LONG_TIMEOUT_MS = 10 * 60_000;

/** git's arguments for `args` in the store: its own git dir, the project as the work tree. */
export function storeGitArgs(gitDir: string, root: string, args: readonly string[]): string[] {
  // No excludes file of the store's own (one that is never there): the one the project's config names,
  // which may be the project's own config, is copied into info/exclude (see inheritedIgnoreRules).
  const noExcludesFile = `core.excludesFile=${path.join(gitDir, 'info', 'no-excludes-file')}`;
  return ['--git-dir', gitDir, '--work-tree', root, '-c', noExcludesFile, ...args];
}

/** The scan: what changed in the working tree against the store's index, and the index against HEAD. */
export const SCAN_ARGS: readonly string[] = [
  'status',
  '--porcelain=v2',
  '-z',
  '--untracked-files=all',
  '--no-renames',
  '--ignore-submodules=all',
];

/**
 * What a scan's outcome depends on in the store: the index, HEAD and the branch it names, and the rules
 * (info/exclude, where every rule from outside the tree is copied; another process may have brought them
 * up to date, and a capture that finds them so would not scan again). Each is replaced whole (a new file
 * under its name), so a file's identity and time tell that it was written; `null` when the store has
 * no index.
 */
export function indexStamp(gitDir: string): string | null {
  try {
    const index = fileStamp(path.join(gitDir, 'index'));
    if (index === '-') return null;
    const others = [
      'HEAD',
      path.join('refs', 'heads', 'master'),
      'packed-refs',
      path.join('info', 'exclude'),
    ];
    return [index, ...others.map((name) => fileStamp(path.join(gitDir, name)))].join(' ');
  } catch {
    return null;
  }
}

/**
 * A file's identity, size and time of change (nanoseconds); `-` when there is none. Not its status time,
 * which a second link to the file changes (see cli/early-snapshot.ts) where its content stays.
 */
export function fileStamp(file: string): string {
  const stats: BigIntStats | undefined = lstatSync(file, { bigint: true, throwIfNoEntry: false });
  return stats ? `${stats.ino}:${stats.size}:${stats.mtimeNs}` : '-';
}

/**
 * Whether a folder's modification time falls on a whole second, as every time does on a file system
 * whose clock ticks once a second (ext3, ext4 with small inodes, HFS+; FAT's, every two). There a writer
 * that takes the store's lock and lets it go within one second leaves the folder's times as they were,
 * so they prove nothing: callers read under the lock instead. Given the time's part below a second, in
 * nanoseconds or milliseconds (zero either way). On a finer clock a whole second comes by chance, rarely,
 * and costs only the lock.
 */
export function isWholeSecond(partBelowSecond: number): boolean {
  return partBelowSecond === 0;
}

/**
 * The store folder's times: every process that takes or lets go of the store's lock makes and removes
 * files in it (the lock, its temp file), so an unchanged stamp, read before this process took the lock
 * at its first try, says no one held the lock since it was read. `null` when the folder cannot be read,
 * or its time is a whole second (isWholeSecond).
 */
export function storeFolderStamp(storeDir: string): string | null {
  try {
    const stats = lstatSync(storeDir, { bigint: true, throwIfNoEntry: false });
    if (!stats?.isDirectory() || isWholeSecond(Number(stats.mtimeNs % 1_000_000_000n))) return null;
    return `${stats.mtimeNs}:${stats.ctimeNs}`;
  } catch {
    return null;
  }
}

/**
 * An early scan's own name for the store's index (a second link to it), under which git writes what it
 * refreshes (its stat data for files touched but unchanged, the untracked cache) where a scan holding the
 * lock would write to the index itself: the capture puts that in the index's place when it takes the
 * scan over. Named for the process, so that a
 * name a killed process left is known (see removeLeftIndexFiles).
 */
export const EARLY_INDEX_PREFIX = 'index.early-';

export const earlyIndexPath = (gitDir: string, pid: number): string =>
  path.join(gitDir, `${EARLY_INDEX_PREFIX}${pid}`);
