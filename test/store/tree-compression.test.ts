import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { takeSnapshot } from '../../src/app/rewind.js';
import { projectStoreDir } from '../../src/store/store-location.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// Issue 26: zlib's set-up for each small tree was a third of a warm snapshot's `write-tree`. The trees a
// snapshot writes go in loose and uncompressed (stored deflate blocks) until a gc packs them.

/** Whether a loose object's file holds its content in a stored (uncompressed) deflate block. */
function isStored(file: Buffer): boolean {
  // A zlib header (two bytes), then the first block's header: BTYPE (bits 1-2) 00 is a stored block.
  return file[0] === 0x78 && ((file[2] as number) & 0b110) === 0;
}

describe('the trees a snapshot writes', () => {
  it('are stored uncompressed, and read back by git', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [
        `src/lib/a-rather-long-module-name-${i}.ts`,
        `export const v = ${i};\n`,
      ]),
    );
    const root = createRepo({ committed: files });
    const storeBase = tempDir('tree-compression-store-');
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: storeBase } });
    const gitDir = path.join(projectStoreDir(storeBase, root), 'git');
    await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    writeFileSync(path.join(root, 'src/lib/a-rather-long-module-name-7.ts'), 'export const v = 70;\n');
    const { snapshot, created } = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(created).toBe(true);
    const listed = spawnSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-t', snapshot.tree], {
      encoding: 'utf8',
    });
    expect(listed.status, listed.stderr).toBe(0);
    const trees = [
      snapshot.tree,
      ...listed.stdout.split('\n').flatMap((line) => (/ tree ([0-9a-f]{40})\t/.exec(line) ?? []).slice(1)),
    ];
    expect(trees).toHaveLength(3); // the root, src, src/lib: each written anew
    for (const tree of trees) {
      const file = readFileSync(path.join(gitDir, 'objects', tree.slice(0, 2), tree.slice(2)));
      expect(isStored(file), tree).toBe(true);
    }
    const shown = spawnSync(
      'git',
      ['--git-dir', gitDir, 'show', `${snapshot.commit}:src/lib/a-rather-long-module-name-7.ts`],
      {
        encoding: 'utf8',
      },
    );
    expect(shown.stdout).toBe('export const v = 70;\n');
    const fsck = spawnSync('git', ['--git-dir', gitDir, 'fsck', '--no-dangling', '--no-progress'], {
      encoding: 'utf8',
    });
    expect(fsck.status, fsck.stderr).toBe(0);
  });
});
