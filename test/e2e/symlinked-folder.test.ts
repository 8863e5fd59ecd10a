import { lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// A tracked folder swapped for a symbolic link to a folder outside the project that holds the same names
// (adversarial trial, 2026-12-06): every snapshot, restore and diff failed ("'d/file' is beyond a
// symbolic link"), and the prompt hook's snapshot with them, quietly. The link is the tree's entry now;
// nothing is read, written or kept aside through it.

describe('a tracked folder replaced by a link to another folder', () => {
  const swapped = async () => {
    const root = createRepo({ committed: { 'd/file': 'ours\n', 'keep.txt': 'k\n' } });
    const outside = tempDir('link-target-');
    writeFileSync(path.join(outside, 'file'), 'not the project’s\n');
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') };
    const first = await runCli(['snapshot', '--json'], { cwd: root, env });
    expect(first.code, first.stderr).toBe(0);
    const folder: string = JSON.parse(first.stdout).snapshot.id;
    rmSync(path.join(root, 'd'), { recursive: true });
    symlinkSync(outside, path.join(root, 'd'));
    return { root, outside, env, folder };
  };
  const storeGitDir = async (root: string, env: Record<string, string>) =>
    path.join(JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout).storeDir, 'git');

  it('a snapshot holds the link, not what lies behind it', async () => {
    const { root, outside, env } = await swapped();
    const taken = await runCli(['snapshot', '--json'], { cwd: root, env });
    expect(taken.code, taken.stderr).toBe(0);
    const { snapshot } = JSON.parse(taken.stdout);
    expect(snapshot.changes).toEqual({ added: 1, modified: 0, deleted: 1 });
    const tree = git(
      root,
      '--git-dir',
      await storeGitDir(root, env),
      'ls-tree',
      '-r',
      `refs/snapshots/${snapshot.id}`,
    );
    expect(tree).toMatch(/^120000 blob [0-9a-f]+\td$/m);
    expect(tree).not.toContain('d/file');
    expect(readFileSync(path.join(outside, 'file'), 'utf8')).toBe('not the project’s\n');
  });

  it('restoring the folder and undoing it both work, and the other folder is never touched', async () => {
    const { root, outside, env, folder } = await swapped();
    const back = await runCli(['restore', folder, '--yes'], { cwd: root, env });
    expect(back.code, back.stderr).toBe(0);
    expect(lstatSync(path.join(root, 'd')).isDirectory()).toBe(true);
    expect(readFileSync(path.join(root, 'd', 'file'), 'utf8')).toBe('ours\n');
    expect(readFileSync(path.join(outside, 'file'), 'utf8')).toBe('not the project’s\n');
    const undo = /To undo: claude-checkpoint restore (\S+) --yes/.exec(back.stdout)?.[1] ?? '';
    expect((await runCli(['restore', undo, '--yes'], { cwd: root, env })).code).toBe(0);
    expect(lstatSync(path.join(root, 'd')).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(outside, 'file'), 'utf8')).toBe('not the project’s\n');
    const diff = await runCli(['diff', folder], { cwd: root, env });
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/d\/file/);
  });

  it('the prompt hook still takes its snapshot', async () => {
    const { root, env } = await swapped();
    mkdirSync(path.join(root, 'new'), { recursive: true });
    writeFileSync(path.join(root, 'new', 'x.txt'), 'x\n');
    const input = JSON.stringify({
      session_id: 's',
      cwd: root,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'go on',
    });
    const hook = await runCli(['hook', 'UserPromptSubmit'], { cwd: root, env, input });
    expect(hook.code, hook.stderr).toBe(0);
    const listed = JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout);
    expect(listed.snapshots[0].trigger).toBe('prompt');
  });
});

describe('a project store that is there but cannot be used', () => {
  it('list refuses a link in the store folder’s place, as snapshot does, instead of “no snapshots yet”', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') };
    expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
    const storeDir: string = JSON.parse(
      (await runCli(['list', '--json'], { cwd: root, env })).stdout,
    ).storeDir;
    const elsewhere = tempDir('elsewhere-');
    rmSync(storeDir, { recursive: true });
    symlinkSync(elsewhere, storeDir);
    for (const args of [['list'], ['snapshot']]) {
      const result = await runCli(args, { cwd: root, env });
      expect(result.code, `${args[0]}: ${result.stdout}`).toBe(1);
      expect(result.stderr).toMatch(/refusing to use the snapshot store .*: it is a symbolic link/);
    }
  });
});
