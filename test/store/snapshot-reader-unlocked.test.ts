import { readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { takeSnapshot } from '../../src/app/rewind.js';
import { listSnapshots } from '../../src/app/snapshot-list.js';
import { CheckpointError } from '../../src/core/errors.js';
import { withFileLock } from '../../src/store/lock.js';
import { SnapshotReader } from '../../src/store/snapshot-reader.js';
import { storeFolderStamp } from '../../src/store/store-scan.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { storeGitDir } from '../helpers/store.js';

// Issue 26: `status` and `list` read the snapshot store without its lock while no writer is at work, as
// git's readers do (SnapshotReader.readWithoutWriters); a writer at work, or one that came and went
// during the read, has them read under the lock.

async function projectWithSnapshots() {
  const root = createRepo({ committed: { 'a.txt': 'one\n' } });
  const store = tempDir('checkpoint-store-');
  const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: store } });
  await takeSnapshot(deps, { projectRoot: root, trigger: 'manual', label: 'first' });
  writeFileSync(path.join(root, 'a.txt'), 'two\n');
  await takeSnapshot(deps, { projectRoot: root, trigger: 'manual', label: 'second' });
  const storeDir = path.dirname(storeGitDir(store));
  // An old time on the store's folder: taking the lock in it (a link, then an unlink) would change it.
  // Not a whole second: such a time is read as a clock too coarse to tell a writer by (below).
  utimesSync(storeDir, new Date('2026-01-01T00:00:00.250Z'), new Date('2026-01-01T00:00:00.250Z'));
  const reader = () =>
    new SnapshotReader(root, storeDir, {
      maxCount: 100,
      maxAgeDays: 30,
      maxFileBytes: 1024 * 1024,
      keepAsideMaxBytes: 1024 * 1024,
      includeIgnored: [],
    });
  return { root, deps, storeDir, reader };
}

describe('reading the snapshot store without its lock', () => {
  it.each([
    ['status', 1],
    ['list', undefined],
  ])(
    '%s with no writer at work takes no lock: the store folder is left as it was',
    async (_command, limit) => {
      const { root, deps, storeDir } = await projectWithSnapshots();
      const before = storeFolderStamp(storeDir);
      const listed = await listSnapshots(deps, { projectRoot: root, limit });
      expect(listed.snapshots[0]?.label).toBe('second');
      expect(listed.total).toBe(2);
      expect(storeFolderStamp(storeDir)).toBe(before);
    },
  );

  it('a store folder whose time is a whole second (a clock that ticks once a second): it reads holding the lock (review)', async () => {
    // On ext3, HFS+ or FAT, a writer that takes the lock and lets it go within the second leaves the
    // folder's times as they were: the stamp cannot tell it, so such a folder is read under the lock.
    const { storeDir, reader } = await projectWithSnapshots();
    utimesSync(storeDir, new Date('2026-01-01T00:00:01Z'), new Date('2026-01-01T00:00:01Z'));
    // The early snapshot scan's stamp refuses it too: that scan is taken over on the same proof.
    expect(storeFolderStamp(storeDir)).toBeNull();
    const told: boolean[] = [];
    await reader().readWithoutWriters(async (isLocked) => {
      told.push(isLocked);
      return isLocked;
    });
    expect(told).toEqual([true]);
  });

  it('a git that ran out of time without the lock is not run again under it (review)', async () => {
    const { reader } = await projectWithSnapshots();
    const told: boolean[] = [];
    const read = reader().readWithoutWriters(async (isLocked) => {
      told.push(isLocked);
      throw new CheckpointError('GIT_FAILED', 'git for-each-ref timed out after 600000 ms');
    });
    await expect(read).rejects.toThrow('timed out after 600000 ms');
    expect(told).toEqual([false]);
  });

  it('a writer that came and went during the read: it reads again, holding the lock', async () => {
    const { storeDir, reader } = await projectWithSnapshots();
    const store = reader();
    const told: boolean[] = [];
    const answer = await store.readWithoutWriters(async (isLocked) => {
      told.push(isLocked);
      if (!isLocked) await withFileLock(path.join(storeDir, 'lock'), async () => undefined);
      return isLocked ? 'under the lock' : 'read while a writer came';
    });
    expect(answer).toBe('under the lock');
    expect(told).toEqual([false, true]);
  });

  it.each([
    ['the lock', (storeDir: string) => path.join(storeDir, 'lock')],
    ['a gc left running', (storeDir: string) => path.join(storeDir, 'git', 'gc.pid')],
    ["a git's index.lock", (storeDir: string) => path.join(storeDir, 'git', 'index.lock')],
  ])('a writer at work (%s): it reads holding the lock, after the writer', async (_name, fileOf) => {
    const { storeDir, reader } = await projectWithSnapshots();
    const store = reader();
    const told: boolean[] = [];
    const file = fileOf(storeDir);
    // An owner on another machine, gone for a year: the lock is taken over as stale.
    writeFileSync(
      file,
      file.endsWith('lock') && !file.endsWith('index.lock')
        ? JSON.stringify({ pid: 2 ** 22 + 1, at: 0, host: 'elsewhere' })
        : '',
    );
    utimesSync(file, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));
    const answer = await store.readWithoutWriters(async (isLocked) => {
      told.push(isLocked);
      return isLocked;
    });
    expect(answer).toBe(true);
    expect(told).toEqual([true]);
    rmSync(file, { force: true });
  });

  it.each([
    ['the store’s base', (storeDir: string) => path.dirname(path.dirname(storeDir))],
    ['its projects folder', (storeDir: string) => path.dirname(storeDir)],
  ])(
    'a listing refuses %s where a symbolic link stands, as one under the lock did',
    async (_name, folderOf) => {
      const { root, deps, storeDir } = await projectWithSnapshots();
      const folder = folderOf(storeDir);
      const moved = `${folder}-real`;
      renameSync(folder, moved);
      symlinkSync(moved, folder);
      await expect(listSnapshots(deps, { projectRoot: root, limit: 1 })).rejects.toThrow(
        /it is a symbolic link/,
      );
    },
  );

  it('a read that would write (a store never measured) is done holding the lock', async () => {
    const { root, deps, storeDir } = await projectWithSnapshots();
    rmSync(path.join(storeDir, 'usage.json'), { force: true });
    const listed = await listSnapshots(deps, { projectRoot: root, limit: 1 });
    expect(listed.storeBytes).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(path.join(storeDir, 'usage.json'), 'utf8')).measuredBytes).toBe(
      listed.storeBytes,
    );
  });

  it('status lists a snapshot still being written (its hook has answered): the listing waits for it', async () => {
    const { root, deps } = await projectWithSnapshots();
    writeFileSync(path.join(root, 'a.txt'), 'three\n');
    let listing: ReturnType<typeof listSnapshots> | undefined;
    const outcome = await takeSnapshot(deps, {
      projectRoot: root,
      trigger: 'prompt',
      onContentTaken: () => {
        listing = listSnapshots(deps, { projectRoot: root, limit: 1 });
      },
    });
    const listed = await listing;
    expect(listed?.snapshots[0]?.id).toBe(outcome.snapshot.id);
    expect(listed?.total).toBe(3);
  });
});
