import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { takeSnapshot } from '../../src/app/rewind.js';
import { readStoredZlib } from '../../src/git/zlib-stored.js';
import { SnapshotReader } from '../../src/store/snapshot-reader.js';
import { defaultStoreBase, projectStoreDir } from '../../src/store/store-location.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// Counted, not replaced: each snapshot commit the listing reads from the store's files passes here.
vi.mock('../../src/git/zlib-stored.js', async (original) => {
  const real = await original<typeof import('../../src/git/zlib-stored.js')>();
  return { ...real, readStoredZlib: vi.fn(real.readStoredZlib) };
});

// Issue 26: snapshot ids carry seconds only, so the state file's latest could not be told from another
// snapshot of its second, and `status` and `list` read both commits (0.6-0.9 ms) whenever the newest two
// shared one, as the bench's do. The state now remembers the others of the latest's second, exact times.
async function sameSecondSnapshots(count: number) {
  const root = createRepo({ committed: { 'a.txt': 'zero\n' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  let millisecond = 0;
  const deps = defaultDeps({
    env,
    now: () => {
      millisecond += 100;
      return new Date(Date.UTC(2026, 11, 7, 9, 0, 0, millisecond));
    },
  });
  const taken = [];
  for (let index = 1; index <= count; index++) {
    writeFileSync(path.join(root, 'a.txt'), `${index}\n`);
    taken.push((await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' })).snapshot);
  }
  const storeDir = projectStoreDir(defaultStoreBase(env), root);
  const reader = new SnapshotReader(root, storeDir, {
    maxCount: 100,
    maxAgeDays: 30,
    maxFileBytes: 1 << 20,
    keepAsideMaxBytes: 1 << 20,
    includeIgnored: [],
  });
  return { taken, reader, storeDir };
}

describe('the latest snapshot when the newest share a second', () => {
  it('comes from the state file, reading none of their commits', async () => {
    const { taken, reader } = await sameSecondSnapshots(3);
    const newest = (await reader.listNewest(3)).snapshots;
    expect(newest.map((snapshot) => snapshot.id)).toEqual(taken.map((snapshot) => snapshot.id).reverse());
    vi.mocked(readStoredZlib).mockClear();
    expect(await reader.listNewest(1)).toEqual({ snapshots: [taken[2]], total: 3 });
    expect(readStoredZlib).not.toHaveBeenCalled();
  });

  it('is read from the commits when the state does not know one of them', async () => {
    const { taken, reader, storeDir } = await sameSecondSnapshots(2);
    vi.mocked(readStoredZlib).mockClear();
    // As after a snapshot whose record stopped before the state's: its second's others are not all known.
    const statePath = path.join(storeDir, 'state.json');
    const state = JSON.parse(readFileSync(statePath, 'utf8'));
    writeFileSync(statePath, JSON.stringify({ ...state, latest: taken[0], latestSecond: {} }));
    expect((await reader.listNewest(1)).snapshots).toEqual([taken[1]]);
    expect(readStoredZlib).toHaveBeenCalledTimes(2);
  });
});
