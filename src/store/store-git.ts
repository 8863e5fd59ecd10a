import { lstatSync } from 'node:fs';
import path from 'node:path';
import { runGit } from '../git/run.js';

/** Long enough for a first snapshot, a restore or a gc of a very large tree. */
export const GIT_LONG_TIMEOUT_MS = 10 * 60_000;
const IDENTITY = {
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
const MALLOC_SLACK = {
  MALLOC_TOP_PAD_: String(4 * 1024 * 1024),
  MALLOC_TRIM_THRESHOLD_: String(32 * 1024 * 1024),
};

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
  // No excludes file of the store's own (one that is never there): the one the project's config names,
  // which may be the project's own config, is copied into info/exclude (see inheritedIgnoreRules).
  const noExcludesFile = `core.excludesFile=${path.join(gitDir, 'info', 'no-excludes-file')}`;
  const run: StoreGit = (args, options = {}) =>
    runGit(['--git-dir', gitDir, '--work-tree', root, '-c', noExcludesFile, ...args], {
      cwd: root,
      timeoutMs: GIT_LONG_TIMEOUT_MS,
      // The store's git answers with paths: kept exact (see raw-path.ts).
      exactNames: true,
      // Optional locks on: this index is ours (we hold the store lock), and letting status write back
      // refreshed stat data and the untracked cache is what keeps the next scan cheap.
      extraEnv: { ...IDENTITY, ...MALLOC_SLACK, GIT_OPTIONAL_LOCKS: '1', ...options.extraEnv },
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
