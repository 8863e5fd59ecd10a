import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AppDeps, defaultDeps } from '../../src/app/deps.js';
import {
  gcAllProjects,
  gcSnapshots,
  listSnapshots,
  restoreSnapshot,
  takeSnapshot,
} from '../../src/app/rewind.js';
import { protectedIds, selectForSize } from '../../src/app/store-caps.js';
import { storeLimits } from '../../src/app/store-limits.js';
import { quotePath } from '../../src/core/quote.js';
import { nodeFs } from '../../src/store/fs-seam.js';
import { settingsOf } from '../../src/store/settings-file.js';
import { projectStoreDir } from '../../src/store/store-location.js';
import { readTranscriptMemory, writeTranscriptMemory } from '../../src/store/transcript-memory.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

const KB = 1024;
const MB = 1024 * 1024;
// With the store's own files, the newest snapshot holds about 1,000 KB: over 90% of the cap, and within 5% of it.
const BIG_KB = 985;

/** Bytes on disk under a folder, walked: the figure the caps are about, measured independently. */
function duBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += duBytes(full);
    else if (entry.name !== 'lock') total += statSync(full).size;
  }
  return total;
}

function clockedDeps(env: Record<string, string>): { deps: AppDeps; tick: () => void } {
  let clock = Date.parse('2026-11-01T00:00:00Z');
  return {
    deps: defaultDeps({ env, now: () => new Date(clock) }),
    tick: () => {
      clock += 1000;
    },
  };
}

describe('store size caps', () => {
  it('shrinks a store filled past its cap back under it, oldest first, keeping the newest and the undo', async () => {
    const root = createRepo({ committed: { 'keep.txt': 'stays' } });
    const base = tempDir('checkpoint-store-');
    const { deps, tick } = clockedDeps({
      CHECKPOINT_STORE_DIR: base,
      CHECKPOINT_STORE_MAX_MB: '1',
      CHECKPOINT_SNAPSHOT_MAX_COUNT: '1000',
    });
    const take = async (trigger = 'prompt') => {
      tick();
      return takeSnapshot(deps, { projectRoot: root, trigger });
    };
    // Random bytes do not compress: each snapshot adds about 200 KB of its own.
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      writeTree(root, { 'data.bin': randomBytes(200 * KB) });
      ids.push((await take()).snapshot.id);
    }
    // A restore: its pre-restore snapshot is the undo, which must survive however old it gets.
    const before = randomBytes(200 * KB);
    writeTree(root, { 'data.bin': before });
    tick();
    const restored = await restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: ids[0] as string,
      dryRun: false,
    });
    const undo = restored.undoSnapshotId as string;
    expect(undo).toBeTruthy();
    let due = false;
    for (let i = 0; i < 6; i++) {
      writeTree(root, { 'data.bin': randomBytes(200 * KB) });
      due = (await take()).capDue || due;
    }
    const storeDir = projectStoreDir(base, root);
    expect(duBytes(storeDir)).toBeGreaterThan(2 * MB);
    expect(due).toBe(true);

    const gc = await gcSnapshots(deps, { projectRoot: root });
    expect(gc.trimmed).toBeGreaterThan(0);
    expect(duBytes(storeDir)).toBeLessThanOrEqual(MB);
    // The figure gc reports is the store's size (give or take the few bytes of the figure's own file).
    expect(Math.abs(gc.afterBytes - duBytes(storeDir))).toBeLessThan(100);
    const left = (await listSnapshots(deps, { projectRoot: root })).snapshots.map((snapshot) => snapshot.id);
    // Oldest first: the first snapshots went, the undo stayed although older than what went.
    expect(left).not.toContain(ids[0]);
    expect(left).toContain(undo);
    // And it still undoes, byte for byte.
    await restoreSnapshot(deps, { projectRoot: root, snapshotId: undo, dryRun: false });
    expect(readFileSync(path.join(root, 'data.bin')).equals(before)).toBe(true);
    expect(readFileSync(path.join(root, 'keep.txt'), 'utf8')).toBe('stays');
  });

  it('keeps the undo an interrupted restore names', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const base = tempDir('checkpoint-store-');
    const { deps, tick } = clockedDeps({ CHECKPOINT_STORE_DIR: base, CHECKPOINT_STORE_MAX_MB: '0.5' });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      tick();
      writeTree(root, { 'data.bin': randomBytes(150 * KB) });
      ids.push((await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' })).snapshot.id);
    }
    // What a restore killed midway leaves: its journal, naming the state before it.
    const journal = { target: ids[3], undo: ids[0], dirs: ['.'], startedAt: new Date().toISOString() };
    writeFileSync(path.join(projectStoreDir(base, root), 'restore-journal.json'), JSON.stringify(journal));
    await gcSnapshots(deps, { projectRoot: root });
    const left = (await listSnapshots(deps, { projectRoot: root })).snapshots.map((snapshot) => snapshot.id);
    expect(left).toContain(ids[0]);
    expect(left).toContain(ids[5]);
    expect(left).not.toContain(ids[1]);
    expect(duBytes(projectStoreDir(base, root))).toBeLessThanOrEqual(0.5 * MB);
  });

  it('trims the oldest snapshots of all projects together for the whole-store cap', async () => {
    const base = tempDir('checkpoint-store-');
    const { deps, tick } = clockedDeps({
      CHECKPOINT_STORE_DIR: base,
      CHECKPOINT_STORE_MAX_MB: '0',
      CHECKPOINT_STORE_TOTAL_MAX_MB: '1.5',
    });
    const older = createRepo({ committed: { 'a.txt': 'a' } });
    const newer = createRepo({ committed: { 'b.txt': 'b' } });
    const idsOf: Record<string, string[]> = { [older]: [], [newer]: [] };
    const snap = async (root: string) => {
      tick();
      writeTree(root, { 'data.bin': randomBytes(200 * KB) });
      const outcome = await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
      idsOf[root]?.push(outcome.snapshot.id);
      return outcome;
    };
    for (let i = 0; i < 4; i++) await snap(older);
    let due = false;
    for (let i = 0; i < 4; i++) due = (await snap(newer)).capDue || due;
    expect(due).toBe(true);
    const gc = await gcSnapshots(deps, { projectRoot: newer });
    expect(gc.wholeStore.length).toBeGreaterThan(0);
    const total = duBytes(path.join(base, 'projects'));
    expect(total).toBeLessThanOrEqual(1.5 * MB);
    const left = async (root: string) =>
      (await listSnapshots(deps, { projectRoot: root })).snapshots.map((snapshot) => snapshot.id);
    // The older project's old snapshots went first; the newer project kept all of its own.
    expect(await left(newer)).toEqual([...(idsOf[newer] ?? [])].reverse());
    expect(await left(older)).toContain(idsOf[older]?.[3]);
    expect(await left(older)).not.toContain(idsOf[older]?.[0]);
  });

  it('gc --all deletes the stores of projects whose folder is gone and collects the others', async () => {
    const base = tempDir('checkpoint-store-');
    const { deps, tick } = clockedDeps({ CHECKPOINT_STORE_DIR: base });
    const kept = createRepo({ committed: { 'a.txt': 'a' } });
    const gone = createRepo({ committed: { 'b.txt': 'b' } });
    for (const root of [kept, gone]) {
      tick();
      writeTree(root, { 'x.txt': root });
      await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    }
    rmSync(gone, { recursive: true, force: true });
    const outcome = await gcAllProjects(deps);
    expect(outcome.removedStores.map((store) => store.root)).toEqual([gone]);
    expect(outcome.projects.map((project) => project.root)).toEqual([kept]);
    expect(readdirSync(path.join(base, 'projects'))).toEqual([path.basename(projectStoreDir(base, kept))]);
    expect((await listSnapshots(deps, { projectRoot: kept })).snapshots).toHaveLength(1);
  });

  it("gc --all's progress names a gone folder quoted: a newline in its name split the progress line", async () => {
    const base = tempDir('checkpoint-store-');
    const { deps } = clockedDeps({ CHECKPOINT_STORE_DIR: base });
    const gone = path.join(tempDir('checkpoint-parent-'), 'gone\nfolder');
    mkdirSync(gone);
    writeTree(gone, { 'x.txt': 'x' });
    await takeSnapshot(deps, { projectRoot: gone, trigger: 'manual' });
    rmSync(gone, { recursive: true, force: true });
    const phases: string[] = [];
    await gcAllProjects(deps, (phase) => phases.push(phase));
    expect(phases).toContain(`project 1/1: deleting the store of ${quotePath(gone)}, which no longer exists`);
    for (const phase of phases) expect(phase).not.toContain('\n');
  });
});

describe('size retention rules', () => {
  it.each([
    ['nothing when under the target', 100, 200, []],
    ['the oldest until the total is down to the target', 1000, 700, ['a', 'b']],
    ['all it can when even that is not enough', 1000, 10, ['a', 'b', 'c']],
  ])('selects %s', (_title, total, target, expected) => {
    const candidates = [
      { id: 'c', createdAt: '2026-11-03T00:00:00Z', bytes: 100 },
      { id: 'a', createdAt: '2026-11-01T00:00:00Z', bytes: 200 },
      { id: 'b', createdAt: '2026-11-02T00:00:00Z', bytes: 150 },
    ];
    expect(selectForSize(candidates, total, target).map((chosen) => chosen.id)).toEqual(expected);
  });

  it('protects the newest snapshot, the latest restore undo and a journal undo', () => {
    const snap = (id: string, trigger: string) =>
      ({ id, trigger, createdAt: id, tree: 't', commit: 'c' }) as unknown as Parameters<
        typeof protectedIds
      >[0][number];
    const newestFirst = [
      snap('5', 'prompt'),
      snap('4', 'pre-restore'),
      snap('3', 'prompt'),
      snap('2', 'pre-restore'),
    ];
    expect([...protectedIds(newestFirst, '1')].sort()).toEqual(['1', '4', '5']);
  });

  it.each([
    [{}, { maxBytes: 2048 * MB, totalMaxBytes: 10240 * MB }],
    [
      { CHECKPOINT_STORE_MAX_MB: '0', CHECKPOINT_STORE_TOTAL_MAX_MB: '1.5' },
      { maxBytes: Number.POSITIVE_INFINITY, totalMaxBytes: 1.5 * MB },
    ],
  ])('reads the caps from the settings (here the environment): %j', (env, expected) => {
    const isolated = { ...env, CHECKPOINT_CONFIG_DIR: tempDir('checkpoint-config-') };
    expect(storeLimits(settingsOf({ env: isolated }))).toEqual(expected);
  });

  it('names the setting and the limit for a bad cap', () => {
    const config = tempDir('checkpoint-config-');
    expect(() =>
      settingsOf({ env: { CHECKPOINT_STORE_MAX_MB: '-1', CHECKPOINT_CONFIG_DIR: config } }),
    ).toThrow(/CHECKPOINT_STORE_MAX_MB.*0.*10000000.*-1/);
    expect(() =>
      settingsOf({ env: { CHECKPOINT_STORE_TOTAL_MAX_MB: 'lots', CHECKPOINT_CONFIG_DIR: config } }),
    ).toThrow(/CHECKPOINT_STORE_TOTAL_MAX_MB/);
  });
});

describe('long histories', () => {
  it('lists and resolves the newest snapshots exactly while reading only those, ties within a second included', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const base = tempDir('checkpoint-store-');
    const env = {
      CHECKPOINT_STORE_DIR: base,
      CHECKPOINT_SNAPSHOT_MAX_COUNT: '1000',
      CHECKPOINT_SNAPSHOT_MAX_AGE_DAYS: '36500',
    };
    // Eight snapshots in each second, their ids' random parts in no order of time.
    let clock = Date.parse('2026-11-01T00:00:00Z');
    const deps = defaultDeps({ env, now: () => new Date(clock) });
    for (let i = 0; i < 24; i++) {
      clock += 120;
      writeTree(root, { 'a.txt': `version ${i}` });
      await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    }
    const all = await listSnapshots(deps, { projectRoot: root });
    expect(all.total).toBe(24);
    for (const limit of [1, 3, 5, 8, 9]) {
      const some = await listSnapshots(deps, { projectRoot: root, limit });
      expect(some.total).toBe(24);
      expect(some.snapshots.map((s) => s.id)).toEqual(all.snapshots.slice(0, limit).map((s) => s.id));
    }
    const { diffSnapshot } = await import('../../src/app/rewind.js');
    for (const back of [0, 1, 4, 7]) {
      const outcome = await diffSnapshot(deps, {
        projectRoot: root,
        snapshotId: `latest~${back}`,
        against: 'latest',
      });
      expect(outcome.from).toBe(all.snapshots[back]?.id);
    }
    await expect(diffSnapshot(deps, { projectRoot: root, snapshotId: 'latest~40' })).rejects.toThrow(
      /only 24: the oldest is latest~23/,
    );
  });
});

describe('a store whose newest snapshot alone is over its cap (daily-use trial)', () => {
  it('keeps the newest snapshots that fit a margin above it, and is not due for a trim after each snapshot', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const base = tempDir('checkpoint-store-');
    const { deps, tick } = clockedDeps({ CHECKPOINT_STORE_DIR: base, CHECKPOINT_STORE_MAX_MB: '1' });
    // 1.2 MB that does not compress and never changes: every snapshot holds it, so none frees it.
    writeTree(root, { 'big.bin': randomBytes(1200 * KB) });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      tick();
      writeTree(root, { 'small.bin': randomBytes(5 * KB) });
      ids.push((await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' })).snapshot.id);
    }
    const gc = await gcSnapshots(deps, { projectRoot: root });
    expect(gc.isOverCap).toBe(true);
    // Not down to the newest alone: about a twentieth of the cap (51 KB) of the newest stays.
    const left = (await listSnapshots(deps, { projectRoot: root, limit: 100 })).snapshots.map((s) => s.id);
    expect(left[0]).toBe(ids.at(-1));
    expect(left.length).toBeGreaterThan(3);
    expect(left.length).toBeLessThan(30);
    // The next snapshot adds 5 KB: no trim due (each one was a full gc that removed the one before).
    tick();
    writeTree(root, { 'small.bin': randomBytes(5 * KB) });
    expect((await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' })).capDue).toBe(false);
  });
});

// Review B: with what the cap never deletes between 90% and 100% of it, the margin above that part put
// gc's target over the cap: gc stopped over it, then said to raise the cap above the cap.
it('a store whose newest snapshot is just under its cap is trimmed under it, and not called over it', async () => {
  const root = createRepo({ committed: { 'a.txt': 'a' } });
  const base = tempDir('checkpoint-store-');
  const { deps, tick } = clockedDeps({ CHECKPOINT_STORE_DIR: base, CHECKPOINT_STORE_MAX_MB: '1' });
  writeTree(root, { 'big.bin': randomBytes(BIG_KB * KB) });
  for (let i = 0; i < 30; i++) {
    tick();
    writeTree(root, { 'small.bin': randomBytes(5 * KB) });
    await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
  }
  const gc = await gcSnapshots(deps, { projectRoot: root });
  expect(gc.trimmed).toBeGreaterThan(0);
  expect(duBytes(projectStoreDir(base, root))).toBeLessThanOrEqual(MB);
  expect(gc.isOverCap).toBe(false);
});

describe('what the transcript hooks remember (daily-use trial)', () => {
  it('gc deletes the memories of transcripts no hook read for 30 days, and keeps the others', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const base = tempDir('checkpoint-store-');
    const { deps } = clockedDeps({ CHECKPOINT_STORE_DIR: base });
    await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    const storeDir = projectStoreDir(base, root);
    const folder = path.join(storeDir, 'transcripts');
    // One memory per session's transcript: every /clear left one for good.
    const daysAgo = (n: number) => new Date(deps.now().getTime() - n * 86_400_000);
    const names = new Map<string, string>();
    for (const [name, age] of [['old', 40] as const, ['recent', 10] as const, ['fresh', 0] as const]) {
      writeTranscriptMemory(nodeFs, storeDir, 'claude', `/t/${name}.jsonl`, { offset: 1 });
      const file = readdirSync(folder).find((entry) => !names.has(entry)) as string;
      names.set(file, name);
      utimesSync(path.join(folder, file), daysAgo(age), daysAgo(age));
    }
    await gcSnapshots(deps, { projectRoot: root });
    expect(
      readdirSync(folder)
        .map((entry) => names.get(entry))
        .sort(),
    ).toEqual(['fresh', 'recent']);
    expect(readTranscriptMemory(storeDir, 'claude', '/t/recent.jsonl')).toEqual({ offset: 1 });
    expect(readTranscriptMemory(storeDir, 'claude', '/t/old.jsonl')).toBeNull();
  });
});
