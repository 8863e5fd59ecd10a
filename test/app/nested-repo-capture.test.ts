import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { restoreSnapshot, takeSnapshot } from '../../src/app/rewind.js';
import { fsPath } from '../../src/core/raw-path.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';
import { filesIn } from '../helpers/store.js';

function project(options: Parameters<typeof createRepo>[0]) {
  const root = createRepo(options);
  const store = tempDir('checkpoint-store-');
  const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: store } });
  const snapshot = async () => (await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' })).snapshot;
  return { root, store, deps, snapshot };
}

// Found by restore-undo-property (2026-12-07, seed -1696736129): git's scan steps into a folder the store's
// index holds entries under even once it is a repository of its own, so its files were taken and
// `nested` said nothing.
describe('a folder the index holds entries under that becomes a nested repository', () => {
  it('is left out and listed as nested, what was held in it counted as deleted', async () => {
    const p = project({ committed: { 'a.ts': 'a\n' }, dirty: { 'b/keep.txt': 'keep\n' } });
    symlinkSync('a', path.join(p.root, 'b/a'));
    const before = await p.snapshot();
    expect(filesIn(p.store, before.id)).toContain('b/a');

    // As the property test's step: the folder replaced by a repository with a file in it.
    rmSync(path.join(p.root, 'b'), { recursive: true });
    mkdirSync(path.join(p.root, 'b'));
    writeTree(p.root, { 'b/inside.txt': 'nested b\n' });
    git(path.join(p.root, 'b'), 'init', '-q', '-b', 'main');

    const after = await p.snapshot();
    expect(after.skipped.nested).toEqual(['b']);
    expect(filesIn(p.store, after.id)).toEqual(['.gitignore', 'a.ts']);
    expect(after.changes).toEqual({ added: 0, modified: 0, deleted: 2 });
    // Left out from then on: a change inside makes no snapshot.
    writeTree(p.root, { 'b/more.txt': 'more\n' });
    const again = await takeSnapshot(defaultDeps({ env: { CHECKPOINT_STORE_DIR: p.store } }), {
      projectRoot: p.root,
      trigger: 'manual',
    });
    expect(again.created).toBe(false);
    expect(again.snapshot.skipped.nested).toEqual(['b']);
  });

  it('`git init` in a folder of held files: its files stay on disk, leave the snapshot, come back when .git goes', async () => {
    const p = project({ committed: { 'a.ts': 'a\n' }, dirty: { 'b/one.txt': '1\n', 'b/two.txt': '2\n' } });
    await p.snapshot();
    git(path.join(p.root, 'b'), 'init', '-q', '-b', 'main');
    writeTree(p.root, { 'b/inside.txt': 'new\n' });

    const nested = await p.snapshot();
    expect(nested.skipped.nested).toEqual(['b']);
    expect(filesIn(p.store, nested.id)).toEqual(['.gitignore', 'a.ts']);
    expect(nested.changes).toEqual({ added: 0, modified: 0, deleted: 2 });

    rmSync(path.join(p.root, 'b/.git'), { recursive: true });
    const back = await p.snapshot();
    expect(back.skipped.nested).toEqual([]);
    expect(filesIn(p.store, back.id)).toEqual([
      '.gitignore',
      'a.ts',
      'b/inside.txt',
      'b/one.txt',
      'b/two.txt',
    ]);
    expect(back.changes).toEqual({ added: 3, modified: 0, deleted: 0 });
  });

  it("counted as deleted by the next snapshot when a restore's plan found it first (its capture records no snapshot)", async () => {
    const p = project({ committed: { 'a.ts': 'a\n' }, dirty: { 'b/one.txt': '1\n', 'b/two.txt': '2\n' } });
    const first = await p.snapshot();
    git(path.join(p.root, 'b'), 'init', '-q', '-b', 'main');
    writeTree(p.root, { 'b/inside.txt': 'new\n' });
    await restoreSnapshot(p.deps, { projectRoot: p.root, snapshotId: first.id, dryRun: true });

    const nested = await p.snapshot();
    expect(nested.skipped.nested).toEqual(['b']);
    expect(filesIn(p.store, nested.id)).toEqual(['.gitignore', 'a.ts']);
    expect(nested.changes).toEqual({ added: 0, modified: 0, deleted: 2 });
  });

  it('found by a held file in it edited, with nothing added', async () => {
    const p = project({ committed: { 'a.ts': 'a\n' }, dirty: { 'b/one.txt': '1\n', 'b/two.txt': '2\n' } });
    await p.snapshot();
    git(path.join(p.root, 'b'), 'init', '-q', '-b', 'main');
    writeTree(p.root, { 'b/one.txt': '1, edited\n' });

    const nested = await p.snapshot();
    expect(nested.skipped.nested).toEqual(['b']);
    expect(filesIn(p.store, nested.id)).toEqual(['.gitignore', 'a.ts']);
    expect(nested.changes).toEqual({ added: 0, modified: 0, deleted: 2 });
  });

  it('a nested repository inside a folder of held files: only it leaves, its neighbours are still taken', async () => {
    const p = project({
      committed: { 'a.ts': 'a\n' },
      dirty: { 'lib/a.txt': 'a\n', 'lib/vendored/x.c': 'int x;\n', 'lib/vendored/deep/y.c': 'int y;\n' },
    });
    await p.snapshot();
    git(path.join(p.root, 'lib/vendored'), 'init', '-q', '-b', 'main');
    writeTree(p.root, { 'lib/a.txt': 'a, edited\n', 'lib/vendored/deep/z.c': 'int z;\n' });

    const nested = await p.snapshot();
    expect(nested.skipped.nested).toEqual(['lib/vendored']);
    expect(filesIn(p.store, nested.id)).toEqual(['.gitignore', 'a.ts', 'lib/a.txt']);
    expect(nested.changes).toEqual({ added: 0, modified: 1, deleted: 2 });
  });

  it('a folder whose .git is not a repository is no nested repository: git scans it, and so do snapshots', async () => {
    const p = project({ committed: { 'a.ts': 'a\n' } });
    await p.snapshot();
    // An empty .git folder, a .git file naming a worktree that is gone, a dangling .git link.
    mkdirSync(path.join(p.root, 'foo/.git'), { recursive: true });
    writeTree(p.root, {
      'foo/x.txt': 'x\n',
      'bar/.git': 'gitdir: /nonexistent/worktrees/gone\n',
      'bar/y.txt': 'y\n',
      'baz/z.txt': 'z\n',
    });
    symlinkSync('/nonexistent/repo', path.join(p.root, 'baz/.git'));
    const after = await p.snapshot();
    expect(after.skipped.nested).toEqual([]);
    expect(filesIn(p.store, after.id)).toEqual(
      expect.arrayContaining(['foo/x.txt', 'bar/y.txt', 'baz/z.txt']),
    );
    // A worktree's .git file naming a real one is a repository, as git says.
    const main = tempDir('checkpoint-main-repo-');
    git(main, 'init', '-q', '-b', 'main');
    git(main, 'commit', '-q', '--allow-empty', '-m', 'first');
    git(main, 'worktree', 'add', '-q', path.join(p.root, 'wt'));
    writeTree(p.root, { 'wt/w.txt': 'w\n', 'foo/x.txt': 'x2\n' });
    const withWorktree = await p.snapshot();
    expect(withWorktree.skipped.nested).toEqual(['wt']);
  });

  it('a folder whose name is not valid UTF-8', async () => {
    const dir = '\udcffvendor';
    const p = project({ committed: { 'a.ts': 'a\n' } });
    mkdirSync(fsPath(path.join(p.root, dir)));
    for (const name of ['one.txt', 'two.txt'])
      writeFileSync(fsPath(path.join(p.root, dir, name)), `${name}\n`);
    const held = await p.snapshot();
    expect(filesIn(p.store, held.id)).toHaveLength(4);
    // Its name cannot be an argument (git's -C, a cwd): a repository made elsewhere is moved in.
    const elsewhere = tempDir('checkpoint-nested-');
    git(elsewhere, 'init', '-q', '-b', 'main');
    renameSync(path.join(elsewhere, '.git'), fsPath(path.join(p.root, dir, '.git')));
    writeFileSync(fsPath(path.join(p.root, dir, 'inside.txt')), 'new\n');

    const nested = await p.snapshot();
    expect(nested.skipped.nested).toEqual([dir]);
    expect(filesIn(p.store, nested.id)).toEqual(['.gitignore', 'a.ts']);
    expect(nested.changes).toEqual({ added: 0, modified: 0, deleted: 2 });
  });
});
