import { lstatSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { takeSnapshot } from '../../src/app/rewind.js';
import { saveCheckpoint } from '../../src/app/save.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

function walk(dir: string, visit: (file: string, isDir: boolean) => void): void {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const stats = lstatSync(full);
    visit(full, stats.isDirectory());
    if (stats.isDirectory()) walk(full, visit);
  }
}

describe('permissions and links', () => {
  it('creates every store file 0600 (or read-only for the owner) and every folder 0700, even with umask 000', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, dirty: { 'b.ts': 'b' } });
    const store = tempDir('checkpoint-store-');
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: store } });
    const previous = process.umask(0o000);
    try {
      await saveCheckpoint(deps, { goal: 'g', projectRoot: root });
      await saveCheckpoint(deps, { goal: 'g', projectRoot: root });
      await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      writeTree(root, { 'c.ts': 'c' });
      await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    } finally {
      process.umask(previous);
    }
    const loose: string[] = [];
    walk(store, (file, isDir) => {
      const mode = lstatSync(file).mode & 0o777;
      if (isDir ? mode !== 0o700 : (mode & 0o077) !== 0)
        loose.push(`${path.relative(store, file)} ${mode.toString(8)}`);
    });
    expect(loose).toEqual([]);
    for (const file of ['.claude-checkpoint', '.claude-checkpoint.prev']) {
      expect(lstatSync(path.join(root, file)).mode & 0o777).toBe(0o600);
    }
  });

  it('refuses a snapshot store folder that is a symlink', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const base = tempDir('checkpoint-store-');
    const elsewhere = tempDir('checkpoint-elsewhere-');
    mkdirSync(path.join(base, 'projects'), { recursive: true });
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: base } });
    // Find the folder name the store would use, then plant a link there.
    const { projectStoreDir } = await import('../../src/store/store-location.js');
    symlinkSync(elsewhere, projectStoreDir(base, root));
    await expect(takeSnapshot(deps, { projectRoot: root, trigger: 'manual' })).rejects.toThrow(
      /refusing to use the snapshot store .*symbolic link/,
    );
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
