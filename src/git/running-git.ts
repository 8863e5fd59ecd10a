// The git processes this process runs now, so that a hook that gave up can end them before it exits.
// Without this, `process.exit` left them running, orphaned: still writing into the store (its set-up, a
// snapshot's index and objects) after the hook had said it gave up, with no process holding the store's
// lock for them (CI, 2026-12-07: a test's folder could not be removed behind such a hook).
//
// Kept on the global object, as early-start.ts's calls are: the loader and the CLI are separate bundles.
// No imports: the hooks' entry loads this on every event.

const RUNNING = Symbol.for('claude-checkpoint.running-git');

/** One git process, as spawn.ts and spawn-direct.ts start it. */
export interface RunningGit {
  /** Settles once git has exited and its pipes have closed. */
  exit: Promise<unknown>;
  /** Asks git to end (SIGTERM): git removes the lock files it holds as it goes. */
  stop: () => void;
  /** Ends git at once (SIGKILL) and lets go of its pipes. */
  abandon: () => void;
}

interface Registry {
  running: Set<RunningGit>;
  isEnding: boolean;
}

function registry(): Registry {
  const holder = globalThis as { [RUNNING]?: Registry };
  holder[RUNNING] ??= { running: new Set(), isEnding: false };
  return holder[RUNNING];
}

/** Whether this process is ending its git processes: it starts no other. */
export function isEndingGit(): boolean {
  return registry().isEnding;
}

/** Counts `git` as running until its exit settles. */
export function trackRunningGit(git: RunningGit): void {
  const { running } = registry();
  running.add(git);
  void git.exit.then(
    () => running.delete(git),
    () => running.delete(git),
  );
}

/**
 * Ends every git this process runs, and starts no other: what a hook calls before it exits, so that
 * nothing it began goes on writing without it. SIGTERM first, so that git removes its lock files; a git
 * still running `graceMs` later is killed.
 */
export async function endRunningGit(graceMs = 1000): Promise<void> {
  const state = registry();
  state.isEnding = true;
  const all = [...state.running];
  if (all.length === 0) return;
  for (const git of all) git.stop();
  const ended = Promise.all(all.map((git) => git.exit));
  if (await settlesWithin(ended, graceMs)) return;
  for (const git of all) git.abandon();
  await settlesWithin(ended, graceMs);
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
