import { closeSync, constants, lstatSync, openSync, readdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { type EarlyStoreScan, takeEarlyStoreScan } from '../git/early-start.js';
import { type GitResult, runGit, runGitFrom } from '../git/run.js';
import { removeQuietly } from './fs-seam.js';
import {
  EARLY_INDEX_PREFIX,
  fileStamp,
  GIT_LONG_TIMEOUT_MS,
  indexStamp,
  MALLOC_SLACK,
  SCAN_ARGS,
  STORE_IDENTITY,
  storeGitArgs,
} from './store-scan.js';

export { GIT_LONG_TIMEOUT_MS } from './store-scan.js';

export interface StoreGitOptions {
  input?: string | Buffer;
  extraEnv?: Record<string, string>;
  okExitCodes?: number[];
  onSpawn?: (pid: number) => void;
  onStdout?: (chunk: Buffer) => void;
}

/** Git run in the private store: its own git dir, the project as the work tree. */
export type StoreGit = (args: readonly string[], options?: StoreGitOptions) => ReturnType<typeof runGit>;

export function storeGit(gitDir: string, root: string): StoreGit {
  const run: StoreGit = (args, options = {}) =>
    runGit(storeGitArgs(gitDir, root, args), {
      cwd: root,
      timeoutMs: GIT_LONG_TIMEOUT_MS,
      // The store's git answers with paths: kept exact (see raw-path.ts).
      exactNames: true,
      // Optional locks on: this index is ours (we hold the store lock), and letting status write back
      // refreshed stat data and the untracked cache is what keeps the next scan cheap.
      extraEnv: { ...STORE_IDENTITY, ...MALLOC_SLACK, GIT_OPTIONAL_LOCKS: '1', ...options.extraEnv },
      ...(options.okExitCodes ? { okExitCodes: options.okExitCodes } : {}),
      ...(options.input !== undefined ? { input: options.input } : {}),
      ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
      ...(options.onStdout ? { onStdout: options.onStdout } : {}),
    });
  return async (args, options) => {
    try {
      return await run(args, options);
    } catch (error) {
      // We hold the store's lock, so a git holding one of git's own index locks is a git of a call of
      // ours that was killed after it forked that git, still ending (the store lock's check for such a
      // leftover can run before that git has even exec'd: crash tests, 2026-12-07). A git that cannot
      // take the lock changed nothing: once that lock is gone, try once more.
      const locked = INDEX_LOCKED.exec(error instanceof Error ? error.message : '');
      if (!locked || !(await goneWithin(locked[1] as string, LOCKED_WAIT_MS))) throw error;
      return run(args, options);
    }
  };
}

/**
 * The store's scan the CLI's loader started before this process took the lock (cli/early-snapshot.ts),
 * if it may stand for a scan started now: this process took the lock at its first try and the store's
 * folder is as it was before the scan started (`lockedFrom`, the folder's stamp just before: no one held
 * the lock since), and so are its index, HEAD, branch and rules. Its outcome then, with what it
 * refreshed put in the index's place (what a scan holding the lock writes back). `null` otherwise, the
 * early scan ended and its name for the index removed; and always with `isWanted` false (a first scan,
 * which waits for the store's rules). Call it holding the lock.
 */
export function takeEarlyScan(
  gitDir: string,
  root: string,
  isWanted: boolean,
  lockedFrom: string | null,
): Promise<GitResult> | null {
  const early = takeEarlyStoreScan(gitDir, root);
  if (!early) return null;
  if (!isWanted || lockedFrom === null || early.folder !== lockedFrom || early.stamp !== indexStamp(gitDir)) {
    early.discard();
    return null;
  }
  const taken = runGitFrom(early.started.exit, storeGitArgs(gitDir, root, SCAN_ARGS), {
    cwd: root,
    timeoutMs: GIT_LONG_TIMEOUT_MS,
    exactNames: true,
  });
  return taken.then(
    (result) => {
      putEarlyIndexInPlace(gitDir, early.index);
      return result;
    },
    (error: unknown) => {
      early.discard();
      throw error;
    },
  );
}

/**
 * What the early scan refreshed in the index's place, under git's own lock on the index (no git of ours
 * runs on the store while we hold its lock, so one there is a leftover the lock's holder removes first).
 * A name git did not write to (nothing to refresh), still a second link to the index, is only removed.
 */
function putEarlyIndexInPlace(gitDir: string, name: EarlyStoreScan['index']): void {
  if (fileStamp(name.path) === name.stamp) {
    removeQuietly(name.path);
    return;
  }
  const indexLock = path.join(gitDir, 'index.lock');
  try {
    closeSync(
      openSync(
        indexLock,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      ),
    );
  } catch {
    removeQuietly(name.path);
    return;
  }
  try {
    renameSync(name.path, path.join(gitDir, 'index'));
  } catch {
    removeQuietly(name.path);
  } finally {
    removeQuietly(indexLock);
  }
}

/** How long a git of the store may run at most (its timeout), with a margin: a file of its older is a leftover. */
const EARLY_INDEX_MAX_AGE_MS = GIT_LONG_TIMEOUT_MS + 60_000;

/** git's temp name for a shared index it is writing (`sharedindex_XXXXXX`), renamed once whole. */
const SHARED_INDEX_TEMP_PREFIX = 'sharedindex_';

/**
 * Removes what killed processes left of the index in the store: the names for it (and git's locks on them)
 * of early scans whose process no longer runs (a snapshot killed before its capture took its scan), and
 * the temp files of shared indexes a killed git was writing (git's own clean-up removes only
 * `sharedindex.*`, and a snapshot now writes a new shared index every few hundred changed paths). A temp
 * file goes only once older than any git may run, since a scan running beside this may be writing one.
 * Call it holding the lock.
 */
export function removeLeftIndexFiles(gitDir: string): void {
  let names: string[];
  try {
    names = readdirSync(gitDir).filter(
      (name) => name.startsWith(EARLY_INDEX_PREFIX) || name.startsWith(SHARED_INDEX_TEMP_PREFIX),
    );
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(SHARED_INDEX_TEMP_PREFIX)) {
      const file = path.join(gitDir, name);
      const stats = lstatSync(file, { throwIfNoEntry: false });
      if (stats?.isFile() && Date.now() - stats.mtimeMs > EARLY_INDEX_MAX_AGE_MS) removeQuietly(file);
      continue;
    }
    const pid = Number(/^index\.early-(\d+)/.exec(name)?.[1]);
    if (pid === process.pid) continue;
    const file = path.join(gitDir, name);
    const stats = lstatSync(file, { throwIfNoEntry: false });
    if (!stats) continue;
    if (!isRunning(pid) || Date.now() - stats.mtimeMs > EARLY_INDEX_MAX_AGE_MS) removeQuietly(file);
  }
}

function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** git's refusal to take an index's lock that another process holds. */
const INDEX_LOCKED = /Unable to create '([^']+\.lock)': File exists/;
/** How long a killed call's git may take to end: a snapshot's git of a large tree, at most a few seconds. */
const LOCKED_WAIT_MS = 10_000;

async function goneWithin(file: string, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    if (lstatSync(file, { throwIfNoEntry: false }) === undefined) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}
