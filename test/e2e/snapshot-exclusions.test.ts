import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runCliWithGitLog } from '../helpers/cli.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';
import { filesIn } from '../helpers/store.js';

beforeAll(assertBuilt);

interface Listed {
  id: string;
  changes: { added: number; modified: number; deleted: number };
  skipped: { large: Array<{ path: string; bytes: number }>; nested: string[] };
}

function project(options: Parameters<typeof createRepo>[0], env: Record<string, string> = {}) {
  const root = createRepo(options);
  const store = tempDir('checkpoint-store-');
  const fullEnv = { CHECKPOINT_STORE_DIR: store, ...env };
  const cli = async (...args: string[]) => {
    return runCli([...args, '--root', root], { cwd: root, env: fullEnv });
  };
  /** The snapshot taken, or the latest one with `created: false` when nothing changed. */
  const snapshot = async (): Promise<Listed & { created: boolean }> => {
    const taken = await cli('snapshot', '--json');
    expect(taken.stderr).toBe('');
    expect(taken.code).toBe(0);
    const parsed = JSON.parse(taken.stdout) as { created: boolean; snapshot: Listed };
    return { ...parsed.snapshot, created: parsed.created };
  };
  return { root, cli, snapshot };
}

/** What a restore of `ref` would do, as its JSON plan. */
async function planOf(cli: (...args: string[]) => Promise<{ stdout: string }>, ref: string) {
  return JSON.parse((await cli('restore', ref, '--dry-run', '--json')).stdout).plan as {
    overwrite: string[];
    create: string[];
    delete: string[];
    keptAside: Array<{ path: string }> | string[];
  };
}

const keptAsidePaths = (plan: { keptAside: Array<{ path: string } | string> }) =>
  plan.keptAside.map((entry) => (typeof entry === 'string' ? entry : entry.path));

describe('a path that becomes git-ignored leaves the next snapshot (issue 26)', () => {
  it('an untracked file snapshotted, then ignored and rewritten: the next snapshot drops it and counts it deleted', async () => {
    const p = project({ committed: { 'a.js': 'a\n' } });
    writeTree(p.root, { 'notes.txt': 'draft\n' });
    await p.snapshot();
    appendFileSync(path.join(p.root, '.gitignore'), 'notes.txt\n');
    writeFileSync(path.join(p.root, 'notes.txt'), 'TOKEN=my-private-value\n');

    const second = await p.snapshot();
    expect(second.changes).toEqual({ added: 0, modified: 1, deleted: 1 });
    const diff = await p.cli('diff', 'latest', 'notes.txt');
    expect(diff.stdout).not.toContain('No differences');
    expect(diff.stderr).toMatch(/notes\.txt' is in neither snapshot \S+ nor what a snapshot .*git-ignored/);
    expect(diff.code).toBe(2);
    const between = await p.cli('diff', 'latest~1', '--against', 'latest');
    expect(between.stdout).toMatch(/notes\.txt/);
    // The working tree's notes.txt is ignored and in no snapshot: a restore keeps it aside first.
    const plan = await planOf(p.cli, 'latest~1');
    expect(keptAsidePaths(plan as never)).toContain('notes.txt');
    // A third snapshot finds nothing new: the file stays out.
    writeFileSync(path.join(p.root, 'notes.txt'), 'TOKEN=another\n');
    expect((await p.snapshot()).created).toBe(false);
  });

  it('a folder that becomes ignored through a nested .gitignore leaves, and comes back once un-ignored', async () => {
    const p = project({ committed: { 'a.js': 'a\n' } });
    writeTree(p.root, { 'pkg/index.js': 'x\n', 'pkg/cache/one.bin': '1\n', 'pkg/cache/two.bin': '2\n' });
    await p.snapshot();
    writeFileSync(path.join(p.root, 'pkg', '.gitignore'), 'cache/\n');

    const ignored = await p.snapshot();
    expect(ignored.changes).toEqual({ added: 1, modified: 0, deleted: 2 });
    expect((await p.cli('diff', 'latest', 'pkg/cache/one.bin')).stdout).not.toContain('No differences');

    writeFileSync(path.join(p.root, 'pkg', '.gitignore'), '');
    const back = await p.snapshot();
    expect(back.changes).toEqual({ added: 2, modified: 1, deleted: 0 });
    expect((await p.cli('diff', 'latest', 'pkg/cache/two.bin')).stdout).toContain('No differences');
  });

  it('rules from the project’s .git/info/exclude apply on the next snapshot too', async () => {
    const p = project({ committed: { 'a.js': 'a\n' } });
    writeTree(p.root, { 'local.cfg': 'mine\n' });
    await p.snapshot();
    appendFileSync(path.join(p.root, '.git', 'info', 'exclude'), 'local.cfg\n');

    expect((await p.snapshot()).changes).toEqual({ added: 0, modified: 0, deleted: 1 });
  });

  it.each([
    ['git’s default global excludes file', (_home: string) => ['.config/git/ignore']],
    [
      'a core.excludesFile the user’s config names',
      (home: string) => {
        writeFileSync(
          path.join(home, '.gitconfig'),
          `[core]\n\texcludesFile = ${path.join(home, 'my-ignores')}\n`,
        );
        return ['my-ignores'];
      },
    ],
  ])('rules added to %s apply on the next snapshot too', async (_name, configure) => {
    const home = tempDir('checkpoint-home-');
    const [excludes] = configure(home);
    const p = project({ committed: { 'a.js': 'a\n' } }, { HOME: home });
    writeTree(p.root, { 'scratch.txt': 'mine\n' });
    await p.snapshot();
    mkdirSync(path.dirname(path.join(home, excludes as string)), { recursive: true });
    writeFileSync(path.join(home, excludes as string), 'scratch.txt\n');

    expect((await p.snapshot()).changes).toEqual({ added: 0, modified: 0, deleted: 1 });
  });

  it('keeps what the project tracks although ignored (added with --force) and what snapshotIncludeIgnored includes', async () => {
    const config = tempDir('checkpoint-config-');
    writeFileSync(path.join(config, 'config.json'), JSON.stringify({ snapshotIncludeIgnored: ['.env'] }));
    const p = project(
      { committed: { 'a.js': 'a\n', 'forced.log': 'kept\n' } },
      { CHECKPOINT_CONFIG_DIR: config },
    );
    writeTree(p.root, { '.env': 'A=1\n', 'debug.log': 'x\n' });
    await p.snapshot();
    appendFileSync(path.join(p.root, '.gitignore'), '*.log\n.env\n');

    const next = await p.snapshot();
    expect(next.changes).toEqual({ added: 0, modified: 1, deleted: 1 });
    expect((await p.cli('diff', 'latest', 'forced.log')).stdout).toContain('No differences');
    expect((await p.cli('diff', 'latest', '.env')).stdout).toContain('No differences');
  });
});

describe('global ignore rules from config files that other config files include (issue 26)', () => {
  it.each([
    ['[include]', 'extra.cfg'],
    ['[includeIf "gitdir:/"]', '~/extra.cfg'],
  ])(
    'a core.excludesFile set in a file that %s names applies on the next snapshot, and so does each later edit of it',
    async (section, includePath) => {
      const home = tempDir('checkpoint-home-');
      writeFileSync(path.join(home, '.gitconfig'), `${section}\n\tpath = ${includePath}\n`);
      const p = project({ committed: { 'a.js': 'a\n' } }, { HOME: home });
      writeTree(p.root, { 'scratch.txt': 'mine\n', 'notes.txt': 'mine too\n' });
      await p.snapshot();

      // The included file is new, and names an excludes file in git's own `~/` form.
      writeFileSync(path.join(home, 'my-ignores'), 'scratch.txt\n');
      writeFileSync(path.join(home, 'extra.cfg'), '[core]\n\texcludesFile = ~/my-ignores\n');
      expect((await p.snapshot()).changes).toEqual({ added: 0, modified: 0, deleted: 1 });

      appendFileSync(path.join(home, 'my-ignores'), 'notes.txt\n');
      expect((await p.snapshot()).changes).toEqual({ added: 0, modified: 0, deleted: 1 });
    },
  );

  it('an ordinary snapshot starts no git config; an edit of an included config file starts one', async () => {
    const home = tempDir('checkpoint-home-');
    writeFileSync(path.join(home, '.gitconfig'), '[include]\n\tpath = extra.cfg\n');
    writeFileSync(path.join(home, 'extra.cfg'), '[user]\n\tname = someone\n');
    const root = createRepo({ committed: { 'a.js': 'a\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: home };
    const configCalls = async () => {
      const { result, gitCommands } = await runCliWithGitLog(['snapshot'], root, env);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      return gitCommands.filter((command) => /(^| )config( |$)/.test(command));
    };
    // A new store asks once, for every config file git reads and the excludes file.
    expect(await configCalls()).toHaveLength(1);
    writeFileSync(path.join(root, 'a.js'), 'changed\n');
    expect(await configCalls()).toEqual([]);
    writeFileSync(path.join(home, 'extra.cfg'), '[user]\n\tname = someone else\n');
    expect(await configCalls()).toHaveLength(1);
    expect(await configCalls()).toEqual([]);
  });
});

describe('files over the size cap are left out from the first snapshot on (issue 26)', () => {
  const capEnv = { CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '0.001' }; // 1048 bytes

  it('a committed file over the cap is skipped and listed by the first snapshot, and gc copies nothing of it', async () => {
    const big = 'x'.repeat(5000);
    const p = project({ committed: { 'a.js': 'a\n', 'big.bin': big } }, capEnv);

    const first = await p.snapshot();
    expect(first.skipped.large).toEqual([expect.objectContaining({ path: 'big.bin', bytes: 5000 })]);
    expect(first.changes.added).toBe(2); // .gitignore and a.js
    const listed = JSON.parse((await p.cli('list', '--json')).stdout).snapshots as Listed[];
    expect(listed[0]?.skipped.large).toEqual([expect.objectContaining({ path: 'big.bin', bytes: 5000 })]);
    expect((await p.cli('diff', 'latest', 'big.bin')).stdout).not.toContain('No differences');
    const gc = JSON.parse((await p.cli('gc', '--json')).stdout) as { copiedBytes?: number };
    expect(gc.copiedBytes ?? 0).toBeLessThan(5000);
  });

  it('a tracked file that grows over the cap is counted as skipped, not deleted, and comes back when it shrinks', async () => {
    const p = project({ committed: { 'a.js': 'a\n', 'data.bin': 'small\n' } }, capEnv);
    await p.snapshot();
    writeFileSync(path.join(p.root, 'data.bin'), 'y'.repeat(5000));

    const grown = await p.snapshot();
    expect(grown.changes).toEqual({ added: 0, modified: 0, deleted: 0 });
    expect(grown.skipped.large).toEqual([expect.objectContaining({ path: 'data.bin', bytes: 5000 })]);

    writeFileSync(path.join(p.root, 'data.bin'), 'small again\n');
    const shrunk = await p.snapshot();
    expect(shrunk.skipped.large).toEqual([]);
    expect((await p.cli('diff', 'latest', 'data.bin')).stdout).toContain('No differences');
  });

  it('lowering the cap leaves out files a snapshot already held', async () => {
    const root = createRepo({ committed: { 'a.js': 'a\n' } });
    mkdirSync(path.join(root, 'assets'));
    writeTree(root, { 'assets/logo.bin': 'z'.repeat(5000) });
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'logo');
    const store = tempDir('checkpoint-store-');
    const run = (env: Record<string, string>) =>
      runCli(['snapshot', '--json', '--root', root], {
        cwd: root,
        env: { CHECKPOINT_STORE_DIR: store, ...env },
      });
    const first = JSON.parse((await run({})).stdout).snapshot as Listed;
    expect(first.skipped.large).toEqual([]);

    const lowered = JSON.parse((await run(capEnv)).stdout).snapshot as Listed;
    expect(lowered.skipped.large).toEqual([
      expect.objectContaining({ path: 'assets/logo.bin', bytes: 5000 }),
    ]);
  });
});

describe('a file that grows past the size cap while git reads it (issue 26)', () => {
  /** A `git` ahead of the real one on PATH that appends 3 MB to GROW_FILE just before its first `update-index --add`. */
  function growingGit(): string {
    const bin = tempDir('checkpoint-git-wrapper-');
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const wrapper = path.join(bin, 'git');
    writeFileSync(
      wrapper,
      [
        '#!/bin/sh',
        'case " $* " in',
        `  *" update-index "*"--add"*) if [ -f "$GROW_FILE" ] && [ ! -e "${bin}/grown" ]; then`,
        `    head -c 3000000 /dev/zero >> "$GROW_FILE"; : > "${bin}/grown"; fi ;;`,
        'esac',
        `exec "${real}" "$@"`,
        '',
      ].join('\n'),
    );
    chmodSync(wrapper, 0o755);
    return bin;
  }

  it('is left out and listed as skipped, in that snapshot and the next', async () => {
    const root = createRepo({ committed: { 'a.js': 'a\n' } });
    const store = tempDir('checkpoint-store-');
    const bin = growingGit();
    const env = {
      CHECKPOINT_STORE_DIR: store,
      CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '1',
      GROW_FILE: path.join(root, 'big.txt'),
      PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    };
    const snapshot = async () => {
      const taken = await runCli(['snapshot', '--json', '--root', root], { cwd: root, env });
      expect(taken.stderr).toBe('');
      expect(taken.code).toBe(0);
      return (JSON.parse(taken.stdout) as { snapshot: Listed }).snapshot;
    };
    await snapshot();
    writeFileSync(path.join(root, 'big.txt'), 'small\n');
    writeFileSync(path.join(root, 'b.js'), 'b\n');

    const grown = await snapshot();
    expect(statSync(path.join(root, 'big.txt')).size).toBe(3000006);
    expect(grown.skipped.large).toEqual([expect.objectContaining({ path: 'big.txt', bytes: 3000006 })]);
    expect(grown.changes).toEqual({ added: 1, modified: 0, deleted: 0 });
    expect(filesIn(store, grown.id)).toEqual(['.gitignore', 'a.js', 'b.js']);

    writeFileSync(path.join(root, 'c.js'), 'c\n');
    const next = await snapshot();
    expect(next.skipped.large).toEqual([expect.objectContaining({ path: 'big.txt', bytes: 3000006 })]);
    expect(filesIn(store, next.id)).toEqual(['.gitignore', 'a.js', 'b.js', 'c.js']);
  });
});

// restore-undo-property, seed -1696736129: a folder the store's index held entries under was still
// scanned once it became a repository of its own, its files taken, `nested` empty.
describe('a folder of held files that becomes a nested repository', () => {
  it('is left out and listed by the next snapshot and by list, and its files come back once its .git goes', async () => {
    const p = project({ committed: { 'a.js': 'a\n', 'vendor/lib/x.c': 'int x;\n', 'vendor/README': 'r\n' } });
    await p.snapshot();
    git(path.join(p.root, 'vendor/lib'), 'init', '-q', '-b', 'main');
    writeTree(p.root, { 'vendor/lib/y.c': 'int y;\n' });

    const nested = await p.snapshot();
    expect(nested.skipped.nested).toEqual(['vendor/lib']);
    expect(nested.changes).toEqual({ added: 0, modified: 0, deleted: 1 });
    const listed = await p.cli('list');
    expect(listed.stdout).toMatch(/⚠ left out.*vendor\/lib/);

    rmSync(path.join(p.root, 'vendor/lib/.git'), { recursive: true });
    const back = await p.snapshot();
    expect(back.skipped.nested).toEqual([]);
    expect(back.changes).toEqual({ added: 2, modified: 0, deleted: 0 });
    expect((await p.cli('diff', 'latest', 'vendor/lib/y.c')).stdout).toContain('No differences');
  });
});
