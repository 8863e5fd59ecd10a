import { spawnSync } from 'node:child_process';
import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { openStore, takeSnapshot } from '../../src/app/rewind.js';
import { startSnapshotScanEarly } from '../../src/cli/early-snapshot.js';
import { allowDirectSpawn } from '../../src/git/direct-spawn-flag.js';
import { dropEarlyGit, keepEarlyStoreScan, takeEarlyStoreScan } from '../../src/git/early-start.js';
import { projectStoreDir } from '../../src/store/store-location.js';
import { assertBuilt, CLI, gitLoggingShim } from '../helpers/cli.js';
import { DIRECT_SPAWN_HERE } from '../helpers/direct-spawn.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// Issue 26: `claude-checkpoint snapshot`'s loader starts the store's scan before the command has loaded
// (src/cli/early-snapshot.ts), under a name of its own for the store's index, and the capture takes it over only when
// it took the store's lock at its first try with no one having held it since, and finds the store's
// index, HEAD, branch and rules as they were (store-git.ts, takeEarlyScan). The other writers here are a
// real second process (the built CLI, snapshotting the same project) and a holder of the store's lock
// that writes only the working tree, as a restore does.

beforeAll(assertBuilt);

const savedPath = process.env.PATH ?? '';

afterEach(() => {
  dropEarlyGit();
  process.env.PATH = savedPath;
  delete process.env.TRACE_GIT_LOG;
});

/** A project with one snapshot in its own store; `root` as the CLI names it (symlinks resolved). */
async function projectWithSnapshot() {
  const root = createRepo({ committed: { 'a.txt': 'a1\n', 'b.txt': 'b1\n' } });
  const storeBase = tempDir('early-scan-store-');
  const env = { CHECKPOINT_STORE_DIR: storeBase };
  const deps = defaultDeps({ env });
  await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
  const storeDir = projectStoreDir(storeBase, root);
  return { root, storeBase, storeDir, gitDir: path.join(storeDir, 'git'), env, deps };
}

/** Waits until the early scan has ended (it has read the store), and keeps it for the capture again. */
async function earlyScanEnded(gitDir: string, root: string): Promise<void> {
  const early = takeEarlyStoreScan(gitDir, root);
  expect(early).toBeDefined();
  if (!early) return;
  expect((await early.started.exit).code).toBe(0);
  keepEarlyStoreScan(gitDir, root, early);
}

/** A snapshot of `root` by another process, the built CLI: it takes the store's lock and writes the store. */
function snapshotInAnotherProcess(root: string, env: Record<string, string>): void {
  const other = spawnSync(process.execPath, [CLI, 'snapshot'], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  expect(other.status, other.stderr).toBe(0);
}

/** The early scans' names for the index left in a store's git folder. */
const earlyCopies = (gitDir: string) => readdirSync(gitDir).filter((name) => name.startsWith('index.early-'));

/** A file's content in a snapshot, read from the store with git itself. */
function inSnapshot(gitDir: string, commit: string, file: string): string {
  const shown = spawnSync('git', ['--git-dir', gitDir, 'show', `${commit}:${file}`], { encoding: 'utf8' });
  expect(shown.status, shown.stderr).toBe(0);
  return shown.stdout;
}

describe("the loader's early scan for snapshot", () => {
  it.skipIf(!DIRECT_SPAWN_HERE)('starts for a store set up for this very folder', async () => {
    const { root, storeBase, gitDir } = await projectWithSnapshot();
    allowDirectSpawn();
    startSnapshotScanEarly(['snapshot', '--label', 'x'], {}, () => root, storeBase);
    const early = takeEarlyStoreScan(gitDir, root);
    expect(early).toBeDefined();
    const exit = await early?.started.exit;
    expect(exit?.code).toBe(0);
  });

  it.skipIf(!DIRECT_SPAWN_HERE)('starts nothing where the command may not run in this store', async () => {
    const { root, storeBase, storeDir, gitDir } = await projectWithSnapshot();
    allowDirectSpawn();
    const startsFor = (
      argv: string[],
      env: NodeJS.ProcessEnv = {},
      base: { storeBase?: string } = { storeBase },
    ) => {
      startSnapshotScanEarly(argv, env, () => root, base.storeBase);
      const early = takeEarlyStoreScan(gitDir, root);
      early?.discard();
      return early !== undefined;
    };
    expect(startsFor(['snapshot', '--root', root])).toBe(false);
    expect(startsFor(['snapshot'], { CHECKPOINT_PROJECT_ROOT: root })).toBe(false);
    expect(startsFor(['status'])).toBe(false);
    expect(startsFor(['snapshot'], {}, {})).toBe(false);
    expect(startsFor(['snapshot'])).toBe(true);
    // A store whose set-up names another folder (the marker store-setup.ts writes last).
    const ready = path.join(gitDir, 'claude-checkpoint-ready');
    const marker = readFileSync(ready, 'utf8');
    writeFileSync(ready, '/somewhere/else\n');
    expect(startsFor(['snapshot'])).toBe(false);
    writeFileSync(ready, marker);
    // Another process holds the store's lock.
    writeFileSync(path.join(storeDir, 'lock'), '{}');
    expect(startsFor(['snapshot'])).toBe(false);
    rmSync(path.join(storeDir, 'lock'));
    expect(startsFor(['snapshot'])).toBe(true);
    // A link in place of a folder git reads in the store (the command refuses such a store).
    renameSync(path.join(gitDir, 'info'), path.join(gitDir, 'info-moved'));
    symlinkSync(path.join(gitDir, 'info-moved'), path.join(gitDir, 'info'));
    expect(startsFor(['snapshot'])).toBe(false);
    rmSync(path.join(gitDir, 'info'));
    renameSync(path.join(gitDir, 'info-moved'), path.join(gitDir, 'info'));
    // No second name for the index is left behind by any of these.
    expect(earlyCopies(gitDir)).toEqual([]);
    // A link where the store's folder was: never followed.
    const moved = `${storeDir}-moved`;
    renameSync(storeDir, moved);
    symlinkSync(moved, storeDir);
    expect(startsFor(['snapshot'])).toBe(false);
  });
});

describe('a capture with an early scan', () => {
  it.skipIf(!DIRECT_SPAWN_HERE)('takes it over when nothing wrote the store since', async () => {
    const { root, storeBase, gitDir, deps } = await projectWithSnapshot();
    writeFileSync(path.join(root, 'a.txt'), 'a2\n');
    const shim = gitLoggingShim(root);
    process.env.PATH = `${shim.dir}${path.delimiter}${savedPath}`;
    process.env.TRACE_GIT_LOG = shim.log;
    allowDirectSpawn();
    startSnapshotScanEarly(['snapshot'], {}, () => root, storeBase);
    const taken = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(taken.created).toBe(true);
    expect(taken.snapshot.changes).toEqual({ added: 0, modified: 1, deleted: 0 });
    expect(inSnapshot(gitDir, taken.snapshot.commit, 'a.txt')).toBe('a2\n');
    // One scan of the store in all: the early one, taken over.
    const scans = shim.commands().filter((line) => line.includes(gitDir) && / status /.test(line));
    expect(scans).toHaveLength(1);
    expect(takeEarlyStoreScan(gitDir, root)).toBeUndefined();
    expect(earlyCopies(gitDir)).toEqual([]);
  });

  it.skipIf(!DIRECT_SPAWN_HERE)(
    'scans again when another holder of the lock wrote only the working tree',
    async () => {
      const { root, storeBase, gitDir, deps } = await projectWithSnapshot();
      allowDirectSpawn();
      startSnapshotScanEarly(['snapshot'], {}, () => root, storeBase);
      // The early scan found nothing changed...
      await earlyScanEnded(gitDir, root);
      // ...then a restore-like holder of the lock writes a file, and none of the store's git files.
      const { store } = await openStore(deps, root, {});
      await store.withLock(async () => {
        writeFileSync(path.join(root, 'a.txt'), 'restored\n');
      });
      const taken = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      expect(taken.created).toBe(true);
      expect(inSnapshot(gitDir, taken.snapshot.commit, 'a.txt')).toBe('restored\n');
      expect(earlyCopies(gitDir)).toEqual([]);
    },
  );

  it.skipIf(!DIRECT_SPAWN_HERE)(
    'keeps what the early scan refreshed, as a scan holding the lock does',
    async () => {
      const { root, storeBase, gitDir, deps } = await projectWithSnapshot();
      // b.txt touched, its content the same: the store's index holds stale stat data for it.
      const past = new Date('2020-01-02T03:04:05Z');
      utimesSync(path.join(root, 'b.txt'), past, past);
      writeFileSync(path.join(root, 'a.txt'), 'a2\n');
      allowDirectSpawn();
      startSnapshotScanEarly(['snapshot'], {}, () => root, storeBase);
      const taken = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      expect(taken.snapshot.changes).toEqual({ added: 0, modified: 1, deleted: 0 });
      // The index's entry for b.txt now has the file's time: the next scan need not read b.txt again.
      const debug = spawnSync('git', ['--git-dir', gitDir, 'ls-files', '--debug', '--', 'b.txt'], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(debug.stdout).toContain(`mtime: ${past.getTime() / 1000}:0`);
      expect(earlyCopies(gitDir)).toEqual([]);
    },
  );

  it('removes the index copies that early scans of ended processes left', async () => {
    const { root, gitDir, deps } = await projectWithSnapshot();
    // A pid no process has (Linux's pid_max is at most 2^22).
    const left = path.join(gitDir, 'index.early-99999999');
    writeFileSync(left, 'x');
    writeFileSync(`${left}.lock`, 'x');
    writeFileSync(path.join(root, 'a.txt'), 'a2\n');
    await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(existsSync(left)).toBe(false);
    expect(existsSync(`${left}.lock`)).toBe(false);
  });

  it('removes the temp files of shared indexes that killed gits left, once older than any git may run (review)', async () => {
    const { root, gitDir, deps } = await projectWithSnapshot();
    // git writes a new shared index as sharedindex_XXXXXX and renames it once whole: a git killed
    // meanwhile leaves the temp file, which git's own clean-up (sharedindex.*) never removes.
    const old = path.join(gitDir, 'sharedindex_a1B2c3');
    const fresh = path.join(gitDir, 'sharedindex_d4E5f6');
    writeFileSync(old, 'x');
    writeFileSync(fresh, 'x');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(old, hourAgo, hourAgo);
    writeFileSync(path.join(root, 'a.txt'), 'a2\n');
    await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(existsSync(old)).toBe(false);
    // A fresh one may be a running git's (a scan beside the capture): it stays.
    expect(existsSync(fresh)).toBe(true);
  });

  it.skipIf(!DIRECT_SPAWN_HERE)(
    'scans again when another process wrote the store after it started',
    async () => {
      const { root, storeBase, gitDir, deps, env } = await projectWithSnapshot();
      writeFileSync(path.join(root, 'a.txt'), 'a2\n');
      allowDirectSpawn();
      startSnapshotScanEarly(['snapshot'], {}, () => root, storeBase);
      // The early scan has read the store and ended: its outcome is a.txt changed, b.txt not.
      await earlyScanEnded(gitDir, root);
      // Another process snapshots meanwhile (a hook's), writing the store's index and HEAD...
      snapshotInAnotherProcess(root, env);
      // ...and then b.txt changes, which the early scan cannot know of.
      writeFileSync(path.join(root, 'b.txt'), 'b2\n');
      const taken = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      expect(taken.created).toBe(true);
      expect(taken.snapshot.changes).toEqual({ added: 0, modified: 1, deleted: 0 });
      expect(inSnapshot(gitDir, taken.snapshot.commit, 'b.txt')).toBe('b2\n');
      expect(inSnapshot(gitDir, taken.snapshot.commit, 'a.txt')).toBe('a2\n');
    },
  );

  it.skipIf(!DIRECT_SPAWN_HERE)(
    'scans again when another process brought the rules up to date after it started',
    async () => {
      const { root, storeBase, gitDir, deps, env } = await projectWithSnapshot();
      writeFileSync(path.join(root, 'scratch.txt'), 'notes\n');
      allowDirectSpawn();
      startSnapshotScanEarly(['snapshot'], {}, () => root, storeBase);
      await earlyScanEnded(gitDir, root);
      // The early scan saw scratch.txt as a new file. Then the user's own exclude file ignores it, and
      // another process's snapshot copies that rule into the store (its tree unchanged, nothing to add).
      writeFileSync(path.join(root, '.git', 'info', 'exclude'), 'scratch.txt\n');
      snapshotInAnotherProcess(root, env);
      expect(readFileSync(path.join(gitDir, 'info', 'exclude'), 'utf8')).toContain('scratch.txt');
      const taken = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      // An ignored file is never in a snapshot.
      const listing = spawnSync(
        'git',
        ['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', taken.snapshot.commit],
        {
          encoding: 'utf8',
        },
      );
      expect(listing.stdout.split('\n')).not.toContain('scratch.txt');
    },
  );

  it.skipIf(!DIRECT_SPAWN_HERE)(
    'leaves it for a first snapshot, which waits for the store rules',
    async () => {
      const root = createRepo({ committed: { 'a.txt': 'a1\n' }, dirty: { 'new.txt': 'new\n' } });
      const storeBase = tempDir('early-scan-store-');
      const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: storeBase } });
      // Set up, with no snapshot yet.
      const { store } = await openStore(deps, root, {});
      await store.withLock(() => store.init());
      const gitDir = path.join(projectStoreDir(storeBase, root), 'git');
      allowDirectSpawn();
      startSnapshotScanEarly(['snapshot'], {}, () => root, storeBase);
      const taken = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      expect(taken.created).toBe(true);
      expect(inSnapshot(gitDir, taken.snapshot.commit, 'new.txt')).toBe('new\n');
      expect(takeEarlyStoreScan(gitDir, root)).toBeUndefined();
      expect(earlyCopies(gitDir)).toEqual([]);
    },
  );
});
