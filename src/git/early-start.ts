import type { GitExit, SpawnedGit, SpawnGitOptions } from './spawn.js';

// Git calls started before the code that needs them has loaded: the CLI's loader starts `status`'s
// `git status` first thing (cli/early-status.ts), and git scans the tree while Node loads and compiles
// the CLI. The first identical call takes its outcome over; a call that differs in anything (arguments,
// folder, timeout, input, environment, callbacks) runs its own git, as always. `snapshot`'s scan of the
// private store is kept apart (keepEarlyStoreScan): only a capture holding the store's lock may take it.
//
// The loader and the CLI are separate bundles, each with its own copy of this module: what was started
// is kept on the global object, under a key of its own. No imports: the CLI loads this for every
// command, to end what nothing took.

const REGISTRY = Symbol.for('claude-checkpoint.early-git');
const SCANS = Symbol.for('claude-checkpoint.early-store-scan');

type Registry = Map<string, SpawnedGit>;

function registry(): Registry {
  const holder = globalThis as { [REGISTRY]?: Registry };
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

const keyOf = (args: readonly string[], cwd: string, timeoutMs: number) =>
  JSON.stringify([cwd, timeoutMs, args]);

/** Keeps a git call started early (spawnGit's) for the first identical runGit call to take over. */
export function keepEarlyGit(
  args: readonly string[],
  options: { cwd: string; timeoutMs: number },
  started: SpawnedGit,
): void {
  const key = keyOf(args, options.cwd, options.timeoutMs);
  registry().get(key)?.abandon();
  registry().set(key, started);
}

/** The outcome of an early call identical to this one, at most once; `undefined` otherwise. */
export function takeEarlyGit(
  args: readonly string[],
  options: SpawnGitOptions,
): Promise<GitExit> | undefined {
  const { cwd, timeoutMs, extraEnv, input, onSpawn, onStdout } = options;
  if (extraEnv !== undefined || input !== undefined || onSpawn || onStdout) return undefined;
  const key = keyOf(args, cwd, timeoutMs);
  const started = registry().get(key);
  if (!started) return undefined;
  registry().delete(key);
  return started.exit;
}

/**
 * A scan of the private store started before its lock was taken (cli/early-snapshot.ts), reading the
 * store's index under a name of its own (`index`), where git writes what it refreshes. `stamp` (the store's indexStamp) and
 * `folder` (its storeFolderStamp, store-scan.ts) are from before git started: the capture compares them
 * with the store's once it holds the lock.
 */
export interface EarlyStoreScan {
  started: SpawnedGit;
  stamp: string;
  folder: string;
  /** That name (a second link to the index), and its stamp before git ran. */
  index: { path: string; stamp: string };
  /** Ends git and removes that name (once git has ended too): the scan is not taken. */
  discard: () => void;
}

function scans(): Map<string, EarlyStoreScan> {
  const holder = globalThis as { [SCANS]?: Map<string, EarlyStoreScan> };
  holder[SCANS] ??= new Map();
  return holder[SCANS];
}

const scanKeyOf = (gitDir: string, root: string) => JSON.stringify([gitDir, root]);

/** Keeps a store's scan started early, for the first capture of that store and root to take over. */
export function keepEarlyStoreScan(gitDir: string, root: string, scan: EarlyStoreScan): void {
  const key = scanKeyOf(gitDir, root);
  scans().get(key)?.discard();
  scans().set(key, scan);
}

/** The early scan of this store and root, at most once; `undefined` when none was started. */
export function takeEarlyStoreScan(gitDir: string, root: string): EarlyStoreScan | undefined {
  const key = scanKeyOf(gitDir, root);
  const scan = scans().get(key);
  scans().delete(key);
  return scan;
}

/** Ends the early calls nothing took, so that the process need not wait for them. */
export function dropEarlyGit(): void {
  for (const started of registry().values()) started.abandon();
  registry().clear();
  for (const scan of scans().values()) scan.discard();
  scans().clear();
}
