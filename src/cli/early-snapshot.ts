import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { keepEarlyStoreScan } from '../git/early-start.js';
import { gitEnvironment } from '../git/spawn.js';
import { spawnGitDirect } from '../git/spawn-direct.js';
import { projectStoreDir } from '../store/project-store-dir.js';
import {
  GIT_LONG_TIMEOUT_MS,
  indexStamp,
  MALLOC_SLACK,
  SCAN_ARGS,
  STORE_IDENTITY,
  storeGitArgs,
} from '../store/store-scan.js';
import { parseFastCommand } from './fast-argv.js';

// Run by the CLI's loader for `claude-checkpoint snapshot`, before the command has loaded: the capture's
// scan of the private store (one `git status`) is most of a warm snapshot's time, and started here git
// scans the tree while Node loads and compiles the command (about a tenth of the process at 10,000
// files; issue 26). The scan writes nothing, and the capture takes it over only holding the store's lock
// and finding the store's index as it was before the scan started (store-git.ts, takeEarlyScan);
// anything else, and the capture scans as always.

/**
 * Starts the store's scan for `snapshot` run in a project whose store is set up for this very folder.
 * `storeBase`: the store's base folder, where the environment alone names it (else none starts). Only
 * ever a saving: anything in doubt starts nothing, and the command runs as always.
 */
export function startSnapshotScanEarly(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: () => string,
  storeBase: string | undefined,
): void {
  const command = parseFastCommand(argv);
  if (command?.name !== 'snapshot' || command.options.root !== undefined || storeBase === undefined) return;
  if (env.CHECKPOINT_PROJECT_ROOT?.trim()) return;
  try {
    const root = cwd();
    const storeDir = projectStoreDir(storeBase, root);
    const gitDir = path.join(storeDir, 'git');
    // The store's own folders, never through a link, set up for this root (the marker store-setup.ts
    // writes last); the command checks them all again before it writes anything.
    if (!isFolder(storeDir) || !isFolder(gitDir)) return;
    const ready = path.join(gitDir, 'claude-checkpoint-ready');
    if (!lstatSync(ready, { throwIfNoEntry: false })?.isFile()) return;
    if (readFileSync(ready, 'utf8') !== `${root}\n`) return;
    const stamp = indexStamp(gitDir);
    if (stamp === null) return;
    // gitEnvironment() turns optional locks off: this scan never writes the index, so it never takes
    // the index's lock from a process that holds the store's.
    const started = spawnGitDirect(
      storeGitArgs(gitDir, root, SCAN_ARGS),
      { cwd: root, timeoutMs: GIT_LONG_TIMEOUT_MS },
      { ...gitEnvironment(), ...STORE_IDENTITY, ...MALLOC_SLACK },
    );
    if (started) keepEarlyStoreScan(gitDir, root, { started, stamp });
  } catch {
    // The command meets the same problem itself, and says so.
  }
}

function isFolder(folder: string): boolean {
  return lstatSync(folder, { throwIfNoEntry: false })?.isDirectory() === true;
}
