import { linkSync, lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { keepEarlyStoreScan } from '../git/early-start.js';
import { gitEnvironment } from '../git/spawn.js';
import { spawnGitDirect } from '../git/spawn-direct.js';
import { removeQuietly } from '../store/fs-seam.js';
import { projectStoreDir } from '../store/project-store-dir.js';
import {
  earlyIndexPath,
  fileStamp,
  GIT_LONG_TIMEOUT_MS,
  indexStamp,
  MALLOC_SLACK,
  SCAN_ARGS,
  STORE_IDENTITY,
  storeFolderStamp,
  storeGitArgs,
} from '../store/store-scan.js';
import { parseFastCommand } from './fast-argv.js';

// Run by the CLI's loader for `claude-checkpoint snapshot`, before the command has loaded: the capture's
// scan of the private store (one `git status`) is most of a warm snapshot's time, and started here git
// scans the tree while Node loads and compiles the command (about a tenth of the process at 10,000
// files; issue 26). Only where no one holds the store's lock; the scan reads the store's index under a
// name of its own and writes what it refreshes under that name, so it writes nothing of the store's, and the capture takes it over (putting the
// refreshed index in the index's place) only if it took the lock at its first try with no one having held
// it since, and found the index, HEAD, branch and rules as they were (store-git.ts, takeEarlyScan);
// anything else, and the capture scans as always.

/** The store's folders and files a scan reads, each refused by the command where a link stands in its place. */
const STORE_FOLDERS = ['info', 'objects', 'refs'];
const STORE_FILES = ['index', 'HEAD', 'config', 'packed-refs'];

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
    startStoreScanEarly(cwd(), storeBase);
  } catch {
    // The command meets the same problem itself, and says so.
  }
}

/**
 * Starts the store's scan for a snapshot of `root` about to be taken by this process (the CLI's
 * `snapshot`, or a prompt or pre-command hook that runs its event itself), where the store is set up for
 * this very folder and no one holds its lock. Only ever a saving: anything in doubt starts nothing.
 */
export function startStoreScanEarly(root: string, storeBase: string): void {
  let name: string | undefined;
  try {
    // A project inside the store's base folder is refused by the command.
    if (root === storeBase || root.startsWith(`${storeBase}${path.sep}`)) return;
    const storeDir = projectStoreDir(storeBase, root);
    const gitDir = path.join(storeDir, 'git');
    // The store's own folders and files, never through a link (the command refuses a store with one).
    const folders = [storeBase, path.dirname(storeDir), storeDir, gitDir];
    if (!folders.concat(STORE_FOLDERS.map((name) => path.join(gitDir, name))).every(isFolder)) return;
    if (!STORE_FILES.every((name) => isFileOrNone(path.join(gitDir, name)))) return;
    // Set up for this root (the marker store-setup.ts writes last), and no one holds its lock now.
    const ready = path.join(gitDir, 'claude-checkpoint-ready');
    if (!lstatSync(ready, { throwIfNoEntry: false })?.isFile()) return;
    if (readFileSync(ready, 'utf8') !== `${root}\n`) return;
    const folder = storeFolderStamp(storeDir);
    if (folder === null || lstatSync(path.join(storeDir, 'lock'), { throwIfNoEntry: false })) return;
    if (!isFileOrNone(path.join(gitDir, 'index'))) return;
    // The scan's own name for the index: a second link to it, so that git judges the entries it may not
    // trust by their times against the index's own time, as on the index itself (a copy would be newer,
    // and git would trust a file changed in the same second as the index was written). git writes what it
    // refreshed to a new file under that name, never to the index.
    const stamp = indexStamp(gitDir);
    if (stamp === null) return;
    name = earlyIndexPath(gitDir, process.pid);
    removeQuietly(name);
    linkSync(path.join(gitDir, 'index'), name);
    const index = { path: name, stamp: fileStamp(name) };
    const started = spawnGitDirect(
      storeGitArgs(gitDir, root, SCAN_ARGS),
      { cwd: root, timeoutMs: GIT_LONG_TIMEOUT_MS },
      // Optional locks on: git writes back what it refreshed, under the scan's own name.
      {
        ...gitEnvironment(),
        ...STORE_IDENTITY,
        ...MALLOC_SLACK,
        GIT_OPTIONAL_LOCKS: '1',
        GIT_INDEX_FILE: name,
      },
    );
    if (!started) {
      removeQuietly(name);
      return;
    }
    const left = name;
    const remove = () => {
      removeQuietly(left);
      removeQuietly(`${left}.lock`);
    };
    const discard = () => {
      started.abandon();
      remove();
      // What git wrote before it ended; a process that ends first leaves it to the next capture.
      void started.exit.then(remove, remove);
    };
    keepEarlyStoreScan(gitDir, root, { started, stamp, folder, index, discard });
  } catch {
    // The snapshot meets the same problem itself, and says so.
    if (name !== undefined) removeQuietly(name);
  }
}

function isFolder(folder: string): boolean {
  return lstatSync(folder, { throwIfNoEntry: false })?.isDirectory() === true;
}

function isFileOrNone(file: string): boolean {
  const stats = lstatSync(file, { throwIfNoEntry: false });
  return stats === undefined || stats.isFile();
}
