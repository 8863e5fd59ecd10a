import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';
import { allRefs, bareRemote, cli, machine } from '../helpers/handoff.js';

beforeAll(assertBuilt);

/**
 * Handoffs and the private store over time, as a new user meets them: a pull after `gc`, in a clone
 * made over a plain path or whose store is older than its first commit; a drop before any store exists;
 * a push after someone dropped the handoff; the store's permissions; and `gc` never growing the store.
 */

/** Files and folders of the store that others could read, with their modes. */
function openToOthers(store: string): string[] {
  const loose: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      const stats = lstatSync(full);
      const mode = stats.mode & 0o777;
      if (stats.isDirectory() ? mode !== 0o700 : (mode & 0o077) !== 0)
        loose.push(`${path.relative(store, full)} ${mode.toString(8)}`);
      if (stats.isDirectory()) walk(full);
    }
  };
  walk(store);
  return loose;
}

describe('handoff pull when the store no longer borrows the project objects', () => {
  it('after gc, in a clone made over a plain path: the second pull applies (not "unable to read tree")', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    writeTree(a.root, { 'src/app.ts': 'first from A\n', 'src/extra/one.ts': 'one\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'gc')).code).toBe(0);
    // A plain path: git clones locally, hardlinking every object of the remote, the handoff's too.
    const b = machine(bare, 'Bob');
    const first = await cli(b, 'handoff', 'pull', '--name', 'gc', '--yes');
    expect(first.code, first.stderr).toBe(0);
    git(b.root, 'reset', '-q', '--hard');
    git(b.root, 'clean', '-q', '-fd');
    const gc = await cli(b, 'gc');
    expect(gc.code, gc.stderr).toBe(0);
    writeTree(a.root, { 'src/app.ts': 'second from A\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'gc')).code).toBe(0);
    const second = await cli(b, 'handoff', 'pull', '--name', 'gc', '--yes');
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(path.join(b.root, 'src/app.ts'), 'utf8')).toBe('second from A\n');
    expect(readFileSync(path.join(b.root, 'src/extra/one.ts'), 'utf8')).toBe('one\n');
    expect(readFileSync(path.join(b.root, 'README.md'), 'utf8')).toBe('# Project\n');
  }, 180_000);

  it('in a clone whose store was made before it had a commit: the pull applies (not "bad object")', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    writeTree(a.root, { 'src/app.ts': 'from A\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'early')).code).toBe(0);
    const root = tempDir('handoff-early-');
    const env = { CHECKPOINT_STORE_DIR: tempDir('handoff-store-early-') };
    git(root, 'init', '-q', '-b', 'main');
    writeTree(root, { 'scratch.txt': 'before any commit\n' });
    expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
    git(root, 'remote', 'add', 'origin', `file://${bare}`);
    git(root, 'fetch', '-q', 'origin');
    git(root, 'reset', '-q', '--hard', 'origin/main');
    const pulled = await runCli(['handoff', 'pull', '--name', 'early', '--yes'], { cwd: root, env });
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'src/app.ts'), 'utf8')).toBe('from A\n');
  }, 180_000);

  it('objects a pull fetches are the owner’s only, like the rest of the store (0600 files, 0700 folders)', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(
      a.root,
      Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`gen/file-${i}.txt`, `${i}\n`])),
    );
    expect((await cli(a, 'handoff', 'push', '--name', 'modes')).code).toBe(0);
    writeTree(a.root, { 'src/app.ts': 'a few loose objects too\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'modes-small')).code).toBe(0);
    const previous = process.umask(0o022);
    try {
      expect((await cli(b, 'handoff', 'pull', '--name', 'modes', '--yes')).code).toBe(0);
      expect((await cli(b, 'handoff', 'pull', '--name', 'modes-small', '--dry-run')).code).toBe(0);
    } finally {
      process.umask(previous);
    }
    expect(openToOthers(b.env.CHECKPOINT_STORE_DIR ?? '')).toEqual([]);
  }, 180_000);
});

describe('handoff drop', () => {
  let bare: string;
  beforeAll(() => {
    ({ bare } = bareRemote());
  });

  it('in a clone with no store yet: deletes the handoff and exits 0 (no ENOENT on handoffs-seen.json)', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    writeTree(a.root, { 'src/app.ts': 'A\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'to-drop')).code).toBe(0);
    const c = machine(`file://${bare}`, 'Carol');
    const dropped = await cli(c, 'handoff', 'drop', 'to-drop', '--yes');
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(allRefs(bare)).not.toContain('to-drop');
  }, 120_000);

  it('a dropped handoff does not block the next push of that name', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'A once\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'dropped')).code).toBe(0);
    expect((await cli(b, 'handoff', 'drop', 'dropped', '--yes')).code).toBe(0);
    writeTree(a.root, { 'src/app.ts': 'A again\n' });
    const again = await cli(a, 'handoff', 'push', '--name', 'dropped');
    expect(again.code, again.stderr).toBe(0);
    expect(allRefs(bare)).toContain('refs/claude-checkpoint/handoff/dropped');
    // Someone else's handoff in its place is still refused.
    writeTree(b.root, { 'src/app.ts': 'B\n' });
    expect((await cli(b, 'handoff', 'push', '--name', 'dropped')).code).toBe(1);
  }, 120_000);
});

describe('gc', () => {
  /** Runs gc twice and checks that neither grew the store; returns its last answer. */
  async function gcNeverGrows(
    run: (...args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>,
  ) {
    for (let round = 0; round < 2; round++) {
      const gc = await run('gc', '--json');
      expect(gc.code, gc.stderr).toBe(0);
      const { beforeBytes, afterBytes } = JSON.parse(gc.stdout);
      expect(afterBytes).toBeLessThanOrEqual(beforeBytes);
    }
  }

  it('never makes a small store bigger (a folder without git)', async () => {
    const root = tempDir('gc-plain-');
    writeTree(root, { 'b.ts': 'b\n' });
    const env = { CHECKPOINT_STORE_DIR: tempDir('gc-store-') };
    const run = (...args: string[]) => runCli(args, { cwd: root, env });
    for (const content of ['one\n', 'two\n', 'three\n']) {
      writeTree(root, { 'a.ts': content });
      expect((await run('snapshot')).code).toBe(0);
    }
    await gcNeverGrows(run);
    const restored = await run('restore', 'latest', '--yes');
    expect(restored.code, restored.stderr).toBe(0);
  }, 120_000);

  it('in a git project: after the gc that copies in what the store borrowed, gc never grows it', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a\n', 'b.ts': 'b\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('gc-store-') };
    const run = (...args: string[]) => runCli(args, { cwd: root, env });
    writeTree(root, { 'a.ts': 'zero\n' });
    expect((await run('snapshot')).code).toBe(0);
    expect((await run('gc')).code).toBe(0);
    for (const content of ['one\n', 'two\n', 'three\n']) {
      writeTree(root, { 'a.ts': content });
      expect((await run('snapshot')).code).toBe(0);
    }
    await gcNeverGrows(run);
    // What it kept still restores, and the project's own objects are no longer needed.
    git(root, 'gc', '-q', '--prune=now');
    writeTree(root, { 'a.ts': 'changed\n' });
    const restored = await run('restore', 'latest', '--yes');
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'a.ts'), 'utf8')).toBe('three\n');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' })).toContain('a.ts');
  }, 120_000);
});
