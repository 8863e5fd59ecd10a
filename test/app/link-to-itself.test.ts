// Helper task "held" (2026-12-07): a file replaced by a symbolic link to itself (`rm x && ln -s x x`) is
// gone (reading x fails, ELOOP), yet git calls it a typechange and `git status` reports no deletion: `list`
// said `~1`, `diff` `T x (+1 -1, …)`, and `rewind --list` a modified file. They now say it was deleted.
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { diffSnapshot, listSnapshots, takeSnapshot } from '../../src/app/rewind.js';
import { listRewind } from '../../src/app/rewind-menu.js';
import { renderDiff } from '../../src/core/snapshot-text.js';
import { gitLoggingShim } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { connect } from '../helpers/mcp.js';

const SESSION = 'b4c9ace5-a499-4748-b228-b65376c1eb91';

async function loopedFile() {
  const root = createRepo({ committed: { 'x.txt': 'hello\n', 'd/y.txt': 'why\n', 'a.txt': 'a\n' } });
  const deps = defaultDeps({
    env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') },
  });
  const first = await takeSnapshot(deps, {
    projectRoot: root,
    trigger: 'prompt',
    label: 'p1',
    sessionId: SESSION,
  });
  rmSync(path.join(root, 'x.txt'));
  symlinkSync('x.txt', path.join(root, 'x.txt'));
  rmSync(path.join(root, 'd/y.txt'));
  symlinkSync('../d/y.txt', path.join(root, 'd/y.txt'));
  // A file replaced by a link elsewhere is still a change of the file, as git says.
  rmSync(path.join(root, 'a.txt'));
  writeFileSync(path.join(root, 'b.txt'), 'b\n');
  symlinkSync('b.txt', path.join(root, 'a.txt'));
  return { root, deps, first: first.snapshot.id };
}

describe('a file replaced by a symbolic link to itself is counted and shown as deleted', () => {
  it('in the snapshot’s counts (list), the diff (text and JSON), and the other way round', async () => {
    const { root, deps, first } = await loopedFile();
    const second = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(second.snapshot.changes).toEqual({ added: 1, modified: 1, deleted: 2 });
    const listed = await listSnapshots(deps, { projectRoot: root });
    expect(listed.snapshots[0]?.changes).toEqual({ added: 1, modified: 1, deleted: 2 });

    const diff = await diffSnapshot(deps, { projectRoot: root, snapshotId: first });
    expect(diff.files).toEqual([
      { path: 'a.txt', status: 'T', added: 1, deleted: 1, oldMode: '100644', newMode: '120000' },
      { path: 'b.txt', status: 'A', added: 1, deleted: 0 },
      {
        path: 'd/y.txt',
        status: 'D',
        added: 0,
        deleted: 1,
        oldMode: '100644',
        newMode: '120000',
        linkToItself: 'new',
      },
      {
        path: 'x.txt',
        status: 'D',
        added: 0,
        deleted: 1,
        oldMode: '100644',
        newMode: '120000',
        linkToItself: 'new',
      },
    ]);
    expect(renderDiff(diff)).toContain('D x.txt (+0 -1, now a link to itself, mode 100644 -> 120000)');

    const back = await diffSnapshot(deps, {
      projectRoot: root,
      snapshotId: second.snapshot.id,
      against: first,
    });
    expect(back.files.find((file) => file.path === 'x.txt')).toMatchObject({
      status: 'A',
      added: 1,
      deleted: 0,
      linkToItself: 'old',
    });
    expect(renderDiff(back)).toContain('A x.txt (+1 -0, was a link to itself, mode 120000 -> 100644)');
  });

  it('in what rewind --list says changed after a prompt', async () => {
    const { root, deps } = await loopedFile();
    await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', label: 'p2', sessionId: SESSION });
    const listing = await listRewind(deps, { projectRoot: root, sessionId: SESSION });
    expect(listing.entries.map((entry) => [entry.prompt, entry.changes])).toEqual([
      ['p2', { added: 0, modified: 0, deleted: 0 }],
      ['p1', { added: 1, modified: 1, deleted: 2 }],
    ]);
  });

  it('in rewind --list two steps back, as diff says (a link to itself, then a link elsewhere, then a file)', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const deps = defaultDeps({
      env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') },
    });
    const prompt = (label: string) =>
      takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', label, sessionId: SESSION });
    symlinkSync('x', path.join(root, 'x'));
    const p1 = await prompt('p1');
    rmSync(path.join(root, 'x'));
    symlinkSync('y', path.join(root, 'x'));
    await prompt('p2');
    rmSync(path.join(root, 'x'));
    writeFileSync(path.join(root, 'x'), 'content\n');
    const diff = await diffSnapshot(deps, { projectRoot: root, snapshotId: p1.snapshot.id });
    expect(diff.files).toMatchObject([{ path: 'x', status: 'A', linkToItself: 'old' }]);
    const listing = await listRewind(deps, { projectRoot: root, sessionId: SESSION });
    expect(listing.entries.map((entry) => [entry.prompt, entry.changes])).toEqual([
      ['p2', { added: 0, modified: 1, deleted: 0 }],
      ['p1', { added: 1, modified: 0, deleted: 0 }],
    ]);
  });

  it('reads every link of a tree whose files became links with one git, and counts them right', async () => {
    // As git-annex, DVC or stow leave a tree: many files replaced by links, one of them to itself.
    const files = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f/${i}.txt`, `${i}\n`]));
    const root = createRepo({ committed: files });
    const deps = defaultDeps({
      env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') },
    });
    const first = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    for (let i = 0; i < 60; i++) {
      rmSync(path.join(root, 'f', `${i}.txt`));
      symlinkSync(i === 0 ? '0.txt' : `../annex/${i}`, path.join(root, 'f', `${i}.txt`));
    }
    const shim = gitLoggingShim(root);
    const savedPath = process.env.PATH;
    process.env.PATH = `${shim.dir}${path.delimiter}${savedPath ?? ''}`;
    process.env.TRACE_GIT_LOG = shim.log;
    try {
      const second = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      expect(second.snapshot.changes).toEqual({ added: 0, modified: 59, deleted: 1 });
      const diff = await diffSnapshot(deps, { projectRoot: root, snapshotId: first.snapshot.id });
      expect(diff.files.filter((file) => file.status === 'D').map((file) => file.path)).toEqual(['f/0.txt']);
    } finally {
      process.env.PATH = savedPath;
      delete process.env.TRACE_GIT_LOG;
    }
    // One `cat-file` for the capture's count and one for the diff, not one per link.
    expect(shim.commands().filter((line) => / cat-file /.test(line))).toHaveLength(2);
  });

  it('in diff_snapshot over MCP, structured content included', async () => {
    const root = createRepo({ committed: { 'x.txt': 'hello\n' } });
    const { call } = await connect({
      deps: { env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') } },
    });
    const taken = await call('snapshot_files', { projectRoot: root });
    const id = (taken.structured as { snapshot: { id: string } }).snapshot.id;
    rmSync(path.join(root, 'x.txt'));
    symlinkSync('x.txt', path.join(root, 'x.txt'));
    const diff = await call('diff_snapshot', { projectRoot: root, snapshotId: id });
    expect(diff.isError).toBeFalsy();
    expect(diff.structured).toMatchObject({
      files: [{ path: 'x.txt', status: 'D', added: 0, deleted: 1, linkToItself: 'new' }],
    });
    expect(diff.text).toContain('D x.txt (+0 -1, now a link to itself');
  });
});
