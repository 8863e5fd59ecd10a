import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { takeSnapshot } from '../../src/app/rewind.js';
import { isNewSharedIndexDue } from '../../src/store/split-index.js';
import { projectStoreDir } from '../../src/store/store-location.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// Issue 26: git starts a new shared index only past splitIndex.maxPercentChange *new* paths, so the
// store's split index grew with every file ever changed, and each index write of every snapshot hashed it
// whole. A snapshot now starts a new shared index once the split index outgrows √(8 × the shared one's).

const FILES = 400;

function entryCount(file: string): number {
  return readFileSync(file).readUInt32BE(8);
}

const sharedIndexes = (gitDir: string) =>
  readdirSync(gitDir).filter((name) => name.startsWith('sharedindex.'));

function storeGit(gitDir: string, root: string, ...args: string[]): string {
  const run = spawnSync('git', ['--git-dir', gitDir, '--work-tree', root, ...args], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

/**
 * A repository of FILES committed files, written a while before the snapshots, as in a session (git keeps
 * an entry as new as the index itself in the split index whatever the shared index: its stat data must be
 * checked again), and its first snapshot.
 */
async function firstSnapshotOfFiles() {
  const committed = Object.fromEntries(
    Array.from({ length: FILES }, (_, i) => [`src/d${i % 20}/file${i}.ts`, `export const v${i} = 0;\n`]),
  );
  const root = createRepo({ committed });
  const settled = new Date(Date.now() - 10_000);
  for (const file of Object.keys(committed)) utimesSync(path.join(root, file), settled, settled);
  const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: tempDir('split-index-store-') } });
  const gitDir = path.join(projectStoreDir(deps.env.CHECKPOINT_STORE_DIR as string, root), 'git');
  await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
  return { root, deps, gitDir };
}

describe('the store split index', () => {
  it('stays small over many snapshots of changed files, one shared index at a time, every snapshot whole', async () => {
    const { root, deps, gitDir } = await firstSnapshotOfFiles();
    let largest = 0;
    // 15 rounds of 20 files each, none changed twice: 300 entries changed since the first snapshot.
    for (let round = 0; round < 15; round++) {
      // Later than the files' first time, and still a while before the snapshot.
      const written = new Date(Date.now() - 5_000);
      for (let i = 0; i < 20; i++) {
        const n = round * 20 + i;
        const file = path.join(root, `src/d${n % 20}/file${n}.ts`);
        writeFileSync(file, `export const v${n} = ${round + 1};\n`);
        utimesSync(file, written, written);
      }
      const { snapshot } = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      largest = Math.max(largest, entryCount(path.join(gitDir, 'index')));
      expect(sharedIndexes(gitDir)).toHaveLength(1);
      // The snapshot holds what was written, and the index agrees with the tree and the files.
      const last = round * 20 + 19;
      expect(storeGit(gitDir, root, 'show', `${snapshot.commit}:src/d${last % 20}/file${last}.ts`)).toBe(
        `export const v${last} = ${round + 1};\n`,
      );
      expect(storeGit(gitDir, root, 'status', '--porcelain', '--untracked-files=all')).toBe('');
      expect(storeGit(gitDir, root, 'write-tree').trim()).toBe(snapshot.tree);
    }
    // √(8 × 401) is about 57; a round adds 20 entries at most before the next one starts a new shared index.
    expect(largest).toBeLessThanOrEqual(57 + 20);
    expect(storeGit(gitDir, root, 'fsck', '--no-dangling', '--no-progress')).toBe('');
  });

  it('starts a new shared index in the very snapshot of a batch past the balance (review)', async () => {
    const { root, deps, gitDir } = await firstSnapshotOfFiles();
    const sharedBefore = sharedIndexes(gitDir);
    // 100 files at once, a while before the snapshot: past √(8 × 401), about 57, in one update. Told from
    // the index before the update alone, the check said no, and the split index kept all 100.
    const written = new Date(Date.now() - 5_000);
    for (let n = 0; n < 100; n++) {
      const file = path.join(root, `src/d${n % 20}/file${n}.ts`);
      writeFileSync(file, `export const v${n} = 1;\n`);
      utimesSync(file, written, written);
    }
    const { snapshot } = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(sharedIndexes(gitDir)).toHaveLength(1);
    expect(sharedIndexes(gitDir)).not.toEqual(sharedBefore);
    expect(entryCount(path.join(gitDir, 'index'))).toBeLessThan(57);
    expect(storeGit(gitDir, root, 'write-tree').trim()).toBe(snapshot.tree);
  });

  it('is due only for a split index past its balance with the shared one', () => {
    const gitDir = tempDir('split-index-');
    const header = (entries: number) => {
      const bytes = Buffer.alloc(12);
      bytes.write('DIRC', 0, 'latin1');
      bytes.writeUInt32BE(4, 4);
      bytes.writeUInt32BE(entries, 8);
      return bytes;
    };
    writeFileSync(path.join(gitDir, 'index'), header(300));
    // Not split: no shared index.
    expect(isNewSharedIndexDue(gitDir)).toBe(false);
    writeFileSync(path.join(gitDir, `sharedindex.${'a'.repeat(40)}`), header(10_000));
    // 300² = 90,000 > 8 × 10,000.
    expect(isNewSharedIndexDue(gitDir)).toBe(true);
    writeFileSync(path.join(gitDir, 'index'), header(282));
    expect(isNewSharedIndexDue(gitDir)).toBe(false);
    // With the entries the coming write adds: 382² > 8 × 10,000.
    expect(isNewSharedIndexDue(gitDir, 100)).toBe(true);
    // A header that is not an index's: never due.
    writeFileSync(path.join(gitDir, 'index'), 'not an index at all');
    expect(isNewSharedIndexDue(gitDir)).toBe(false);
  });
});
