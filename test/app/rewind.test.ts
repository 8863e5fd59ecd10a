import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { type AppDeps, defaultDeps } from '../../src/app/deps.js';
import {
  diffSnapshot,
  gcSnapshots,
  listSnapshots,
  markTurnEnd,
  restoreSnapshot,
  takeSnapshot,
} from '../../src/app/rewind.js';
import { projectStoreDir } from '../../src/store/store-location.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';
import { filesIn } from '../helpers/store.js';
import { readTree, repoState } from '../helpers/tree.js';

function depsFor(extraEnv: Record<string, string> = {}, now?: () => Date): AppDeps {
  return defaultDeps({
    env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), ...extraEnv },
    ...(now ? { now } : {}),
  });
}

describe('snapshots', () => {
  // A property run (CI, 2026-12-07) met it: git's scan cannot see a file under a link that points to
  // itself ("Too many levels of symbolic links"), so the file is not listed as deleted, and adding the
  // link failed ("appears as both a file and as a directory"). The store's index gives way instead.
  it('takes a folder that became a link to itself, and back again, with the undo of a restore', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, dirty: { 'x.txt/a/child.txt': 'inside\n' } });
    const store = tempDir('checkpoint-store-');
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: store } });
    const folder = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    rmSync(path.join(root, 'x.txt/a'), { recursive: true });
    symlinkSync('a', path.join(root, 'x.txt/a'));
    const link = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(link.created).toBe(true);
    expect(filesIn(store, link.snapshot.id)).toEqual(['.gitignore', 'a.ts', 'x.txt/a']);
    const restored = await restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: folder.snapshot.id,
      dryRun: false,
    });
    expect(readFileSync(path.join(root, 'x.txt/a/child.txt'), 'utf8')).toBe('inside\n');
    await restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: restored.undoSnapshotId as string,
      dryRun: false,
    });
    expect(readlinkSync(path.join(root, 'x.txt/a'))).toBe('a');
  });

  it('captures tracked and untracked files, honours .gitignore, and skips an unchanged tree', async () => {
    const root = createRepo({
      committed: { 'a.ts': 'a' },
      ignore: 'build/\n.claude-checkpoint*\n',
      dirty: { 'new.ts': 'n', 'build/out.js': 'o' },
    });
    const deps = depsFor();
    const first = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual', label: 'start' });
    expect(first.created).toBe(true);
    expect(first.snapshot).toMatchObject({
      trigger: 'manual',
      label: 'start',
      changes: { added: 3, modified: 0, deleted: 0 },
    });
    expect(first.snapshot.git?.branch).toBe('main');

    const again = await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
    expect(again).toMatchObject({ created: false, snapshot: { id: first.snapshot.id } });

    writeTree(root, { 'a.ts': 'changed', 'other.ts': 'o' });
    rmSync(path.join(root, 'new.ts'));
    const third = await takeSnapshot(deps, {
      projectRoot: root,
      trigger: 'prompt',
      label: 'export API_TOKEN=abc123secret',
    });
    expect(third.snapshot.changes).toEqual({ added: 1, modified: 1, deleted: 1 });
    expect(third.snapshot.label).toBe('export API_TOKEN=«redacted»');
    const { snapshots, storeDir } = await listSnapshots(deps, { projectRoot: root });
    expect(snapshots.map((s) => s.id)).toEqual([third.snapshot.id, first.snapshot.id]);
    // The snapshot commits (written without git) are sound to git, and HEAD is the latest.
    const gitDir = path.join(storeDir, 'git');
    execFileSync('git', ['--git-dir', gitDir, 'fsck', '--strict', '--no-dangling'], { stdio: 'pipe' });
    const head = execFileSync('git', ['--git-dir', gitDir, 'log', '-1', '--format=%H %T %an %ct'], {
      encoding: 'utf8',
    }).trim();
    expect(head).toBe(
      `${third.snapshot.commit} ${third.snapshot.tree} claude-checkpoint ${Math.floor(Date.parse(third.snapshot.createdAt) / 1000)}`,
    );
  });

  it('draws a snapshot id again while it names a snapshot of the same second (its ref would be overwritten)', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const second = new Date('2026-12-06T10:00:00.000Z');
    const deps = depsFor({}, () => second);
    // The id's draws only: the first snapshot's and the second's first two land on the same suffix.
    const draws = [0.25, 0.25, 0.25];
    const real = Math.random;
    const random = vi
      .spyOn(Math, 'random')
      .mockImplementation(() =>
        new Error().stack?.includes('newSnapshotId') ? (draws.shift() ?? 0.5) : real(),
      );
    try {
      const first = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      writeTree(root, { 'a.ts': 'changed' });
      const next = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      expect([first.snapshot.id, next.snapshot.id]).toEqual([
        '20261206-100000-400000',
        '20261206-100000-800000',
      ]);
      const { snapshots } = await listSnapshots(deps, { projectRoot: root });
      expect(snapshots.map((s) => s.commit).sort()).toEqual(
        [first.snapshot.commit, next.snapshot.commit].sort(),
      );
    } finally {
      random.mockRestore();
    }
  });

  it('refuses to snapshot the home folder or the file-system root (where Claude Desktop starts servers)', async () => {
    const home = tempDir('checkpoint-home-');
    const deps = defaultDeps({
      env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: home },
      cwd: () => '/',
    });
    await expect(takeSnapshot(deps, { trigger: 'manual' })).rejects.toThrow(
      /refusing to snapshot \/: it is the file-system root, not a project\. Pass projectRoot/,
    );
    await expect(takeSnapshot(deps, { projectRoot: home, trigger: 'manual' })).rejects.toThrow(
      /it is the home folder, not a project\. Give projectRoot a project's folder instead\.$/,
    );
    await expect(listSnapshots(deps, { projectRoot: home })).rejects.toThrow(/it is the home folder/);
  });

  it('works in a project that is not a git repository', async () => {
    const root = tempDir();
    writeTree(root, { 'notes.md': 'one', 'sub/x.txt': 'x' });
    const deps = depsFor();
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(snap.snapshot.git).toBeNull();
    writeTree(root, { 'notes.md': 'two' });
    rmSync(path.join(root, 'sub'), { recursive: true });
    await restoreSnapshot(deps, { projectRoot: root, snapshotId: snap.snapshot.id, dryRun: false });
    expect(readTree(root)).toEqual(readTree(root, () => false));
    expect(readTree(root)['notes.md']).toMatchObject({ content: Buffer.from('one').toString('base64') });
    expect(existsSync(path.join(root, 'sub/x.txt'))).toBe(true);
  });

  it('skips files over the size cap and lists them', async () => {
    const root = createRepo({
      committed: { 'a.ts': 'a' },
      dirty: { 'big.bin': Buffer.alloc(2 * 1024 * 1024, 1) },
    });
    const deps = depsFor({ CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '1' });
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    // With its stamp, which tells a rewind whether a held copy is this same file (see heldByTheTurn).
    expect(snap.snapshot.skipped.large).toEqual([
      {
        path: 'big.bin',
        bytes: 2 * 1024 * 1024,
        mtimeNs: expect.stringMatching(/^\d+$/),
        ino: expect.stringMatching(/^\d+$/),
      },
    ]);
    rmSync(path.join(root, 'a.ts'));
    const restored = await restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: snap.snapshot.id,
      dryRun: false,
    });
    expect(restored.plan).toEqual({
      overwrite: [],
      create: ['a.ts'],
      delete: [],
      keptAside: [],
      refused: [],
    });
    expect(statSync(path.join(root, 'big.bin')).size).toBe(2 * 1024 * 1024);
  });

  it('drops a file from snapshots when it grows past the cap, and takes it back when it shrinks', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, dirty: { 'grows.bin': 'small' } });
    const deps = depsFor({ CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '1' });
    await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    writeTree(root, { 'grows.bin': Buffer.alloc(1024 * 1024 + 1, 2) });
    const big = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(big.snapshot.skipped.large).toEqual([
      expect.objectContaining({ path: 'grows.bin', bytes: 1024 * 1024 + 1 }),
    ]);
    // Listed as skipped, not counted as deleted: it is still there (issue 26).
    expect(big.snapshot.changes).toEqual({ added: 0, modified: 0, deleted: 0 });
    writeTree(root, { 'grows.bin': 'small again' });
    const small = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(small.snapshot.skipped.large).toEqual([]);
    expect(small.snapshot.changes).toEqual({ added: 1, modified: 0, deleted: 0 });
  });

  it('skips nested repositories visibly and never renames their .git', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const nested = path.join(root, 'vendor/lib');
    mkdirSync(nested, { recursive: true });
    git(nested, 'init', '-q');
    writeTree(nested, { 'lib.c': 'int x;' });
    const withCommit = path.join(root, 'vendor/other');
    mkdirSync(withCommit, { recursive: true });
    git(withCommit, 'init', '-q');
    writeTree(withCommit, { 'x.c': 'int y;' });
    git(withCommit, 'add', '-A');
    git(withCommit, 'commit', '-q', '-m', 'nested');
    const deps = depsFor();
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect([...snap.snapshot.skipped.nested].sort()).toEqual(['vendor/lib', 'vendor/other']);
    expect(existsSync(path.join(nested, '.git/HEAD'))).toBe(true);
    expect(existsSync(path.join(withCommit, '.git/HEAD'))).toBe(true);
    // Still reported by later snapshots, and restores leave them alone.
    writeTree(root, { 'a.ts': 'changed' });
    const later = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect([...later.snapshot.skipped.nested].sort()).toEqual(['vendor/lib', 'vendor/other']);
    await restoreSnapshot(deps, { projectRoot: root, snapshotId: snap.snapshot.id, dryRun: false });
    expect(readTree(root)['vendor/other/x.c']).toBeDefined();
    expect(readTree(root)['vendor/lib/lib.c']).toBeDefined();
  });

  it('keeps the most recent snapshots and garbage-collects what none references', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    let clock = Date.parse('2026-11-01T00:00:00Z');
    const deps = depsFor({ CHECKPOINT_SNAPSHOT_MAX_COUNT: '3' }, () => new Date(clock));
    for (let i = 0; i < 6; i++) {
      clock += 1000;
      writeTree(root, { 'a.ts': randomBytes(50_000) });
      await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
    }
    const listed = await listSnapshots(deps, { projectRoot: root });
    expect(listed.snapshots).toHaveLength(3);
    const gc = await gcSnapshots(deps, { projectRoot: root });
    expect(gc).toMatchObject({ removed: 0, kept: 3 });
    expect(gc.afterBytes).toBeLessThan(gc.beforeBytes);
    expect((await listSnapshots(deps, { projectRoot: root })).storeBytes).toBe(gc.afterBytes);
  });

  it('keeps exactly the most recent snapshots when several are taken within one second', async () => {
    // Ids carry the second: within one, their random part orders them. The one just taken must still count
    // as the newest, or retention skips it and removes nothing (one more kept each time, found by the
    // settings test). Twelve snapshots: without that, all keep 2 by chance about once in sixty runs.
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const deps = depsFor({ CHECKPOINT_SNAPSHOT_MAX_COUNT: '2' }, () => new Date('2026-11-01T00:00:00Z'));
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      writeTree(root, { 'a.ts': `version ${i}` });
      ids.push((await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' })).snapshot.id);
      const kept = (await listSnapshots(deps, { projectRoot: root })).snapshots.map(
        (snapshot) => snapshot.id,
      );
      expect(kept).toHaveLength(Math.min(i + 1, 2));
      expect(kept).toContain(ids[i]);
    }
  });

  it('counts prompts, not the turn ends between them: each end goes with its turn, in a hook and in gc', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    let clock = Date.parse('2026-11-01T00:00:00Z');
    const deps = depsFor({ CHECKPOINT_SNAPSHOT_MAX_COUNT: '3' }, () => new Date(clock));
    const turn = async (i: number) => {
      clock += 1000;
      await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', label: `p${i}`, sessionId: 's' });
      writeTree(root, { 'a.ts': `version ${i}` });
      clock += 1000;
      await markTurnEnd(deps, { projectRoot: root, sessionId: 's' });
    };
    for (let i = 1; i <= 5; i++) await turn(i);
    const listed = async () =>
      (await listSnapshots(deps, { projectRoot: root })).snapshots.map((snapshot) =>
        `${snapshot.trigger} ${snapshot.label ?? ''}`.trim(),
      );
    const kept = ['turn-end', 'prompt p5', 'turn-end', 'prompt p4', 'turn-end', 'prompt p3'];
    expect(await listed()).toEqual(kept);
    expect(await gcSnapshots(deps, { projectRoot: root })).toMatchObject({ removed: 0, kept: 6 });
    // The store's memory of each snapshot's kind is a cache: lost, or a line cut short, they are read again.
    const { storeDir } = await listSnapshots(deps, { projectRoot: root });
    const kinds = path.join(storeDir, 'kinds.jsonl');
    writeFileSync(kinds, readFileSync(kinds, 'utf8').split('\n').slice(-4).join('\n').slice(0, -20));
    await turn(6);
    expect(await listed()).toEqual(['turn-end', 'prompt p6', ...kept.slice(0, 4)]);
  });

  it('keeps the newest prompts of a session taken within one second, by their exact times (issue 26)', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    let clock = Date.parse('2026-11-01T00:00:00Z');
    const deps = depsFor({ CHECKPOINT_SNAPSHOT_MAX_COUNT: '5' }, () => new Date(clock));
    // Ten prompts in one second: their ids alone would order them at random.
    for (let i = 1; i <= 10; i++) {
      clock += 10;
      await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', label: `p${i}`, sessionId: 's' });
    }
    const labels = async () =>
      (await listSnapshots(deps, { projectRoot: root })).snapshots.map((snapshot) => snapshot.label);
    expect(await labels()).toEqual(['p10', 'p9', 'p8', 'p7', 'p6']);
    expect(await gcSnapshots(deps, { projectRoot: root })).toMatchObject({ removed: 0, kept: 5 });
  });

  it('keeps to the count after gc has packed the refs retention removes', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    let clock = Date.parse('2026-11-01T00:00:00Z');
    const deps = depsFor({ CHECKPOINT_SNAPSHOT_MAX_COUNT: '3' }, () => new Date(clock));
    const snap = async (i: number) => {
      clock += 1000;
      writeTree(root, { 'a.ts': `version ${i}` });
      return (await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' })).snapshot.id;
    };
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await snap(i));
    await gcSnapshots(deps, { projectRoot: root });
    for (let i = 3; i < 7; i++) ids.push(await snap(i));
    const listed = (await listSnapshots(deps, { projectRoot: root })).snapshots.map((s) => s.id);
    expect(listed).toEqual(ids.slice(-3).reverse());
  });

  it('lists from the store’s files exactly what git lists, before and after gc packed them (issue 26)', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    let clock = Date.parse('2026-11-01T00:00:00Z');
    const deps = depsFor({}, () => new Date(clock));
    const snap = async (i: number) => {
      // Two snapshots in each second (their ids name the second alone).
      clock += i % 2 === 0 ? 1000 : 1;
      writeTree(root, { 'a.ts': `version ${i}`, [`f${i}.ts`]: 'é\n' });
      await takeSnapshot(deps, { projectRoot: root, trigger: 'manual', label: `step ${i} é` });
    };
    // Without a limit the listing is git's (for-each-ref); with one, a few are read from the files.
    const bothWays = async () => {
      const byGit = await listSnapshots(deps, { projectRoot: root });
      const fromFiles = await listSnapshots(deps, { projectRoot: root, limit: 20 });
      expect(fromFiles.snapshots).toEqual(byGit.snapshots);
      expect(fromFiles.total).toBe(byGit.total);
      return byGit.snapshots.map((snapshot) => snapshot.label);
    };
    for (let i = 0; i < 4; i++) await snap(i);
    expect(await bothWays()).toEqual(['step 3 é', 'step 2 é', 'step 1 é', 'step 0 é']);
    await gcSnapshots(deps, { projectRoot: root });
    for (let i = 4; i < 6; i++) await snap(i);
    expect(await bothWays()).toEqual([
      'step 5 é',
      'step 4 é',
      'step 3 é',
      'step 2 é',
      'step 1 é',
      'step 0 é',
    ]);
  });

  it('says when the content is taken; an edit after that is not in the snapshot', async () => {
    const root = createRepo({ committed: { 'a.txt': 'before' } });
    const deps = depsFor();
    await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
    writeTree(root, { 'a.txt': 'at the prompt', 'b.txt': 'new at the prompt' });
    let calls = 0;
    let listing: ReturnType<typeof listSnapshots> | undefined;
    const outcome = await takeSnapshot(deps, {
      projectRoot: root,
      trigger: 'prompt',
      onContentTaken: () => {
        calls++;
        writeTree(root, { 'a.txt': 'edited after', 'b.txt': 'edited after' });
        // Listed while the snapshot is still being written: the listing waits for it.
        listing = listSnapshots(deps, { projectRoot: root });
      },
    });
    expect(calls).toBe(1);
    expect((await listing)?.snapshots[0]?.id).toBe(outcome.snapshot.id);
    const restore = await restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: outcome.snapshot.id,
      dryRun: false,
    });
    expect(restore).toBeDefined();
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('at the prompt');
    expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('new at the prompt');
  });

  it.each([
    ['a few read in process', 1],
    ['many, read by git', 150],
  ])(
    'a store repaired after its content was taken (%s): an edit after that is still not in the snapshot',
    async (_name, count) => {
      // An untracked file: the snapshot's tree is the store's own, its committed files' blobs borrowed.
      const root = createRepo({
        committed: { 'base.txt': 'base\n', 'c.txt': 'c\n', 'd.txt': 'd\n' },
        dirty: { 'u.txt': 'u\n' },
      });
      const deps = depsFor();
      await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
      // c.txt stays on disk, unchanged, but the blob the store's index borrowed from the project is gone:
      // writing the tree fails once the content is taken, and the store is repaired.
      git(root, 'rm', '-q', '--cached', 'c.txt');
      git(root, 'commit', '-q', '--amend', '-m', 'c untracked');
      git(root, 'reflog', 'expire', '--expire=now', '--all');
      git(root, 'gc', '-q', '--prune=now');
      const changed = Object.fromEntries(
        Array.from({ length: count }, (_, i) => [`new/f${i}.txt`, `${i}\n`]),
      );
      writeTree(root, { 'base.txt': 'at the prompt\n', ...changed });
      let calls = 0;
      const outcome = await takeSnapshot(deps, {
        projectRoot: root,
        trigger: 'pre-command',
        onContentTaken: () => {
          calls++;
          // The destructive command the hook let run once the content was taken.
          rmSync(path.join(root, 'd.txt'));
          rmSync(path.join(root, 'new'), { recursive: true });
          writeTree(root, { 'base.txt': 'edited after\n' });
        },
      });
      expect(calls).toBe(1);
      expect(outcome.snapshot.changes).toEqual({ added: count, modified: 1, deleted: 0 });
      await restoreSnapshot(deps, { projectRoot: root, snapshotId: outcome.snapshot.id, dryRun: false });
      expect(readFileSync(path.join(root, 'base.txt'), 'utf8')).toBe('at the prompt\n');
      expect(readFileSync(path.join(root, 'c.txt'), 'utf8')).toBe('c\n');
      expect(readFileSync(path.join(root, 'd.txt'), 'utf8')).toBe('d\n');
      expect(readFileSync(path.join(root, `new/f${count - 1}.txt`), 'utf8')).toBe(`${count - 1}\n`);
    },
  );

  it('drops snapshots older than the age limit, but always keeps the newest', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const deps = depsFor({ CHECKPOINT_SNAPSHOT_MAX_AGE_DAYS: '30' }, () => new Date(clock));
    await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
    clock += 40 * 86_400_000;
    writeTree(root, { 'a.ts': 'b' });
    const later = await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
    expect(later.expired).toBe(1);
    expect((await listSnapshots(deps, { projectRoot: root })).snapshots.map((s) => s.id)).toEqual([
      later.snapshot.id,
    ]);
  });
});

describe("the store's scan", () => {
  // git's trace reports the untracked cache's counters (node-creation, opendir, ...) only when a scan uses it.
  const cacheCounters = (gitDir: string, root: string) => {
    const trace = path.join(tempDir('trace-'), 'perf.txt');
    execFileSync(
      'git',
      ['--git-dir', gitDir, '--work-tree', root, 'status', '--porcelain=v2', '-z', '--untracked-files=all'],
      { env: { ...process.env, GIT_TRACE2_PERF: trace }, stdio: 'pipe' },
    );
    const text = readFileSync(trace, 'utf8');
    return { used: /\bnode-creation:\d+/.test(text), opened: /\bopendir:(\d+)/.exec(text)?.[1] };
  };
  // Folders changed in the same second as the index are "racy" to git, which reads them again: age them.
  const folders = Array.from({ length: 10 }, (_, i) => `pkg${i}`);
  const age = (root: string) => {
    const past = new Date(Date.now() - 60_000);
    for (const dir of ['', 'new', ...folders]) utimesSync(path.join(root, dir), past, past);
  };

  it("goes through git's untracked cache, also in a store set up before that setting existed", async () => {
    const root = createRepo({
      committed: Object.fromEntries(folders.map((dir) => [`${dir}/a.ts`, dir])),
      dirty: { 'new/b.ts': 'b' },
    });
    const deps = depsFor();
    await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    const { storeDir } = await listSnapshots(deps, { projectRoot: root });
    const gitDir = path.join(storeDir, 'git');
    writeTree(root, { 'new/c.ts': 'c' });
    age(root);
    await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
    // Nothing changed since the store's last scan: the cache answers for the folders (at most the top one
    // is read again; without the cache all 12 are).
    expect(cacheCounters(gitDir, root)).toMatchObject({
      used: true,
      opened: expect.stringMatching(/^[01]$/),
    });

    // A store whose config predates the setting gets it at the next snapshot, and its cache with it.
    const configFile = path.join(gitDir, 'config');
    writeFileSync(
      configFile,
      readFileSync(configFile, 'utf8').replace(/\[status\]\n\tshowUntrackedFiles = all\n/, ''),
    );
    execFileSync('git', ['--git-dir', gitDir, '--work-tree', root, 'update-index', '--no-untracked-cache']);
    expect(cacheCounters(gitDir, root).used).toBe(false);
    writeTree(root, { 'new/d.ts': 'd' });
    age(root);
    await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
    expect(readFileSync(configFile, 'utf8')).toMatch(/showUntrackedFiles = all/);
    expect(cacheCounters(gitDir, root)).toMatchObject({
      used: true,
      opened: expect.stringMatching(/^[01]$/),
    });
  });
});

describe('borrowing from the project repository', () => {
  it('starts from the repository index and objects, and gc makes the store self-contained', async () => {
    const root = createRepo({
      committed: { 'a.ts': 'committed a', 'b.ts': 'committed b' },
      dirty: { 'c.ts': 'untracked c' },
    });
    const deps = depsFor();
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(snap.snapshot.changes).toEqual({ added: 4, modified: 0, deleted: 0 });
    const { storeDir } = await listSnapshots(deps, { projectRoot: root });
    expect(existsSync(path.join(storeDir, 'git/objects/info/alternates'))).toBe(true);

    // Without the repository's objects, a restore fails before touching anything (whether git notices the
    // missing objects while capturing the current state, or we do while reading the snapshot's blobs).
    const objects = path.join(root, '.git/objects');
    const hidden = path.join(root, '.git/objects-hidden');
    renameSync(objects, hidden);
    writeTree(root, { 'a.ts': 'edited' });
    await expect(
      restoreSnapshot(deps, { projectRoot: root, snapshotId: snap.snapshot.id, dryRun: false }),
    ).rejects.toThrow(/can no longer be restored/);
    expect(readTree(root)['a.ts']).toMatchObject({ content: Buffer.from('edited').toString('base64') });
    renameSync(hidden, objects);

    await gcSnapshots(deps, { projectRoot: root });
    expect(existsSync(path.join(storeDir, 'git/objects/info/alternates'))).toBe(false);
    rmSync(path.join(root, '.git'), { recursive: true, force: true });
    await restoreSnapshot(deps, { projectRoot: root, snapshotId: snap.snapshot.id, dryRun: false });
    expect(readTree(root)['a.ts']).toMatchObject({ content: Buffer.from('committed a').toString('base64') });
  });
});

describe('restore', () => {
  it('a store that lost a loose object fails the restore before any file changes, large or small', async () => {
    const root = createRepo({ committed: { 'a.ts': 'committed a' } });
    const deps = depsFor();
    // Content of the store's own (not borrowed from the project): one small file, one streamed by git.
    const large = randomBytes(5 * 1024 * 1024);
    writeTree(root, { 'a.ts': 'snapshot a', 'large.bin': large });
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    const { storeDir } = await listSnapshots(deps, { projectRoot: root });
    writeTree(root, { 'a.ts': 'edited', 'large.bin': 'edited' });
    const before = readTree(root);
    for (const lost of [large, Buffer.from('snapshot a')]) {
      const oid = execFileSync('git', ['hash-object', '--stdin'], { input: lost }).toString().trim();
      const object = path.join(storeDir, 'git', 'objects', oid.slice(0, 2), oid.slice(2));
      const kept = `${object}.kept`;
      renameSync(object, kept);
      await expect(
        restoreSnapshot(deps, { projectRoot: root, snapshotId: snap.snapshot.id, dryRun: false }),
      ).rejects.toThrow(/missing .*object.*nothing was changed/);
      expect(readTree(root)).toEqual(before);
      renameSync(kept, object);
    }
  });

  it('plans first (dry run), then restores, and the pre-restore snapshot undoes it', async () => {
    const root = createRepo({ committed: { 'keep.ts': 'k', 'edit.ts': 'v1', 'gone.ts': 'g' } });
    const deps = depsFor();
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    writeTree(root, { 'edit.ts': 'v2', 'added.ts': 'new' });
    rmSync(path.join(root, 'gone.ts'));
    const mutated = readTree(root);

    const plan = await restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: snap.snapshot.id,
      dryRun: true,
    });
    expect(plan.plan).toEqual({
      overwrite: ['edit.ts'],
      create: ['gone.ts'],
      delete: ['added.ts'],
      keptAside: [],
      refused: [],
    });
    expect(readTree(root)).toEqual(mutated);

    const done = await restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: snap.snapshot.id,
      dryRun: false,
    });
    expect(done.undoSnapshotId).not.toBeNull();
    expect(readTree(root, (p) => p === '.gitignore')).toEqual({
      'keep.ts': { kind: 'file', content: Buffer.from('k').toString('base64'), executable: false },
      'edit.ts': { kind: 'file', content: Buffer.from('v1').toString('base64'), executable: false },
      'gone.ts': { kind: 'file', content: Buffer.from('g').toString('base64'), executable: false },
    });
    await restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: done.undoSnapshotId as string,
      dryRun: false,
    });
    expect(readTree(root)).toEqual(mutated);
  });

  it('restores only the selected paths', async () => {
    const root = createRepo({ committed: { 'src/a.ts': 'a1', 'src/b.ts': 'b1', 'docs/x.md': 'x1' } });
    const deps = depsFor();
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    writeTree(root, { 'src/a.ts': 'a2', 'src/b.ts': 'b2', 'docs/x.md': 'x2' });
    const done = await restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: snap.snapshot.id,
      paths: ['src/a.ts', 'docs'],
      dryRun: false,
    });
    expect(done.plan.overwrite.sort()).toEqual(['docs/x.md', 'src/a.ts']);
    expect(readTree(root)['src/b.ts']).toMatchObject({ content: Buffer.from('b2').toString('base64') });
    expect(readTree(root)['src/a.ts']).toMatchObject({ content: Buffer.from('a1').toString('base64') });
  });

  it('a path-limited restore that fails midway puts back the link in its way, and leaves no folder it made (brief h-left)', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const deps = depsFor();
    writeTree(root, { 'lib/a.txt': 'a1', 'lib/b.txt': 'b1', 'shared/k.txt': 'k' });
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    rmSync(path.join(root, 'lib'), { recursive: true });
    symlinkSync('shared', path.join(root, 'lib'));
    // A failure after the first file is written (a full disk): the link went, a folder stands in its place.
    const failed = restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: snap.snapshot.id,
      paths: ['lib/a.txt', 'lib/b.txt'],
      dryRun: false,
      onProgress: (done) => {
        if (done === 2) throw new Error('no space left on device');
      },
    });
    await expect(failed).rejects.toThrow(/no space left on device.*nothing else was changed/);
    expect(readlinkSync(path.join(root, 'lib'))).toBe('shared');
    expect(readdirSync(root).sort()).toEqual(['.git', '.gitignore', 'a.ts', 'lib', 'shared']);
    expect(readdirSync(path.join(root, 'shared'))).toEqual(['k.txt']);
  });

  it('a restore that fails midway keeps an empty folder it wrote into, never removed and made again (brief h-left)', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const deps = depsFor();
    writeTree(root, { 'keep/new.txt': 'n', 'made/deep/x.txt': 'x', 'z.txt': 'z' });
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    for (const dir of ['made', 'z.txt']) rmSync(path.join(root, dir), { recursive: true });
    rmSync(path.join(root, 'keep/new.txt'));
    // An empty folder of the user's own, with a mode of its own: a folder made again would lose it.
    chmodSync(path.join(root, 'keep'), 0o700);
    const { ino } = statSync(path.join(root, 'keep'));
    const failed = restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: snap.snapshot.id,
      dryRun: false,
      onProgress: (done) => {
        if (done === 3) throw new Error('no space left on device');
      },
    });
    await expect(failed).rejects.toThrow(/no space left on device/);
    expect(readdirSync(root).sort()).toEqual(['.git', '.gitignore', 'a.ts', 'keep']);
    expect(readdirSync(path.join(root, 'keep'))).toEqual([]);
    expect(statSync(path.join(root, 'keep')).ino).toBe(ino);
    expect(statSync(path.join(root, 'keep')).mode & 0o777).toBe(0o700);
  });

  it('after an interrupted path-limited restore, the undo covers its paths and this one’s; an older journal, the whole tree (issue 26)', async () => {
    const root = createRepo({ committed: { 'src/a.ts': 'a1', 'docs/x.md': 'x1', 'NOTES.md': 'n1' } });
    const base = tempDir('checkpoint-store-');
    const deps = depsFor({ CHECKPOINT_STORE_DIR: base });
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    writeTree(root, { 'src/a.ts': 'a2', 'docs/x.md': 'x2', 'NOTES.md': 'n2' });
    const undoOf = async (journal: Record<string, unknown>) => {
      // What a restore killed midway leaves: its journal, naming the state before it and its paths.
      const before = await takeSnapshot(deps, { projectRoot: root, trigger: 'pre-restore' });
      const file = path.join(projectStoreDir(base, root), 'restore-journal.json');
      writeFileSync(
        file,
        JSON.stringify({ target: snap.snapshot.id, undo: before.snapshot.id, dirs: ['.'], ...journal }),
      );
      const done = await restoreSnapshot(deps, {
        projectRoot: root,
        snapshotId: snap.snapshot.id,
        paths: ['src'],
        dryRun: false,
      });
      return { done, before: before.snapshot.id };
    };
    const { done, before } = await undoOf({ paths: ['docs'] });
    expect(done.undo).toEqual({ snapshotId: before, paths: ['src', 'docs'] });
    expect(done.paths).toEqual(['src']);
    writeTree(root, { 'src/a.ts': 'a3' });
    const older = await undoOf({});
    expect(older.done.undo).toEqual({ snapshotId: older.before, paths: [] });
    const whole = await undoOf({ paths: [] });
    expect(whole.done.undo?.paths).toEqual([]);
  });

  it('never touches ignored files, the .git folder, or the checkpoint files', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, ignore: '.env\n.claude-checkpoint*\n' });
    const deps = depsFor();
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    writeTree(root, { '.env': 'SECRET=1', '.claude-checkpoint': '{}', 'a.ts': 'changed' });
    const before = repoState(root);
    await restoreSnapshot(deps, { projectRoot: root, snapshotId: snap.snapshot.id, dryRun: false });
    expect(readTree(root)['.env']).toMatchObject({ content: Buffer.from('SECRET=1').toString('base64') });
    expect(readTree(root)['.claude-checkpoint']).toBeDefined();
    expect(repoState(root)).toEqual(before);
  });

  it('describes differences against the working tree and between snapshots', async () => {
    const root = createRepo({ committed: { 'a.ts': 'one\ntwo\n', 'bin.dat': Buffer.from([0, 1, 2]) } });
    const deps = depsFor();
    const first = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    writeTree(root, { 'a.ts': 'one\nthree\nfour\n', 'bin.dat': Buffer.from([0, 9, 9]), 'n.ts': 'n\n' });
    const current = await diffSnapshot(deps, { projectRoot: root, snapshotId: first.snapshot.id });
    expect(current.to).toBe('working tree');
    expect(current.files).toEqual([
      { path: 'a.ts', status: 'M', added: 2, deleted: 1 },
      { path: 'bin.dat', status: 'M', added: null, deleted: null },
      { path: 'n.ts', status: 'A', added: 1, deleted: 0 },
    ]);
    const second = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    const between = await diffSnapshot(deps, {
      projectRoot: root,
      snapshotId: first.snapshot.id,
      against: second.snapshot.id,
      path: 'a.ts',
    });
    expect(between.files).toEqual([{ path: 'a.ts', status: 'M', added: 2, deleted: 1 }]);
    expect(between.patch).toContain('-two\n+three\n+four\n');
  });

  // Rewind trial: a file that grew past the cap between two snapshots came out as `D data.bin` next to
  // "Not compared: … leaves out data.bin"; the file is still there, only not held by the later snapshot.
  it.each([
    ['grew past the cap (the later side left it out)', 300, 1500, 'later'],
    ['shrank under the cap (the earlier side left it out)', 1500, 300, 'earlier'],
  ])(
    'diff between snapshots does not count as deleted or added a file that %s',
    async (_title, before, after, side) => {
      const root = createRepo({ committed: { 'a.ts': 'a\n' } });
      const deps = depsFor({ CHECKPOINT_SNAPSHOT_MAX_FILE_MB: String(1000 / 1024 / 1024) });
      writeTree(root, { 'data.bin': randomBytes(before), 'big/x.bin': randomBytes(before) });
      const first = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      writeTree(root, { 'data.bin': randomBytes(after), 'big/x.bin': randomBytes(after), 'a.ts': 'b\n' });
      const second = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      const leftBy = side === 'later' ? second.snapshot.id : first.snapshot.id;
      const between = await diffSnapshot(deps, {
        projectRoot: root,
        snapshotId: first.snapshot.id,
        against: second.snapshot.id,
      });
      expect(between.files).toEqual([{ path: 'a.ts', status: 'M', added: 1, deleted: 1 }]);
      expect(between.notHeld).toEqual([
        {
          snapshot: leftBy,
          leftOut: [
            { path: 'big/x.bin', why: 'large', bytes: 1500 },
            { path: 'data.bin', why: 'large', bytes: 1500 },
          ],
        },
      ]);
      const current = await diffSnapshot(deps, { projectRoot: root, snapshotId: first.snapshot.id });
      expect(current.files).toEqual([{ path: 'a.ts', status: 'M', added: 1, deleted: 1 }]);
      const one = await diffSnapshot(deps, {
        projectRoot: root,
        snapshotId: first.snapshot.id,
        against: second.snapshot.id,
        path: 'data.bin',
      });
      expect(one).toMatchObject({ files: [], patch: '' });
    },
  );

  it('refuses an unknown or ambiguous snapshot id with advice', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const deps = depsFor();
    await expect(restoreSnapshot(deps, { projectRoot: root, snapshotId: 'x', dryRun: true })).rejects.toThrow(
      /no snapshots for this project yet/,
    );
    await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    await expect(
      restoreSnapshot(deps, { projectRoot: root, snapshotId: 'nope', dryRun: true }),
    ).rejects.toThrow(/no snapshot 'nope'/);
    // An empty reference names no snapshot, even when there is only one (as the MCP tools refuse it).
    await expect(restoreSnapshot(deps, { projectRoot: root, snapshotId: '', dryRun: true })).rejects.toThrow(
      /^the snapshot reference is empty: give an id, a unique id prefix, latest or latest~N$/,
    );
  });

  it('restores symlinks as links, exec bits, empty and binary files, and unicode names', async () => {
    const root = createRepo({ committed: {} });
    writeTree(root, {
      'empty.txt': '',
      'bin.dat': Buffer.from([0, 255, 1, 254]),
      'ünï/日本 name.txt': 'unicode',
      'run.sh': '#!/bin/sh\necho hi\n',
    });
    chmodSync(path.join(root, 'run.sh'), 0o755);
    symlinkSync('run.sh', path.join(root, 'link-to-run'));
    symlinkSync('../outside-target', path.join(root, 'dangling'));
    const deps = depsFor();
    const original = readTree(root);
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    for (const file of ['empty.txt', 'bin.dat', 'link-to-run', 'dangling']) unlinkSync(path.join(root, file));
    rmSync(path.join(root, 'ünï'), { recursive: true });
    chmodSync(path.join(root, 'run.sh'), 0o644);
    writeFileSync(path.join(root, 'link-to-run'), 'now a file');
    await restoreSnapshot(deps, { projectRoot: root, snapshotId: snap.snapshot.id, dryRun: false });
    expect(readTree(root)).toEqual(original);
  });

  it('picks up changes made by a child shell process, like a Bash tool call', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a', 'b.txt': 'b' } });
    const deps = depsFor();
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
    const original = readTree(root);
    execFileSync(
      'sh',
      ['-c', 'rm a.txt && mv b.txt c.txt && printf x > d.txt && mkdir -p e && cp c.txt e/f.txt'],
      { cwd: root },
    );
    await restoreSnapshot(deps, { projectRoot: root, snapshotId: snap.snapshot.id, dryRun: false });
    expect(readTree(root)).toEqual(original);
  });
});
