import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AppDeps, defaultDeps } from '../../src/app/deps.js';
import { gcSnapshots, listSnapshots, restoreSnapshot, takeSnapshot } from '../../src/app/rewind.js';
import { formatSnapshotId } from '../../src/core/snapshot.js';
import { SnapshotStore } from '../../src/store/snapshot-store.js';
import { projectStoreDir } from '../../src/store/store-location.js';
import { isMeasured, PACK_AFTER_SNAPSHOTS, readUsage, writeUsage } from '../../src/store/store-usage.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

/** Retention off: the history below is dated months before the clock. */
const LONG = { CHECKPOINT_SNAPSHOT_MAX_COUNT: '100000', CHECKPOINT_SNAPSHOT_MAX_AGE_DAYS: '36500' };

function clockedDeps(env: Record<string, string>): { deps: AppDeps; tick: () => void } {
  let clock = Date.parse('2026-11-01T00:00:00Z');
  return {
    deps: defaultDeps({ env, now: () => new Date(clock) }),
    tick: () => {
      clock += 1000;
    },
  };
}

/** Loose objects in a git dir (one file each in the two-hex-digit folders). */
function looseObjects(gitDir: string): number {
  const objects = path.join(gitDir, 'objects');
  return readdirSync(objects)
    .filter((dir) => /^[0-9a-f]{2}$/.test(dir))
    .reduce((total, dir) => total + readdirSync(path.join(objects, dir)).length, 0);
}

const packs = (gitDir: string) =>
  readdirSync(path.join(gitDir, 'objects', 'pack')).filter((name) => name.endsWith('.pack'));

/**
 * `count` snapshots of `tree` recorded as every prompt records one (its commit and ref, counted since
 * the last gc, see snapshotLocked), without scanning the tree each time: a long history in seconds.
 */
async function recordHistory(
  store: SnapshotStore,
  tree: string,
  count: number,
  from: number,
): Promise<string[]> {
  const ids: string[] = [];
  await store.withLock(async () => {
    await store.init();
    for (let i = 0; i < count; i++) {
      const at = new Date(Date.parse('2026-01-01T00:00:00Z') + (from + i) * 1000);
      const id = formatSnapshotId(at, randomBytes(3).toString('hex'));
      await store.record(
        {
          id,
          createdAt: at.toISOString(),
          trigger: 'prompt',
          label: `prompt ${from + i}`,
          sessionId: 'long',
          git: null,
          changes: { added: 0, modified: 0, deleted: 0 },
          skipped: { large: [], nested: [] },
        },
        tree,
      );
      store.noteAdded(1024, 1);
      ids.push(id);
    }
  });
  return ids;
}

describe('packing a long history', () => {
  it('a snapshot says a gc is due once PACK_AFTER_SNAPSHOTS were recorded since the last gc, and not before', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const base = tempDir('checkpoint-store-');
    const { deps, tick } = clockedDeps({
      CHECKPOINT_STORE_DIR: base,
      ...LONG,
    });
    const prompt = async () => {
      tick();
      return takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', sessionId: 's1' });
    };
    const storeDir = projectStoreDir(base, root);
    expect((await prompt()).packDue).toBe(false);
    // Each prompt counts, an unchanged tree's too (a prompt is always recorded).
    expect((await prompt()).packDue).toBe(false);
    expect(readUsage(storeDir)?.unpackedSnapshots).toBe(2);
    // As if the session had gone on: two short of the threshold.
    const usage = readUsage(storeDir);
    if (!usage) throw new Error('no usage.json');
    writeUsage(storeDir, { ...usage, unpackedSnapshots: PACK_AFTER_SNAPSHOTS - 2 });

    expect((await prompt()).packDue).toBe(false);
    // Below the threshold, the hooks' gc finds nothing to do.
    expect((await gcSnapshots(deps, { projectRoot: root, ifDue: true })).skipped).toBe(true);
    expect((await prompt()).packDue).toBe(true);
    expect((await gcSnapshots(deps, { projectRoot: root, ifDue: true })).skipped).toBeUndefined();
    expect(readUsage(storeDir)?.unpackedSnapshots).toBe(0);
    expect((await prompt()).packDue).toBe(false);
    // The counter is the store's own, not the snapshot's: a tree left unchanged by a manual snapshot
    // records nothing and counts nothing.
    tick();
    expect((await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' })).created).toBe(false);
    expect(readUsage(storeDir)?.unpackedSnapshots).toBe(1);
  });

  it('the gc a long history makes due packs its refs and commits, adds a pack per gc after that, and every snapshot stays listed and restorable', {
    timeout: 90_000,
  }, async () => {
    const root = createRepo({ committed: { 'a.txt': 'first' } });
    const base = tempDir('checkpoint-store-');
    const { deps, tick } = clockedDeps({
      CHECKPOINT_STORE_DIR: base,
      ...LONG,
    });
    tick();
    const first = await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', sessionId: 'long' });
    const storeDir = projectStoreDir(base, root);
    const gitDir = path.join(storeDir, 'git');
    const store = new SnapshotStore(root, storeDir, {
      maxCount: 100_000,
      maxAgeDays: 100_000,
      maxFileBytes: 1024 * 1024,
    });
    // Past a thousand refs, so that gc packs the refs too.
    const older = await recordHistory(store, first.snapshot.tree, 1100, 0);
    writeTree(root, { 'a.txt': 'changed' });
    tick();
    const outcome = await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', sessionId: 'long' });
    expect(outcome.packDue).toBe(true);
    expect(looseObjects(gitDir)).toBeGreaterThan(1100);

    // What the hooks start in the background (`gc --if-due`).
    const gc = await gcSnapshots(deps, { projectRoot: root, ifDue: true });
    expect(gc.skipped).toBeUndefined();
    expect(looseObjects(gitDir)).toBe(0);
    expect(readdirSync(path.join(gitDir, 'refs', 'snapshots'))).toEqual([]);
    expect(readFileSync(path.join(gitDir, 'packed-refs'), 'utf8')).toContain(`refs/snapshots/${older[0]}`);
    const firstPacks = packs(gitDir);
    expect(firstPacks).toHaveLength(1);

    // The next due gc packs only what came since, beside the pack already there.
    await recordHistory(store, first.snapshot.tree, PACK_AFTER_SNAPSHOTS, 2000);
    tick();
    expect(
      (await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', sessionId: 'long' })).packDue,
    ).toBe(true);
    await gcSnapshots(deps, { projectRoot: root, ifDue: true });
    expect(looseObjects(gitDir)).toBe(0);
    const nextPacks = packs(gitDir);
    expect(nextPacks).toHaveLength(2);
    expect(nextPacks).toEqual(expect.arrayContaining(firstPacks));

    const listed = await listSnapshots(deps, { projectRoot: root });
    expect(listed.total).toBe(1 + 1100 + 1 + PACK_AFTER_SNAPSHOTS + 1);
    expect(listed.snapshots.map((snapshot) => snapshot.id)).toEqual(expect.arrayContaining(older));
    // An old snapshot, now read from the packs, still restores.
    tick();
    await restoreSnapshot(deps, { projectRoot: root, snapshotId: older[0] as string, dryRun: false });
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('first');
    expect(existsSync(path.join(gitDir, 'objects', 'info', 'alternates'))).toBe(true);
  });

  it('a store that had snapshots before it had a size figure is measured by the gc its next snapshot makes due', async () => {
    const root = createRepo({ committed: { 'a.txt': 'first' } });
    const base = tempDir('checkpoint-store-');
    const { deps, tick } = clockedDeps({ CHECKPOINT_STORE_DIR: base, ...LONG });
    tick();
    const first = await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', sessionId: 's1' });
    const storeDir = projectStoreDir(base, root);
    // A new store is measured by its first snapshot: what it added is all it holds.
    const measured = readUsage(storeDir);
    expect(measured && isMeasured(measured)).toBe(true);
    expect(first.capDue).toBe(false);

    // As an older version left it: snapshots, and no usage file.
    rmSync(path.join(storeDir, 'usage.json'));
    writeTree(root, { 'a.txt': 'second' });
    tick();
    const next = await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', sessionId: 's1' });
    expect(next.capDue).toBe(true);
    // The figure it wrote does not pass for a measure, so the hooks' gc does not skip it.
    const unmeasured = readUsage(storeDir);
    expect(unmeasured && isMeasured(unmeasured)).toBe(false);
    const gc = await gcSnapshots(deps, { projectRoot: root, ifDue: true });
    expect(gc.skipped).toBeUndefined();
    const after = readUsage(storeDir);
    expect(after && isMeasured(after)).toBe(true);
    expect(after?.measuredBytes).toBeGreaterThan(0);
    tick();
    writeTree(root, { 'a.txt': 'third' });
    expect((await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', sessionId: 's1' })).capDue).toBe(
      false,
    );
  });
});
