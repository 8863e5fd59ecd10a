import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// Safety audit of 2026-12-07, items 1 and 8: with the store inside the project (XDG_STATE_HOME there, or
// HOME with the default settings), snapshots held the store's own files; restoring the first one deleted
// the store's objects and refs (the undo then failed, the edit it should bring back was lost, every later
// snapshot failed), and `handoff push` sent the whole store, a kept-aside `.env` in it, past the secret
// gate. The store's folder is now left out of every scan of the project, wherever it lies in it.

type Env = Record<string, string>;
const settings: Array<{ name: string; env: (root: string) => Env; folder: string }> = [
  {
    name: 'XDG_STATE_HOME inside the project',
    env: (root) => ({ HOME: tempDir('home-'), XDG_STATE_HOME: path.join(root, '.state') }),
    folder: '.state/claude-checkpoint',
  },
  {
    name: 'HOME inside the project, default settings',
    env: (root) => ({ HOME: path.join(root, 'home'), XDG_STATE_HOME: '' }),
    folder: 'home/.local/state/claude-checkpoint',
  },
];

const cli = (root: string, env: Env, ...args: string[]) => runCli(args, { cwd: root, env });
const newest = async (root: string, env: Env): Promise<{ id: string; tree: string }> =>
  JSON.parse((await cli(root, env, 'list', '--json')).stdout).snapshots[0];

describe.each(settings)('the store inside the project ($name)', ({ env: envOf, folder }) => {
  it('a snapshot holds none of its files, and a restore and its undo leave the store whole', async () => {
    const root = createRepo({ committed: { 'b.txt': 'b\n', '.gitignore': 'node_modules/\n' } });
    const env = envOf(root);
    expect((await cli(root, env, 'snapshot')).code).toBe(0);
    const first = await newest(root, env);
    appendFileSync(path.join(root, 'b.txt'), 'edit to keep\n');
    expect((await cli(root, env, 'snapshot')).code).toBe(0);
    const storeDir: string = JSON.parse((await cli(root, env, 'list', '--json')).stdout).storeDir;
    expect(path.relative(root, storeDir).split(path.sep).join('/')).toMatch(
      new RegExp(`^${folder}/projects/`),
    );
    const held = git(root, '--git-dir', path.join(storeDir, 'git'), 'ls-tree', '-r', '--name-only', 'HEAD');
    expect(held.split('\n').filter((file) => file.startsWith(folder.split('/')[0] as string))).toEqual([]);

    const restored = await cli(root, env, 'restore', first.id, '--yes');
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).not.toContain(folder);
    expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('b\n');
    const listed = JSON.parse((await cli(root, env, 'list', '--json')).stdout).snapshots;
    expect(listed.map((snapshot: { id: string }) => snapshot.id)).toContain(first.id);
    const undoId = /To undo: claude-checkpoint restore (\S+) --yes/.exec(restored.stdout)?.[1] ?? '';
    const undo = await cli(root, env, 'restore', undoId, '--yes');
    expect(undo.code, undo.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('b\nedit to keep\n');
    const later = await cli(root, env, 'snapshot');
    expect(later.code, later.stderr).toBe(0);
  });

  it('doctor says where the store is, and that it is left out', async () => {
    const root = createRepo({ committed: { 'b.txt': 'b\n' } });
    const env = envOf(root);
    expect((await cli(root, env, 'snapshot')).code).toBe(0);
    const doctor = await cli(root, env, 'doctor');
    expect(doctor.stdout).toContain(`inside this project at ${folder}/`);
  });
});

describe('handoff push with the store inside the project', () => {
  it('sends none of the store’s files: a kept-aside .env in it never reaches the remote', async () => {
    const remote = tempDir('remote-');
    git(remote, 'init', '-q', '--bare');
    const root = createRepo({ committed: { 'b.txt': 'b\n', '.gitignore': 'node_modules/\n' } });
    const env = { HOME: tempDir('home-'), XDG_STATE_HOME: path.join(root, '.state') };
    git(root, 'remote', 'add', 'origin', remote);
    git(root, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
    writeFileSync(path.join(root, '.env'), 'API=placeholder\n');
    expect((await cli(root, env, 'snapshot')).code).toBe(0);
    const withEnv = await newest(root, env);
    appendFileSync(path.join(root, '.gitignore'), '.env\n');
    git(root, 'commit', '-qam', 'ignore .env');
    writeFileSync(
      path.join(root, '.env'),
      'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9Kq3Lm2P\n',
    );
    expect((await cli(root, env, 'restore', withEnv.id, '.env', '--yes')).code).toBe(0);
    const pushed = await cli(root, env, 'handoff', 'push', '--name', 'leak');
    expect(pushed.code, pushed.stderr).toBe(0);
    const files = git(remote, 'ls-tree', '-r', '--name-only', 'refs/claude-checkpoint/handoff/leak');
    expect(files.split('\n').filter((file) => file.startsWith('.state'))).toEqual([]);
  });
});

describe('a project inside the store', () => {
  it('is refused before anything is written: its snapshots would hold the store itself', async () => {
    const base = tempDir('checkpoint-store-');
    const root = path.join(base, 'work');
    mkdirSync(root);
    git(root, 'init', '-q');
    writeFileSync(path.join(root, 'a.txt'), 'a\n');
    const result = await cli(root, { HOME: tempDir('home-'), CHECKPOINT_STORE_DIR: base }, 'snapshot');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/lies inside the snapshot store/);
    expect(existsSync(path.join(base, 'projects'))).toBe(false);
  });
});

// Brief h-left, item 2: the user's configuration folder (settings and redaction patterns) inside the
// project (XDG_CONFIG_HOME there, or HOME) was snapshotted as the user's files: a restore rolled the
// user's settings back, and a handoff pushed them. It is left out as the store is.
describe.each([
  {
    name: 'XDG_CONFIG_HOME inside the project',
    env: (root: string): Env => ({ HOME: tempDir('home-'), XDG_CONFIG_HOME: path.join(root, '.cfg') }),
    folder: '.cfg/claude-checkpoint',
  },
  {
    name: 'HOME inside the project, default settings',
    env: (root: string): Env => ({ HOME: path.join(root, 'home'), XDG_STATE_HOME: '', XDG_CONFIG_HOME: '' }),
    folder: 'home/.config/claude-checkpoint',
  },
])('the user’s configuration folder inside the project ($name)', ({ env: envOf, folder }) => {
  it('no snapshot, restore, checkpoint or handoff holds it; the project’s files beside it are held', async () => {
    const remote = tempDir('remote-');
    git(remote, 'init', '-q', '--bare');
    const root = createRepo({ committed: { 'b.txt': 'b\n' } });
    git(root, 'remote', 'add', 'origin', remote);
    git(root, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
    const env = envOf(root);
    const config = path.join(root, folder);
    mkdirSync(config, { recursive: true });
    const settingsFile = path.join(config, 'config.json');
    writeFileSync(settingsFile, '{ "snapshotMaxCount": 50 }\n');
    writeFileSync(path.join(config, 'redaction.json'), '{ "patterns": ["INT-[0-9]{6}"] }\n');
    // Another tool's settings beside ours are the user's files: still held.
    const beside = path.join(path.dirname(config), 'other-tool.json');
    writeFileSync(beside, '{}\n');
    expect((await cli(root, env, 'snapshot')).code).toBe(0);
    const first = await newest(root, env);
    const storeDir: string = JSON.parse((await cli(root, env, 'list', '--json')).stdout).storeDir;
    const held = git(root, '--git-dir', path.join(storeDir, 'git'), 'ls-tree', '-r', '--name-only', 'HEAD');
    expect(held.split('\n').filter((file) => file.startsWith(`${folder}/`))).toEqual([]);
    expect(held.split('\n')).toContain(path.relative(root, beside));

    // The settings changed since the snapshot: restoring it leaves them as they are now.
    writeFileSync(settingsFile, '{ "snapshotMaxCount": 60 }\n');
    appendFileSync(path.join(root, 'b.txt'), 'edit\n');
    const restored = await cli(root, env, 'restore', first.id, '--yes');
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('b\n');
    expect(readFileSync(settingsFile, 'utf8')).toBe('{ "snapshotMaxCount": 60 }\n');
    expect(existsSync(path.join(config, 'redaction.json'))).toBe(true);

    expect((await cli(root, env, 'save', '--goal', 'config inside')).code).toBe(0);
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).not.toContain(folder);
    const pushed = await cli(root, env, 'handoff', 'push', '--name', 'config');
    expect(pushed.code, pushed.stderr).toBe(0);
    const files = git(remote, 'ls-tree', '-r', '--name-only', 'refs/claude-checkpoint/handoff/config');
    expect(files.split('\n').filter((file) => file.startsWith(`${folder}/`))).toEqual([]);
    const doctor = await cli(root, env, 'doctor');
    expect(doctor.stdout).toContain(`your settings folder lies inside this project at ${folder}/`);
  });
});
