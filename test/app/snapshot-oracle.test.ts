import { chmodSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { takeSnapshot } from '../../src/app/rewind.js';
import { expectHashing, JS_BUDGET_BYTES } from '../../src/git/hash.js';
import { projectStoreDir } from '../../src/store/store-location.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';

// Its own file: the variant that reads in process loads node:crypto (expectHashing) for the rest of the
// file, and runs last.
describe('a snapshot stores exactly the tree git itself would', () => {
  it.each([
    ['no one waits for the content: git reads small batches', false],
    ['a caller answers once the content is taken, node:crypto loaded: small batches read in process', true],
  ])('%s', async (_name, answersEarly) => {
    // As in a server, where node:crypto is loaded: hashing in process then costs no module's load.
    if (answersEarly) expectHashing(JS_BUDGET_BYTES + 1);
    const onContentTaken = answersEarly ? () => undefined : undefined;
    const root = createRepo({ committed: { 'keep.txt': 'k', 'dir/inner.txt': 'i', 'gone.txt': 'g' } });
    const storeBase = tempDir('checkpoint-store-');
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: storeBase } });
    // git as the oracle: the same working tree added to a fresh repository of its own.
    const oracle = tempDir('oracle-');
    git(oracle, 'init', '-q', '--bare');
    const gitsTree = () => {
      const args = ['-c', 'core.autocrlf=false', '--git-dir', oracle, '--work-tree', root];
      rmSync(path.join(oracle, 'index'), { force: true });
      git(root, ...args, 'add', '-A');
      return git(root, ...args, 'write-tree').trim();
    };
    /**
     * Who read a path the step changed: git's update-index records its stat data (a size) in the store's
     * index, a batch stored in process records none (size 0) until the next scan refreshes it.
     */
    const readByGit = (file: string) => {
      const gitDir = path.join(projectStoreDir(storeBase, root), 'git');
      const debug = git(root, '--git-dir', gitDir, '--work-tree', root, 'ls-files', '--debug', '--', file);
      return !/\bsize: 0\b/.test(debug);
    };
    // Adds and deletions apart: a deletion is always stored in process (one git call drops and adds),
    // so links, modes, binary content and Unicode names come without one, for git to read them.
    const steps: Array<{ change: () => void; read?: string[] }> = [
      {
        change: () => {
          writeTree(root, {
            'new.txt': 'n',
            'empty.txt': '',
            'bin.dat': Buffer.from([0, 255, 7]),
            'ü/名.txt': 'u',
          });
          writeTree(root, { 'run.sh': '#!/bin/sh\n' });
          chmodSync(path.join(root, 'run.sh'), 0o755);
          symlinkSync('keep.txt', path.join(root, 'link'));
        },
        read: ['new.txt', 'bin.dat', 'ü/名.txt', 'run.sh', 'link'],
      },
      { change: () => rmSync(path.join(root, 'gone.txt')) },
      {
        // A link becomes a file, a file a link, and an exec bit goes.
        change: () => {
          unlinkSync(path.join(root, 'link'));
          writeTree(root, { link: 'now a file' });
          rmSync(path.join(root, 'empty.txt'));
          symlinkSync('ü/名.txt', path.join(root, 'empty.txt'));
          chmodSync(path.join(root, 'run.sh'), 0o644);
          writeTree(root, { 'bin.dat': Buffer.from([255, 0, 0, 1]) });
        },
        read: ['link', 'empty.txt', 'bin.dat'],
      },
      {
        // A file becomes a folder, a folder a file.
        change: () => {
          rmSync(path.join(root, 'new.txt'));
          writeTree(root, { 'new.txt/now-a-folder.txt': 'f' });
          rmSync(path.join(root, 'dir'), { recursive: true });
          writeTree(root, { dir: 'now a file' });
        },
      },
      // More files than are read in-process: git reads them.
      {
        change: () =>
          writeTree(
            root,
            Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`many/f${i}.txt`, `${i}`])),
          ),
      },
      { change: () => writeTree(root, { 'many/f7.txt': 'changed', 'keep.txt': 'changed too' }) },
    ];
    for (const step of steps) {
      step.change();
      const { snapshot } = await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', onContentTaken });
      expect(snapshot.tree).toBe(gitsTree());
      for (const file of step.read ?? []) expect([file, readByGit(file)]).toEqual([file, !answersEarly]);
    }
  });
});
