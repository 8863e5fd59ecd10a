import type { GitExit, SpawnedGit, SpawnGitOptions } from './spawn.js';

// Git calls started before the code that needs them has loaded: the CLI's loader starts `status`'s
// `git status` first thing (cli/early-status.ts), and git scans the tree while Node loads and compiles
// the CLI. The first identical call takes its outcome over; a call that differs in anything (arguments,
// folder, timeout, input, environment, callbacks) runs its own git, as always.
//
// The loader and the CLI are separate bundles, each with its own copy of this module: what was started
// is kept on the global object, under a key of its own. No imports: the CLI loads this for every
// command, to end what nothing took.

const REGISTRY = Symbol.for('claude-checkpoint.early-git');

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

/** Ends the early calls nothing took, so that the process need not wait for them. */
export function dropEarlyGit(): void {
  for (const started of registry().values()) started.abandon();
  registry().clear();
}
