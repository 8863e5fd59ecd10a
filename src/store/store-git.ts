import { lstatSync } from 'node:fs';
import { takeEarlyStoreScan } from '../git/early-start.js';
import { type GitResult, runGit, runGitFrom } from '../git/run.js';
import {
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
 * if the store's index, HEAD and branch are as they were before it started: nothing wrote them since, so
 * its outcome is that of a scan started now, but sooner. `null` otherwise, the early scan ended; and
 * always with `isWanted` false (a first scan, which waits for the store's rules). Call it holding the
 * lock. The early scan wrote nothing (no optional locks), so the index it read is not refreshed: the
 * next scan, which does, catches up.
 */
export function takeEarlyScan(gitDir: string, root: string, isWanted: boolean): Promise<GitResult> | null {
  const early = takeEarlyStoreScan(gitDir, root);
  if (!early) return null;
  if (!isWanted || early.stamp !== indexStamp(gitDir)) {
    early.started.abandon();
    return null;
  }
  return runGitFrom(early.started.exit, storeGitArgs(gitDir, root, SCAN_ARGS), {
    cwd: root,
    timeoutMs: GIT_LONG_TIMEOUT_MS,
    exactNames: true,
  });
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
