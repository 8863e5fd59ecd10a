import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { takeSnapshot } from '../../src/app/rewind.js';
import { projectStoreDir } from '../../src/store/store-location.js';
import { storeSizeBytes } from '../../src/store/store-size.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// The store's size estimate (usage.json) is never below what a snapshot added (docs/settings.md): the
// trees above ten files changed in ten folders took more than the 256 bytes a path it allowed, and a
// folder of thousands of files, whose whole tree every change in it rewrites, 5-50 times the fixed
// allowance per folder that replaced it (review), so that a store passed its cap unnoticed.

const usageAdded = (storeDir: string) =>
  (JSON.parse(readFileSync(path.join(storeDir, 'usage.json'), 'utf8')) as { addedBytes: number }).addedBytes;

describe("a snapshot's size estimate", () => {
  it('is not below what ten files changed in ten folders added to the store', async () => {
    const committed = Object.fromEntries(
      Array.from({ length: 600 }, (_, i) => [
        `src/m${i % 3}/d${i % 30}/file-with-a-usual-name-${i}.ts`,
        `export const value${i} = ${i};\n`,
      ]),
    );
    const root = createRepo({ committed });
    const settled = new Date(Date.now() - 10_000);
    for (const file of Object.keys(committed)) utimesSync(path.join(root, file), settled, settled);
    const storeBase = tempDir('usage-estimate-store-');
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: storeBase } });
    const storeDir = projectStoreDir(storeBase, root);
    await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    const sizeBefore = await storeSizeBytes(storeDir, path.join(storeDir, 'lock'));
    const estimateBefore = usageAdded(storeDir);
    for (let i = 0; i < 10; i++)
      writeFileSync(
        path.join(root, Object.keys(committed)[i * 7] as string),
        `export const changed${i} = 1;\n`,
      );
    const { created } = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(created).toBe(true);
    const added = (await storeSizeBytes(storeDir, path.join(storeDir, 'lock'))) - sizeBefore;
    expect(usageAdded(storeDir) - estimateBefore).toBeGreaterThanOrEqual(added);
  });

  it('is not below what changes in a folder of 3,000 files added to the store, snapshot after snapshot', async () => {
    const committed = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [
        `big/a-file-with-a-fairly-long-name-${String(i).padStart(6, '0')}.txt`,
        `content ${i}\n`,
      ]),
    );
    const root = createRepo({ committed });
    const settled = new Date(Date.now() - 10_000);
    for (const file of Object.keys(committed)) utimesSync(path.join(root, file), settled, settled);
    const storeBase = tempDir('usage-estimate-store-');
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: storeBase } });
    const storeDir = projectStoreDir(storeBase, root);
    await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    const sizeBefore = await storeSizeBytes(storeDir, path.join(storeDir, 'lock'));
    const estimateBefore = usageAdded(storeDir);
    const changed = path.join(root, 'big/a-file-with-a-fairly-long-name-000007.txt');
    for (let round = 0; round < 4; round++) {
      writeFileSync(changed, `changed ${round}\n`);
      expect((await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' })).created).toBe(true);
    }
    const added = (await storeSizeBytes(storeDir, path.join(storeDir, 'lock'))) - sizeBefore;
    // Each round rewrites big/'s tree: some 100 KB uncompressed, well over any fixed allowance.
    expect(added).toBeGreaterThan(4 * 20_000);
    expect(usageAdded(storeDir) - estimateBefore).toBeGreaterThanOrEqual(added);
  }, 60_000);
});
