import { mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { quotePath } from '../../src/core/quote.js';
import { storeSizeBytes } from '../../src/store/store-size.js';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { commitAll, createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';
import { bareRemote, cli, machine } from '../helpers/handoff.js';

beforeAll(assertBuilt);

/**
 * The store borrows the project's objects (objects/info/alternates) until its first day is over: what
 * the user does to their own history meanwhile (a reset and a prune, `git filter-repo` after a leaked
 * secret) must cost at most the snapshots whose content they deleted, and gc must never grow the store.
 */

/** The user prunes their history: the commit a snapshot borrows from is gone for good. */
function pruneLastCommit(root: string): void {
  git(root, 'reset', '-q', '--hard', 'HEAD~1');
  git(root, 'reflog', 'expire', '--expire=now', '--all');
  git(root, 'gc', '-q', '--prune=now');
}

function projectStore(storeBase: string): string {
  const projects = readdirSync(path.join(storeBase, 'projects'));
  return path.join(storeBase, 'projects', projects[0] ?? '');
}

describe('a store that borrows, after the user prunes the history it borrows from', () => {
  it('restoring the pruned snapshot fails clearly and changes nothing; new snapshots, diff, hooks and gc work', async () => {
    const root = createRepo({ committed: { 'base.txt': 'base\n' } });
    writeTree(root, { 'c.txt': 'c\n' });
    commitAll(root, 'c');
    const env = { CHECKPOINT_STORE_DIR: tempDir('borrow-store-') };
    const run = (...args: string[]) => runCli(args, { cwd: root, env });
    const first = await run('snapshot', '--json');
    expect(first.code, first.stderr).toBe(0);
    const pruned = JSON.parse(first.stdout).snapshot.id as string;
    pruneLastCommit(root);

    const restore = await run('restore', pruned, '--yes');
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain(`snapshot ${pruned}`);
    expect(restore.stderr).toMatch(/can no longer be restored: .*history was pruned/);
    expect(restore.stderr).not.toMatch(/git status failed|bad tree object/);
    // Nothing changed: the tree is as the reset left it, and no safety snapshot was recorded.
    expect(readdirSync(root).sort()).toEqual(['.git', '.gitignore', 'base.txt']);
    expect(JSON.parse((await run('list', '--json')).stdout).snapshots).toHaveLength(1);
    const diff = await run('diff', pruned);
    expect(diff.code).toBe(1);
    expect(diff.stderr).toMatch(/can no longer be restored: .*history was pruned/);
    // With a path too (it gave git's "fatal: not a tree object"), as a plan and applied.
    for (const args of [
      ['restore', pruned, 'c.txt'],
      ['restore', pruned, 'c.txt', '--yes'],
      ['restore', pruned, 'no/such.txt', '--yes'],
      ['diff', pruned, 'c.txt'],
    ]) {
      const given = await run(...args);
      expect(given.code, args.join(' ')).toBe(1);
      expect(given.stderr).toMatch(/can no longer be restored: .*history was pruned/);
      expect(given.stderr).not.toMatch(/git \S+ failed|fatal:/);
    }
    expect(readdirSync(root).sort()).toEqual(['.git', '.gitignore', 'base.txt']);

    // New snapshots work, and so do a diff and a restore of them: first of the tree as the reset left it.
    const unchanged = await run('snapshot', '--json');
    expect(unchanged.code, unchanged.stderr).toBe(0);
    const afterReset = JSON.parse(unchanged.stdout).snapshot.id as string;
    expect(afterReset).not.toBe(pruned);
    const clean = await run('diff', afterReset);
    expect(clean.code, clean.stderr).toBe(0);
    writeTree(root, { 'new.txt': 'new\n' });
    const second = await run('snapshot', '--json');
    expect(second.code, second.stderr).toBe(0);
    const kept = JSON.parse(second.stdout).snapshot.id as string;
    const hook = await runCli(['hook', 'UserPromptSubmit'], {
      cwd: root,
      env,
      input: JSON.stringify({
        session_id: 's1',
        cwd: root,
        prompt: 'go on',
        hook_event_name: 'UserPromptSubmit',
      }),
    });
    expect(hook.stderr).toBe('');
    const listed = JSON.parse((await run('list', '--json')).stdout).snapshots;
    expect(listed.map((snapshot: { trigger: string }) => snapshot.trigger)).toEqual([
      'prompt',
      'manual',
      'manual',
      'manual',
    ]);
    writeTree(root, { 'new.txt': 'changed\n' });
    expect((await run('diff', kept)).stdout).toContain('new.txt');

    // gc works: it removes what can no longer be restored, says so, and stops borrowing.
    const gc = await run('gc', '--json');
    expect(gc.code, gc.stderr).toBe(0);
    expect(JSON.parse(gc.stdout).damaged).toEqual([pruned]);
    expect(
      readdirSync(path.join(projectStore(env.CHECKPOINT_STORE_DIR), 'git', 'objects', 'info')),
    ).not.toContain('alternates');
    const restored = await run('restore', kept, '--yes');
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'new.txt'), 'utf8')).toBe('new\n');
    expect((await run('gc')).code).toBe(0);
  }, 120_000);

  it('before any snapshot: gc repairs the store whose master the user pruned (bad object refs/heads/master)', async () => {
    const root = createRepo({ committed: { 'base.txt': 'base\n' } });
    writeTree(root, { 'c.txt': 'c\n' });
    commitAll(root, 'c');
    const env = { CHECKPOINT_STORE_DIR: tempDir('borrow-store-') };
    const run = (...args: string[]) => runCli(args, { cwd: root, env });
    // Sets the store up (its master at the project's HEAD, borrowed) without taking a snapshot.
    const restore = await run('restore', 'latest', '--yes');
    expect(restore.stderr).toContain('no snapshots');
    expect(readdirSync(projectStore(env.CHECKPOINT_STORE_DIR))).toContain('git');
    pruneLastCommit(root);

    const gc = await run('gc', '--json');
    expect(gc.code, gc.stderr).toBe(0);
    expect(JSON.parse(gc.stdout).damaged).toEqual([]);
    expect(
      readdirSync(path.join(projectStore(env.CHECKPOINT_STORE_DIR), 'git', 'objects', 'info')),
    ).not.toContain('alternates');
    const again = await run('gc');
    expect(again.code, again.stderr).toBe(0);
    writeTree(root, { 'new.txt': 'new\n' });
    const snapshot = await run('snapshot', '--json');
    expect(snapshot.code, snapshot.stderr).toBe(0);
    rmSync(path.join(root, 'new.txt'));
    const restored = await run('restore', 'latest', '--yes');
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'new.txt'), 'utf8')).toBe('new\n');
  }, 120_000);

  it('rewind --list leaves out a prompt whose content was pruned, and lists the others', async () => {
    const root = createRepo({ committed: { 'base.txt': 'base\n' } });
    writeTree(root, { 'c.txt': 'c\n' });
    commitAll(root, 'c');
    const env = { CHECKPOINT_STORE_DIR: tempDir('borrow-store-') };
    const prompt = (text: string) =>
      runCli(['hook', 'UserPromptSubmit'], {
        cwd: root,
        env,
        input: JSON.stringify({
          session_id: 's1',
          cwd: root,
          prompt: text,
          hook_event_name: 'UserPromptSubmit',
        }),
      });
    expect((await prompt('one')).stderr).toBe('');
    const rewind = (...args: string[]) => runCli(['rewind', ...args, '--session', 's1'], { cwd: root, env });
    const one = JSON.parse((await rewind('--list', '--json')).stdout).entries[0].id as string;
    pruneLastCommit(root);
    expect((await prompt('two')).stderr).toBe('');
    writeTree(root, { 'd.txt': 'd\n' });
    const listed = await rewind('--list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).entries).toMatchObject([
      { prompt: 'two', changes: { added: 1, modified: 0, deleted: 0 } },
    ]);
    // Going back to it by its id fails clearly in every mode (--conversation crashed on an entry it lacked).
    for (const mode of ['--code', '--conversation', '--both'])
      for (const how of ['--yes', '--dry-run']) {
        const given = await rewind(one, mode, how);
        expect(given.code, `${mode} ${how}: ${given.stderr}`).toBe(1);
        expect(given.stderr).toMatch(/can no longer be restored: .*history was pruned/);
      }
    expect(readdirSync(root).sort()).toEqual(['.git', '.gitignore', 'base.txt', 'd.txt']);
  }, 120_000);

  it('a blob the private index borrowed, pruned while the file stays: the next snapshot reads it again', async () => {
    const root = createRepo({ committed: { 'base.txt': 'base\n', 'c.txt': 'c\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('borrow-store-') };
    const run = (...args: string[]) => runCli(args, { cwd: root, env });
    expect((await run('snapshot')).code).toBe(0);
    // c.txt stays on disk, unchanged, but no commit of the project holds its content any more.
    git(root, 'rm', '-q', '--cached', 'c.txt');
    git(root, 'commit', '-q', '--amend', '-m', 'c untracked');
    git(root, 'reflog', 'expire', '--expire=now', '--all');
    git(root, 'gc', '-q', '--prune=now');
    writeTree(root, { 'base.txt': 'base2\n' });
    const snapshot = await run('snapshot', '--json');
    expect(snapshot.code, snapshot.stderr).toBe(0);
    writeTree(root, { 'c.txt': 'later\n' });
    const restored = await run('restore', 'latest', '--yes');
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'c.txt'), 'utf8')).toBe('c\n');
    expect(readFileSync(path.join(root, 'base.txt'), 'utf8')).toBe('base2\n');
    expect((await run('gc')).code).toBe(0);
  }, 120_000);
});

describe('gc --all after the user pruned a project whose folder name holds control characters', () => {
  it('quotes the folder in the line naming the damaged snapshots, as in the line above it', async () => {
    // A tab and an escape sequence (a newline would stop the store from borrowing at all).
    const root = path.join(tempDir('borrow-parent-'), 'my\t\u001b[31mproject');
    mkdirSync(root);
    git(root, 'init', '-q', '-b', 'main');
    writeTree(root, { '.gitignore': '.claude-checkpoint*\n', 'base.txt': 'base\n' });
    commitAll(root, 'initial');
    writeTree(root, { 'c.txt': 'c\n' });
    commitAll(root, 'c');
    const env = { CHECKPOINT_STORE_DIR: tempDir('borrow-store-') };
    const first = await runCli(['snapshot', '--json'], { cwd: root, env });
    expect(first.code, first.stderr).toBe(0);
    const pruned = JSON.parse(first.stdout).snapshot.id as string;
    pruneLastCommit(root);

    const gc = await runCli(['gc', '--all'], { cwd: root, env });
    expect(gc.code, gc.stderr).toBe(0);
    const quoted = quotePath(root);
    expect(quoted).not.toBe(root);
    expect(gc.stdout).toContain(`${quoted}: removed 1 snapshot(s) whose content was pruned`);
    expect(gc.stdout).toContain(pruned);
    expect(gc.stdout).not.toContain(root);
  }, 120_000);
});

describe('gc never grows the store', () => {
  it('in a git project with small snapshots (issue 26: 3.1 KB became 4.2 KB)', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('borrow-store-') };
    const run = (...args: string[]) => runCli(args, { cwd: root, env });
    writeTree(root, { 'a.txt': 'a\nx\n' });
    expect((await run('snapshot')).code).toBe(0);
    writeTree(root, { 'a.txt': 'a\nx\ny\n' });
    expect((await run('snapshot')).code).toBe(0);
    const gc = await run('gc', '--json');
    expect(gc.code, gc.stderr).toBe(0);
    const { beforeBytes, afterBytes, copiedBytes } = JSON.parse(gc.stdout);
    // The one object still borrowed (.gitignore's content, a few dozen bytes) is the only growth allowed.
    expect(copiedBytes).toBeLessThan(100);
    expect(afterBytes).toBeLessThanOrEqual(beforeBytes + copiedBytes);
    // It stopped borrowing all the same, and what it kept restores without the project's objects.
    const store = projectStore(env.CHECKPOINT_STORE_DIR);
    expect(readdirSync(path.join(store, 'git', 'objects', 'info'))).not.toContain('alternates');
    git(root, 'commit', '-q', '-am', 'moved on');
    writeTree(root, { 'a.txt': 'other\n' });
    git(root, 'commit', '-q', '--amend', '-am', 'moved on');
    git(root, 'reflog', 'expire', '--expire=now', '--all');
    git(root, 'gc', '-q', '--prune=now');
    expect((await run('restore', 'latest', '--yes')).code).toBe(0);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\nx\ny\n');
  }, 120_000);

  it('when it copies many borrowed objects in (one pack of their own), it grows by no more than those', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 100; i++) files[`src/f${i}.txt`] = `file ${i}\n`;
    const root = createRepo({ committed: files });
    const env = { CHECKPOINT_STORE_DIR: tempDir('borrow-store-') };
    const run = (...args: string[]) => runCli(args, { cwd: root, env });
    writeTree(root, { 'src/f0.txt': 'changed\n' });
    expect((await run('snapshot')).code).toBe(0);
    const gc = await run('gc', '--json');
    expect(gc.code, gc.stderr).toBe(0);
    const { beforeBytes, afterBytes, copiedBytes } = JSON.parse(gc.stdout);
    expect(copiedBytes).toBeGreaterThan(0);
    expect(afterBytes).toBeLessThanOrEqual(beforeBytes + copiedBytes);
    // The project's objects are no longer needed.
    rmSync(path.join(root, '.git'), { recursive: true, force: true });
    writeTree(root, { 'src/f1.txt': 'edited\n' });
    const restored = await run('restore', 'latest', '--yes');
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'src/f1.txt'), 'utf8')).toBe('file 1\n');
  }, 120_000);

  it('after a handoff pull', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    writeTree(a.root, { 'src/app.ts': 'from A\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'grow')).code).toBe(0);
    const b = machine(`file://${bare}`, 'Bob');
    const pull = await cli(b, 'handoff', 'pull', '--name', 'grow', '--yes');
    expect(pull.code, pull.stderr).toBe(0);
    const gc = await cli(b, 'gc', '--json');
    expect(gc.code, gc.stderr).toBe(0);
    const { beforeBytes, afterBytes, copiedBytes } = JSON.parse(gc.stdout);
    expect(afterBytes).toBeLessThanOrEqual(beforeBytes + copiedBytes);
    // And once it borrows no more, never again.
    const again = JSON.parse((await cli(b, 'gc', '--json')).stdout);
    expect(again.copiedBytes).toBe(0);
    expect(again.afterBytes).toBeLessThanOrEqual(again.beforeBytes);
  }, 120_000);
});

describe('gc measures the store', () => {
  it('once before and once after: two walks of the store folder, not three', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('borrow-store-') };
    writeTree(root, { 'a.txt': 'a\nx\n' });
    expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
    // Each folder the CLI lists, written down by a preload; a walk of the store lists its top folder once.
    const dir = tempDir('gc-walks-');
    const log = path.join(dir, 'readdir.log');
    const preload = path.join(dir, 'log-readdir.cjs');
    writeFileSync(log, '');
    writeFileSync(
      preload,
      [
        "const fsp = require('node:fs/promises');",
        "const fs = require('node:fs');",
        'const readdir = fsp.readdir;',
        `fsp.readdir = (dir, ...rest) => (fs.appendFileSync(${JSON.stringify(log)}, \`\${dir}\\n\`), readdir(dir, ...rest));`,
      ].join('\n'),
    );
    const gc = await runCli(['gc', '--json'], {
      cwd: root,
      env: { ...env, NODE_OPTIONS: `--require ${preload}` },
    });
    expect(gc.code, gc.stderr).toBe(0);
    const store = projectStore(env.CHECKPOINT_STORE_DIR);
    const walks = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line === store);
    expect(walks).toHaveLength(2);
  }, 120_000);
});

describe("a store under the user's init.defaultBranch = main", () => {
  it('has its HEAD at refs/heads/master, where every snapshot moves it (it stayed unborn on main)', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    // A HOME of the test's own: never the machine's config.
    const home = tempDir('default-branch-home-');
    writeFileSync(path.join(home, '.gitconfig'), '[init]\n\tdefaultBranch = main\n');
    const env = { CHECKPOINT_STORE_DIR: tempDir('borrow-store-'), HOME: home };
    const run = (...args: string[]) => runCli(args, { cwd: root, env });
    const gitDir = () => path.join(projectStore(env.CHECKPOINT_STORE_DIR), 'git');
    const storeHead = () => git(root, '--git-dir', gitDir(), 'rev-parse', '--verify', '-q', 'HEAD').trim();
    writeTree(root, { 'a.txt': 'a\nx\n' });
    expect((await run('snapshot')).code).toBe(0);
    expect(readFileSync(path.join(gitDir(), 'HEAD'), 'utf8')).toBe('ref: refs/heads/master\n');
    const master = git(root, '--git-dir', gitDir(), 'rev-parse', 'refs/heads/master').trim();
    expect(storeHead()).toBe(master);
    // The counts come from a status against HEAD: against nothing, every file counted as added.
    writeTree(root, { 'a.txt': 'a\nx\nz\n', 'b.txt': 'b\n' });
    const counted = await run('snapshot', '--json');
    expect(JSON.parse(counted.stdout).snapshot.changes).toEqual({ added: 1, modified: 1, deleted: 0 });

    // A store an earlier version set up there (HEAD on main) is put right by the next call.
    git(root, '--git-dir', gitDir(), 'symbolic-ref', 'HEAD', 'refs/heads/main');
    writeTree(root, { 'a.txt': 'a\nx\ny\n' });
    expect((await run('snapshot')).code).toBe(0);
    expect(readFileSync(path.join(gitDir(), 'HEAD'), 'utf8')).toBe('ref: refs/heads/master\n');
    expect(storeHead()).toBe(git(root, '--git-dir', gitDir(), 'rev-parse', 'refs/heads/master').trim());
    expect(storeHead()).not.toBe(master);
    writeTree(root, { 'a.txt': 'a\n' });
    const again = await run('snapshot', '--json');
    expect(JSON.parse(again.stdout).snapshot.changes).toEqual({ added: 0, modified: 1, deleted: 0 });
  }, 120_000);
});

describe('the store size after a handoff pull', () => {
  it('is an upper bound, as between every gc (issue 26: 1.0 KB said, 3.8 KB there)', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    writeTree(a.root, { 'src/app.ts': 'from A\n', 'src/more.ts': 'x'.repeat(5000) });
    expect((await cli(a, 'handoff', 'push', '--name', 'size')).code).toBe(0);
    const b = machine(`file://${bare}`, 'Bob');
    const pull = await cli(b, 'handoff', 'pull', '--name', 'size', '--yes');
    expect(pull.code, pull.stderr).toBe(0);
    const status = await cli(b, 'status', '--json');
    expect(status.code, status.stderr).toBe(0);
    const reported = JSON.parse(status.stdout).snapshots.storeBytes as number;
    const store = projectStore(b.env.CHECKPOINT_STORE_DIR ?? '');
    expect(reported).toBeGreaterThanOrEqual(await storeSizeBytes(store, path.join(store, 'lock')));
    const list = await cli(b, 'list', '--json');
    expect(JSON.parse(list.stdout).storeBytes).toBe(reported);
  }, 120_000);
});

// A trial (2026-12-06): the first snapshot started from a copy of the project's index, whose blobs are
// what git stored after its EOL conversion and clean filters; a file the copy called unchanged kept
// them, and a restore wrote those bytes, not the file's (a CRLF file came back LF, a filtered one upper
// case).
describe('a first snapshot of a project whose attributes convert on check-in', () => {
  it('keeps every file byte for byte: EOL conversion and a clean filter', async () => {
    const root = createRepo({ committed: { 'base.txt': 'base\n' } });
    git(root, 'config', 'filter.upper.clean', 'tr a-z A-Z');
    git(root, 'config', 'filter.upper.smudge', 'cat');
    writeFileSync(path.join(root, '.gitattributes'), '*.txt text eol=crlf\n*.dat filter=upper\n');
    writeFileSync(path.join(root, 'e.txt'), 'a\r\nb\r\n');
    writeFileSync(path.join(root, 'f.dat'), 'lower case\n');
    commitAll(root, 'attributes');
    // The files older than the index, so git trusts the index's stat data for them (not "racy").
    const past = new Date(Date.now() - 60_000);
    for (const file of ['e.txt', 'f.dat', '.gitattributes', 'base.txt'])
      utimesSync(path.join(root, file), past, past);
    git(root, 'update-index', '--really-refresh');
    const env = { CHECKPOINT_STORE_DIR: tempDir('borrow-store-') };
    const run = (...args: string[]) => runCli(args, { cwd: root, env });
    expect((await run('snapshot')).code).toBe(0);
    writeFileSync(path.join(root, 'e.txt'), 'x\r\n');
    writeFileSync(path.join(root, 'f.dat'), 'changed\n');
    const restored = await run('restore', 'latest', '--yes');
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'e.txt'), 'latin1')).toBe('a\r\nb\r\n');
    expect(readFileSync(path.join(root, 'f.dat'), 'utf8')).toBe('lower case\n');
  });
});
