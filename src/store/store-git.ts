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

/** The scan of the working tree against the private index: what changed since the latest snapshot. */
export const STORE_SCAN_ARGS: readonly string[] = [
  'status',
  '--porcelain=v2',
  '-z',
  '--untracked-files=all',
  '--no-renames',
  '--ignore-submodules=all',
];

export interface StoreGitOptions {
  input?: string | Buffer;
  extraEnv?: Record<string, string>;
  okExitCodes?: number[];
  onSpawn?: (pid: number) => void;
  onStdout?: (chunk: Buffer) => void;
}

/** Git run in the private store: its own git dir, the project as the work tree. */
export type StoreGit = (args: readonly string[], options?: StoreGitOptions) => ReturnType<typeof runGit>;

/**
 * The arguments and spawn options of a git call in the store, as storeGit runs it: the CLI's loader
 * starts the snapshot's scan with the same (cli/early-snapshot.ts), for storeGit's call to take over.
 */
export function storeGitCall(
  gitDir: string,
  root: string,
  args: readonly string[],
  extraEnv?: Record<string, string>,
): { args: string[]; cwd: string; timeoutMs: number; extraEnv: Record<string, string> } {
  // No excludes file of the store's own (one that is never there): the one the project's config names,
  // which may be the project's own config, is copied into info/exclude (see inheritedIgnoreRules).
  const noExcludesFile = `core.excludesFile=${path.join(gitDir, 'info', 'no-excludes-file')}`;
  return {
    args: ['--git-dir', gitDir, '--work-tree', root, '-c', noExcludesFile, ...args],
    cwd: root,
    timeoutMs: GIT_LONG_TIMEOUT_MS,
    // Optional locks on: this index is ours (we hold the store lock), and letting status write back
    // refreshed stat data and the untracked cache is what keeps the next scan cheap.
    extraEnv: { ...IDENTITY, ...MALLOC_SLACK, GIT_OPTIONAL_LOCKS: '1', ...extraEnv },
  };
}

export function storeGit(gitDir: string, root: string): StoreGit {
  return (args, options = {}) => {
    const call = storeGitCall(gitDir, root, args, options.extraEnv);
    return runGit(call.args, {
      cwd: call.cwd,
      timeoutMs: call.timeoutMs,
      // The store's git answers with paths: kept exact (see raw-path.ts).
      exactNames: true,
      extraEnv: call.extraEnv,
      ...(options.okExitCodes ? { okExitCodes: options.okExitCodes } : {}),
      ...(options.input !== undefined ? { input: options.input } : {}),
      ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
      ...(options.onStdout ? { onStdout: options.onStdout } : {}),
    });
  };
}
