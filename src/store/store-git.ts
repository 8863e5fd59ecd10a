import { runGit } from '../git/run.js';

/** Long enough for a first snapshot, a restore or a gc of a very large tree. */
export const GIT_LONG_TIMEOUT_MS = 10 * 60_000;
const IDENTITY = {
  GIT_AUTHOR_NAME: 'claude-checkpoint',
  GIT_AUTHOR_EMAIL: 'claude-checkpoint@localhost',
  GIT_COMMITTER_NAME: 'claude-checkpoint',
  GIT_COMMITTER_EMAIL: 'claude-checkpoint@localhost',
};

export interface StoreGitOptions {
  input?: string;
  extraEnv?: Record<string, string>;
  okExitCodes?: number[];
  onSpawn?: (pid: number) => void;
}

/** Git run in the private store: its own git dir, the project as the work tree. */
export type StoreGit = (args: readonly string[], options?: StoreGitOptions) => ReturnType<typeof runGit>;

export function storeGit(gitDir: string, root: string): StoreGit {
  return (args, options = {}) =>
    runGit(['--git-dir', gitDir, '--work-tree', root, ...args], {
      cwd: root,
      timeoutMs: GIT_LONG_TIMEOUT_MS,
      // Optional locks on: this index is ours (we hold the store lock), and letting status write back
      // refreshed stat data and the untracked cache is what keeps the next scan cheap.
      extraEnv: { ...IDENTITY, GIT_OPTIONAL_LOCKS: '1', ...options.extraEnv },
      ...(options.okExitCodes ? { okExitCodes: options.okExitCodes } : {}),
      ...(options.input !== undefined ? { input: options.input } : {}),
      ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
    });
}
