import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { listSnapshots, restoreSnapshot, takeSnapshot } from '../../src/app/rewind.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { repoState } from '../helpers/tree.js';

/** Plants a snapshot whose tree has one entry of the given name, crafted with git plumbing in the store. */
async function plantSnapshot(
  root: string,
  store: string,
  entryName: string,
  nested = false,
): Promise<string> {
  const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: store } });
  const first = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
  const { storeDir } = await listSnapshots(deps, { projectRoot: root });
  const gitDir = path.join(storeDir, 'git');
  const g = (args: string[], input = '') =>
    // Its own identity: a fresh machine has none (issue 26).
    execFileSync(
      'git',
      ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '--git-dir', gitDir, ...args],
      {
        input,
        encoding: 'utf8',
      },
    ).trim();
  const blob = g(['hash-object', '-w', '--stdin'], 'planted\n');
  let tree = g(['mktree'], `100644 blob ${blob}\t${nested ? 'config' : entryName}\n`);
  if (nested) tree = g(['mktree'], `040000 tree ${tree}\t${entryName}\n`);
  const meta = {
    ...first.snapshot,
    id: '20990101-000000-abcdef',
    createdAt: '2099-01-01T00:00:00.000Z',
    label: 'planted',
  };
  const { tree: _t, commit: _c, ...metaOnly } = meta;
  const commit = g(['commit-tree', tree, '-F', '-'], JSON.stringify(metaOnly));
  g(['update-ref', 'refs/snapshots/20990101-000000-abcdef', commit]);
  return '20990101-000000-abcdef';
}

describe('restore never writes outside the project, whatever a snapshot contains', () => {
  it.each([
    ['a .git folder', '.git', true],
    ['a .GIT folder (case-insensitive file systems)', '.GIT', true],
    ['a ".." entry', '..', false],
    ['the checkpoint file', '.claude-checkpoint', false],
  ])('refuses a snapshot with %s, changing nothing', async (_name, entry, nested) => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const store = tempDir('checkpoint-store-');
    const id = await plantSnapshot(root, store, entry, nested);
    const before = repoState(root);
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: store } });
    await expect(restoreSnapshot(deps, { projectRoot: root, snapshotId: id, dryRun: false })).rejects.toThrow(
      /refusing to restore/,
    );
    expect(repoState(root)).toEqual(before);
    expect(readFileSync(path.join(root, 'a.ts'), 'utf8')).toBe('a');
    expect(existsSync(path.join(path.dirname(root), 'config'))).toBe(false);
  });

  it('never writes through a folder that became a symlink pointing outside', async () => {
    const root = createRepo({ committed: { 'dir/inner.txt': 'original' } });
    const store = tempDir('checkpoint-store-');
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: store } });
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    const outside = tempDir('checkpoint-outside-');
    execFileSync('rm', ['-rf', path.join(root, 'dir')]);
    symlinkSync(outside, path.join(root, 'dir'));
    await restoreSnapshot(deps, { projectRoot: root, snapshotId: snap.snapshot.id, dryRun: false });
    // The link is replaced by a real folder; nothing lands in the link's target.
    expect(readFileSync(path.join(root, 'dir/inner.txt'), 'utf8')).toBe('original');
    expect(existsSync(path.join(outside, 'inner.txt'))).toBe(false);
  });

  it('refuses restore paths outside the project', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } });
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    mkdirSync(path.join(root, 'x'));
    writeFileSync(path.join(root, 'x/y'), 'y');
    await expect(
      restoreSnapshot(deps, {
        projectRoot: root,
        snapshotId: snap.snapshot.id,
        paths: ['../elsewhere'],
        dryRun: false,
      }),
    ).rejects.toThrow(/paths\.0 is outside the project root/);
  });
});
