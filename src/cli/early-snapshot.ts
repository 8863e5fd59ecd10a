import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { keepEarlyGit } from '../git/early-start.js';
import { spawnGit } from '../git/spawn.js';
import { removeQuietly } from '../store/fs-seam.js';
import { holdEarlyLock, tryTakeLockNow } from '../store/lock.js';
import { defaultStoreBase } from '../store/store-base.js';
import { STORE_SCAN_ARGS, storeGitCall } from '../store/store-git.js';
import { projectStoreDir } from '../store/store-location.js';
import { ROOTLESS_FLAGS } from './early-status.js';

// Run by the CLI's loader before anything else loads (issue 26). `claude-checkpoint snapshot` in a
// project whose store has a snapshot spends most of its time in one `git status` in the store (the
// scan, see store/snapshot-capture.ts): started here, under the store's lock, git scans the tree while
// Node loads the CLI, and the capture takes the scan over (git/early-start.ts) as it would take over its
// own early scan. The lock is taken here and handed to the command's (store/lock.ts): the scan runs under
// it as every scan of the store does. Only where the command surely snapshots this store, set up and
// not busy; anything else leaves the command to run as always. A scan nothing took (the command failed
// first) is let finish before the lock is let go: a git killed while it writes the index would leave
// its index.lock behind.

/**
 * Starts `snapshot`'s scan of the store now when the command line, the folder and the store say it will
 * run. Only ever a saving: anything in the way leaves the command to run as always.
 */
export function startSnapshotEarly(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: () => string): void {
  if (argv[0] !== 'snapshot' || !onlyRootlessOptions(argv.slice(1))) return;
  if (env.CHECKPOINT_PROJECT_ROOT?.trim()) return;
  try {
    const root = realpathSync.native(cwd());
    const base = defaultStoreBase(env);
    const storeDir = projectStoreDir(base, root);
    // Security: nothing is written through a link planted in the store's place (the command refuses it).
    if (![base, path.dirname(storeDir), storeDir].every(isRealFolder)) return;
    const gitDir = path.join(storeDir, 'git');
    if (!isSetUp(gitDir) || !hasLatest(path.join(storeDir, 'state.json'))) return;
    const lockPath = path.join(storeDir, 'lock');
    if (!tryTakeLockNow(lockPath)) return;
    // Holding the lock: a gc or a git of a killed owner still running is for the command to wait on.
    if (isBusy(gitDir)) {
      removeQuietly(lockPath);
      return;
    }
    const call = storeGitCall(gitDir, root, STORE_SCAN_ARGS);
    const started = spawnGit(call.args, call);
    keepEarlyGit(call.args, call, { exit: started.exit, abandon: () => undefined });
    holdEarlyLock(lockPath, started.exit);
  } catch {
    // The command meets the same problem itself, and says so.
  }
}

/** Only options that leave the root and the store as they are: `--label <text>` and the common ones. */
function onlyRootlessOptions(args: readonly string[]): boolean {
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] as string;
    if (ROOTLESS_FLAGS.has(arg) || arg.startsWith('--label=')) continue;
    if (arg === '--label' && at + 1 < args.length) {
      at++;
      continue;
    }
    return false;
  }
  return true;
}

function isRealFolder(dir: string): boolean {
  return lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** Set up whole (store/store-setup.ts's ready marker), its HEAD where set-up points it. */
function isSetUp(gitDir: string): boolean {
  if (!lstatSync(path.join(gitDir, 'claude-checkpoint-ready'), { throwIfNoEntry: false })) return false;
  return readFileSync(path.join(gitDir, 'HEAD'), 'utf8') === 'ref: refs/heads/master\n';
}

/** The capture scans at once only when there is a latest snapshot (store/snapshot-capture.ts). */
function hasLatest(statePath: string): boolean {
  const state = JSON.parse(readFileSync(statePath, 'utf8')) as { latest?: { tree?: unknown } | null };
  return typeof state.latest?.tree === 'string';
}

function isBusy(gitDir: string): boolean {
  return ['index.lock', 'gc.pid'].some(
    (name) => lstatSync(path.join(gitDir, name), { throwIfNoEntry: false }) !== undefined,
  );
}
