import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';
import { bareRemote, cli, machine } from '../helpers/handoff.js';
import { filesIn, storeGitDir } from '../helpers/store.js';

beforeAll(assertBuilt);

function project(options: Parameters<typeof createRepo>[0] = { committed: { 'a.js': 'a\n' } }) {
  const root = createRepo(options);
  const store = tempDir('checkpoint-store-');
  const env = { CHECKPOINT_STORE_DIR: store };
  const run = (...args: string[]) => runCli([...args, '--root', root], { cwd: root, env });
  /** Takes a snapshot and returns the files it holds. */
  const snapshot = async (): Promise<string[]> => {
    const taken = await run('snapshot', '--json');
    expect(taken.stderr).toBe('');
    expect(taken.code).toBe(0);
    return filesIn(store, (JSON.parse(taken.stdout) as { snapshot: { id: string } }).snapshot.id);
  };
  return { root, store, env, run, snapshot };
}

describe('a file git ignores never enters a snapshot (trial report, item 5)', () => {
  it('ignored after a capture that recorded nothing (a restore’s dry run): the next snapshot leaves it out', async () => {
    const p = project();
    writeTree(p.root, { '.env': 'A=1\n' });
    expect(await p.snapshot()).toContain('.env');
    appendFileSync(path.join(p.root, '.gitignore'), '.env\n');
    writeFileSync(path.join(p.root, '.env'), 'DB_PASSWORD=hunter2\n');
    // The dry run brings the private index up to date (it drops .env) but records no snapshot.
    expect((await p.run('restore', 'latest', '--dry-run')).code).toBe(0);

    expect(await p.snapshot()).not.toContain('.env');
    expect(await p.snapshot()).not.toContain('.env');
  });
});

describe('every rule git applies keeps a file out, wherever it is written (trial report, item 5: siblings)', () => {
  it('the repository’s info/exclude, for a linked worktree (its .git is a file)', async () => {
    const main = createRepo({ committed: { 'a.js': 'a\n' } });
    writeFileSync(path.join(main, '.git', 'info', 'exclude'), '.env\n');
    const linked = path.join(tempDir('checkpoint-worktree-'), 'linked');
    git(main, 'worktree', 'add', '-q', linked);
    writeTree(linked, { '.env': 'DB_PASSWORD=hunter2\n', 'b.js': 'b\n' });
    expect(git(linked, 'status', '--porcelain', '--untracked-files=all')).toBe('?? b.js\n');
    const store = tempDir('checkpoint-store-');
    const taken = await runCli(['snapshot', '--json'], { cwd: linked, env: { CHECKPOINT_STORE_DIR: store } });
    expect(taken.code, taken.stderr).toBe(0);
    const files = filesIn(store, JSON.parse(taken.stdout).snapshot.id);
    expect(files).toContain('b.js');
    expect(files).not.toContain('.env');
  });

  it('the repository’s info/exclude, for a submodule (its .git is a file naming .git/modules/…)', async () => {
    const library = createRepo({ committed: { 'lib.js': 'lib\n' } });
    const top = createRepo({ committed: { 'a.js': 'a\n' } });
    git(top, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'lib');
    const sub = path.join(top, 'lib');
    writeFileSync(path.join(top, '.git', 'modules', 'lib', 'info', 'exclude'), '.env\n');
    writeTree(sub, { '.env': 'DB_PASSWORD=hunter2\n' });
    expect(git(sub, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    const store = tempDir('checkpoint-store-');
    const taken = await runCli(['snapshot', '--json'], { cwd: sub, env: { CHECKPOINT_STORE_DIR: store } });
    expect(taken.code, taken.stderr).toBe(0);
    expect(filesIn(store, JSON.parse(taken.stdout).snapshot.id)).toEqual(['.gitignore', 'lib.js']);
  });

  it('an excludes file the project’s own config names, set before the first snapshot or after one', async () => {
    const p = project();
    const rules = path.join(tempDir('checkpoint-rules-'), 'ignores');
    writeFileSync(rules, '.env\n');
    writeTree(p.root, { '.env': 'A=1\n', 'local.cfg': 'mine\n' });
    git(p.root, 'config', 'core.excludesFile', rules);
    expect(await p.snapshot()).toEqual(['.gitignore', 'a.js', 'local.cfg']);
    // A file added to it later, then the config pointed elsewhere: each applies on the next snapshot.
    appendFileSync(rules, 'local.cfg\n');
    writeFileSync(path.join(p.root, 'local.cfg'), 'TOKEN=x\n');
    expect(await p.snapshot()).toEqual(['.gitignore', 'a.js']);
    const other = path.join(tempDir('checkpoint-rules-'), 'other');
    writeFileSync(other, 'a.js\n');
    git(p.root, 'config', 'core.excludesFile', other);
    writeFileSync(path.join(p.root, 'a.js'), 'changed\n');
    expect(await p.snapshot()).toEqual(['.env', '.gitignore', 'a.js', 'local.cfg']);
  });

  it('a .gitignore that ignores itself (`*`, as tool caches write it), written after its folder was snapshotted', async () => {
    const p = project();
    writeTree(p.root, { 'out/report.txt': 'draft\n' });
    expect(await p.snapshot()).toContain('out/report.txt');
    writeTree(p.root, { 'out/.gitignore': '*\n', 'out/report.txt': 'TOKEN=my-private-value\n' });
    expect(git(p.root, 'status', '--porcelain', '--untracked-files=all')).toBe('');

    expect(await p.snapshot()).toEqual(['.gitignore', 'a.js']);
  });

  it('a top .gitignore the repository ignores (in info/exclude), edited to ignore .env', async () => {
    const p = project();
    git(p.root, 'rm', '-q', '--cached', '.gitignore');
    git(p.root, 'commit', '-q', '-m', 'no .gitignore');
    writeFileSync(path.join(p.root, '.gitignore'), '');
    writeFileSync(path.join(p.root, '.git', 'info', 'exclude'), '.gitignore\n');
    writeTree(p.root, { '.env': 'A=1\n' });
    expect(await p.snapshot()).toEqual(['.env', 'a.js']);
    writeFileSync(path.join(p.root, '.gitignore'), '.env\n');
    writeFileSync(path.join(p.root, '.env'), 'DB_PASSWORD=hunter2\n');

    expect(await p.snapshot()).toEqual(['a.js']);
  });

  it('a .gitignore replaced by a symbolic link, which git does not read: snapshots hold what git sees', async () => {
    const p = project({ committed: { 'a.js': 'a\n' }, ignore: '.env\n' });
    writeTree(p.root, { '.env': 'A=1\n', rules: '.env\n' });
    expect(await p.snapshot()).toEqual(['.gitignore', 'a.js', 'rules']);
    rmSync(path.join(p.root, '.gitignore'));
    symlinkSync('rules', path.join(p.root, '.gitignore'));
    expect(git(p.root, 'status', '--porcelain', '--untracked-files=all')).toContain('?? .env');
    expect(await p.snapshot()).toEqual(['.env', '.gitignore', 'a.js', 'rules']);
    // A file again: .env is ignored, and leaves.
    rmSync(path.join(p.root, '.gitignore'));
    writeFileSync(path.join(p.root, '.gitignore'), '.env\n');
    expect(await p.snapshot()).toEqual(['.gitignore', 'a.js', 'rules']);
  });
});

describe('files over the size cap, after a capture that recorded nothing', () => {
  it('a file grown over the cap before a restore’s dry run is listed as skipped by the next snapshot, not counted deleted', async () => {
    const root = createRepo({ committed: { 'a.js': 'a\n', 'data.bin': 'small\n' } });
    const env = {
      CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
      CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '0.001',
    };
    const run = (...args: string[]) => runCli([...args, '--root', root], { cwd: root, env });
    expect((await run('snapshot')).code).toBe(0);
    writeFileSync(path.join(root, 'data.bin'), 'y'.repeat(5000));
    expect((await run('restore', 'latest', '--dry-run')).code).toBe(0);

    const next = JSON.parse((await run('snapshot', '--json')).stdout).snapshot;
    expect(next.changes).toEqual({ added: 0, modified: 0, deleted: 0 });
    expect(next.skipped.large).toEqual([expect.objectContaining({ path: 'data.bin', bytes: 5000 })]);
  });
});

describe('a store that took an ignored file in before the fix', () => {
  it('has its index checked against the ignore rules once: the ignored file leaves the next snapshot', async () => {
    const p = project({ committed: { 'a.js': 'a\n' }, ignore: '.claude-checkpoint*\n.env\n' });
    writeTree(p.root, { '.env': 'DB_PASSWORD=hunter2\n' });
    expect(await p.snapshot()).not.toContain('.env');
    // As the bug left it: the private index holds .env, and nothing in the tree says the rules changed.
    const storeGit = (...args: string[]) =>
      execFileSync('git', ['--git-dir', storeGitDir(p.store), '--work-tree', p.root, ...args]);
    storeGit('update-index', '--add', '--', '.env');
    const statePath = path.join(path.dirname(storeGitDir(p.store)), 'state.json');
    const { ignoreCheck: _checked, index: _index, ...older } = JSON.parse(readFileSync(statePath, 'utf8'));
    writeFileSync(statePath, JSON.stringify(older));

    expect(await p.snapshot()).not.toContain('.env');
    writeFileSync(path.join(p.root, 'a.js'), 'b\n');
    expect(await p.snapshot()).not.toContain('.env');
  });
});

describe('the trial’s steps: a handoff pull, its undo, then another pull (trial report, item 5)', () => {
  it('the second pull’s undo snapshot does not hold the ignored .env, and its plan refuses nothing', async () => {
    const { bare } = bareRemote();
    const d = machine(bare, 'Dana');
    const c = machine(bare, 'Carl');
    appendFileSync(path.join(c.root, '.gitignore'), '.env\n');
    git(c.root, 'commit', '-q', '-am', 'ignore .env');
    git(c.root, 'push', '-q', 'origin', 'main');
    git(d.root, 'pull', '-q', 'origin', 'main');
    writeFileSync(path.join(c.root, '.env'), 'DB_PASSWORD=hunter2\n');
    // D: an unpushed commit; .env no longer ignored there, and pushed in the handoff; then back.
    writeTree(d.root, { 'c3.txt': 'c3\n' });
    git(d.root, 'add', 'c3.txt');
    git(d.root, 'commit', '-q', '-m', 'c3');
    writeFileSync(path.join(d.root, '.gitignore'), '.claude-checkpoint*\n*.log\n');
    writeFileSync(path.join(d.root, '.env'), 'API_KEY=changeme\n');
    expect((await cli(d, 'handoff', 'push', '--name', 'envx')).code).toBe(0);
    git(d.root, 'checkout', '--', '.gitignore');
    rmSync(path.join(d.root, '.env'));
    writeTree(d.root, { 'README.md': '# Project, edited\n' });
    expect((await cli(d, 'handoff', 'push', '--name', 'r5')).code).toBe(0);

    const first = await cli(c, 'handoff', 'pull', '--name', 'envx', '--checkout', '--yes', '--json');
    expect(first.code, first.stderr).toBe(0);
    const undone = await cli(c, 'restore', JSON.parse(first.stdout).undo, '--yes');
    expect(undone.code, undone.stderr).toBe(0);
    git(c.root, 'switch', '-q', 'main');
    git(c.root, 'reset', '-q', '--hard');
    git(c.root, 'clean', '-q', '-fd');
    const second = await cli(c, 'handoff', 'pull', '--name', 'r5', '--checkout', '--yes');
    expect(second.code, second.stderr).toBe(0);

    expect(second.stdout).not.toContain('Refused');
    const undo = /restore (\S+) --yes/.exec(second.stdout)?.[1] ?? '';
    expect(filesIn(c.env.CHECKPOINT_STORE_DIR as string, undo)).not.toContain('.env');
    const plan = await cli(c, 'restore', undo, '--dry-run');
    expect(plan.stdout).not.toContain('Refused');
  }, 120_000);
});
