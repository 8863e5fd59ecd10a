import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';
import { readTree } from '../helpers/tree.js';

beforeAll(assertBuilt);

function project(committed: Record<string, string>) {
  const root = createRepo({ committed });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  const cli = async (...args: string[]) => {
    const run = await runCli([...args, '--root', root], { cwd: root, env });
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  };
  return { root, cli };
}

interface Plan {
  delete: string[];
  create: string[];
  overwrite: string[];
  replaced?: { path: string; reason: string }[];
}

// Helper task (issue 26): a restore whose plan replaces a folder that is a symbolic link in the working
// tree (or a link with a folder) listed "Delete lib" and "Create lib/a.txt", never saying that lib is a
// link, nor what becomes of it and of what it points to. Nothing outside the project may be touched.
describe('a restore that replaces a symbolic link with a folder, or a folder with a link', () => {
  it('a link out of the project where the snapshot holds a folder: the plan names the link; only the link goes, what it points to stays', async () => {
    const { root, cli } = project({ 'lib/a.txt': 'a\n', 'README.md': 'r\n' });
    const id = (await cli('snapshot', '--json')).match(/"id": "([^"]+)"/)?.[1] as string;
    const outside = tempDir('outside-');
    writeTree(outside, { 'a.txt': 'outside a\n', 'x.txt': 'outside x\n' });
    const outsideBefore = readTree(outside);
    rmSync(path.join(root, 'lib'), { recursive: true });
    symlinkSync(outside, path.join(root, 'lib'));

    const plan = JSON.parse(await cli('restore', id, '--dry-run', '--json')).plan as Plan;
    expect(plan.delete).toEqual(['lib']);
    expect(plan.create).toEqual(['lib/a.txt']);
    expect(plan.replaced).toEqual([
      {
        path: 'lib',
        reason: `a symbolic link to ${outside} now, a folder in the snapshot: the link itself is removed (not what it points to) and the folder written in its place`,
      },
    ]);
    const text = await cli('restore', id, '--dry-run');
    expect(text).toContain('Links replaced (1):');
    expect(text).toContain(`  lib: a symbolic link to ${outside} now, a folder in the snapshot`);

    const done = await cli('restore', id, '--yes', '--json');
    expect(readTree(outside)).toEqual(outsideBefore);
    expect(readTree(root)['lib/a.txt']).toMatchObject({ kind: 'file' });
    // The undo brings the link back, and still touches nothing outside.
    const undo = JSON.parse(done).undo.snapshotId as string;
    await cli('restore', undo, '--yes');
    expect(readTree(root).lib).toEqual({ kind: 'link', target: outside });
    expect(readTree(outside)).toEqual(outsideBefore);
  }, 60_000);

  // Found with the above: restoring only lib/a.txt removed the link lib, which the plan did not name,
  // and the undo (limited to lib/a.txt) did not bring it back: the link was lost.
  it('a restore of a path under the link: the plan names the link, and the undo brings it back', async () => {
    const { root, cli } = project({ 'lib/a.txt': 'a\n', 'lib/b.txt': 'b\n' });
    const id = (await cli('snapshot', '--json')).match(/"id": "([^"]+)"/)?.[1] as string;
    const outside = tempDir('outside-');
    writeTree(outside, { 'a.txt': 'outside a\n' });
    const outsideBefore = readTree(outside);
    rmSync(path.join(root, 'lib'), { recursive: true });
    symlinkSync(outside, path.join(root, 'lib'));

    const plan = JSON.parse(await cli('restore', id, 'lib/a.txt', '--dry-run', '--json')).plan as Plan;
    expect(plan).toMatchObject({ create: ['lib/a.txt'], delete: ['lib'] });
    expect(plan.replaced?.map((entry) => entry.path)).toEqual(['lib']);
    const done = JSON.parse(await cli('restore', id, 'lib/a.txt', '--yes', '--json'));
    expect(readTree(outside)).toEqual(outsideBefore);
    expect(readTree(root)['lib/a.txt']).toMatchObject({ kind: 'file' });
    expect(done.undo.paths).toEqual(['lib', 'lib/a.txt']);
    await cli('restore', done.undo.snapshotId, ...done.undo.paths, '--yes');
    expect(readTree(root).lib).toEqual({ kind: 'link', target: outside });
    expect(readTree(outside)).toEqual(outsideBefore);
  }, 60_000);

  it('a folder where the snapshot holds a link: the plan says the folder becomes a link', async () => {
    const { root, cli } = project({ 'other/o.txt': 'o\n' });
    symlinkSync('other', path.join(root, 'lib'));
    const id = (await cli('snapshot', '--json')).match(/"id": "([^"]+)"/)?.[1] as string;
    rmSync(path.join(root, 'lib'));
    mkdirSync(path.join(root, 'lib'));
    writeTree(root, { 'lib/a.txt': 'a\n' });

    const plan = JSON.parse(await cli('restore', id, '--dry-run', '--json')).plan as Plan;
    expect(plan.replaced).toEqual([
      {
        path: 'lib',
        reason:
          'a folder now, a symbolic link to other in the snapshot: the files in it are deleted (listed above) and the link written in its place',
      },
    ]);
    await cli('restore', id, '--yes');
    expect(readTree(root).lib).toEqual({ kind: 'link', target: 'other' });
    expect(readTree(root)['other/o.txt']).toMatchObject({ kind: 'file' });
  }, 60_000);

  it('a file where the snapshot holds a link, and a link where it holds a file', async () => {
    const { root, cli } = project({ 'real.txt': 'r\n', 'was-file.txt': 'f\n' });
    symlinkSync('real.txt', path.join(root, 'was-link.txt'));
    const id = (await cli('snapshot', '--json')).match(/"id": "([^"]+)"/)?.[1] as string;
    rmSync(path.join(root, 'was-link.txt'));
    writeTree(root, { 'was-link.txt': 'now a file\n' });
    rmSync(path.join(root, 'was-file.txt'));
    symlinkSync('real.txt', path.join(root, 'was-file.txt'));

    const plan = JSON.parse(await cli('restore', id, '--dry-run', '--json')).plan as Plan;
    expect(plan.replaced).toEqual([
      {
        path: 'was-file.txt',
        reason:
          'a symbolic link to real.txt now, a file in the snapshot: the link itself is replaced (not what it points to)',
      },
      { path: 'was-link.txt', reason: 'a file now, a symbolic link to real.txt in the snapshot' },
    ]);
  }, 60_000);
});
