import {
  chmodSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobOid, QUIET_MS, type RememberedOid, WorktreeHasher } from '../../src/git/oid.js';
import {
  compareHistory,
  diffCommits,
  isIgnoredByGit,
  locateRepo,
  readRepoState,
} from '../../src/git/repo.js';
import { gitEnvironment } from '../../src/git/run.js';
import { parseStatusV2, statusFromXY } from '../../src/git/status.js';
import { commitAll, createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';

const UNUSUAL_NAMES = [
  'with space.txt',
  'quote"d.txt',
  "apo'strophe.txt",
  'ünïcødé/日本.txt',
  'tab\there.txt',
];

async function stateOf(root: string) {
  const location = await locateRepo(root);
  if (!location) throw new Error('expected a repository');
  return readRepoState(root, location);
}

describe('locateRepo', () => {
  it('finds none outside a repository', async () => {
    expect(await locateRepo(tempDir())).toBeNull();
  });

  it('gives the prefix of a project inside a bigger repository', async () => {
    const root = createRepo({ committed: { 'packages/app/a.ts': 'a' } });
    expect(await locateRepo(path.join(root, 'packages/app'))).toEqual({
      prefix: 'packages/app/',
      objectFormat: 'sha1',
    });
  });

  it('recognises SHA-256 repositories', async () => {
    const root = tempDir();
    git(root, 'init', '-q', '--object-format=sha256');
    expect((await locateRepo(root))?.objectFormat).toBe('sha256');
  });
});

describe('readRepoState', () => {
  it('reports branch, HEAD and every kind of change with its porcelain status', async () => {
    const root = createRepo({
      committed: {
        'modified.ts': '1',
        'deleted.ts': '1',
        'renamed-from.ts': 'same content\n',
        'clean.ts': '1',
      },
      branch: 'feat/x',
    });
    writeTree(root, { 'modified.ts': '2', 'added.ts': 'new', 'untracked.ts': '?' });
    rmSync(path.join(root, 'deleted.ts'));
    git(root, 'add', 'added.ts');
    git(root, 'mv', 'renamed-from.ts', 'renamed-to.ts');
    const state = await stateOf(root);
    expect(state.branch).toBe('feat/x');
    expect(state.head).toBe(git(root, 'rev-parse', 'HEAD').trim());
    const statuses = Object.fromEntries(state.entries.map((entry) => [entry.path, entry.status]));
    expect(statuses).toEqual({
      'added.ts': 'A',
      'deleted.ts': 'D',
      'modified.ts': 'M',
      'renamed-from.ts': 'D',
      'renamed-to.ts': 'A',
      'untracked.ts': '??',
    });
    const modified = state.entries.find((entry) => entry.path === 'modified.ts');
    expect(modified?.headOid).toBe(git(root, 'rev-parse', 'HEAD:modified.ts').trim());
  });

  it('keeps paths with spaces, quotes, tabs and non-ASCII characters verbatim', async () => {
    const root = createRepo({ committed: { 'keep.txt': 'k' } });
    writeTree(root, Object.fromEntries(UNUSUAL_NAMES.map((name) => [name, name])));
    const paths = (await stateOf(root)).entries.map((entry) => entry.path).sort();
    expect(paths).toEqual([...UNUSUAL_NAMES].sort());
  });

  it('has no HEAD before the first commit, and a null branch when detached', async () => {
    const empty = createRepo({ dirty: { 'a.ts': 'a' } });
    expect((await stateOf(empty)).head).toBeNull();
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    commitAll(root, 'second');
    git(root, 'checkout', '-q', '--detach', 'HEAD~1');
    expect((await stateOf(root)).branch).toBeNull();
  });

  it('lists only the project folder, with project-relative paths, and never its own files', async () => {
    const root = createRepo({ committed: { 'packages/app/a.ts': 'a', 'other/b.ts': 'b' }, ignore: '' });
    writeTree(root, {
      'packages/app/a.ts': 'changed',
      'other/b.ts': 'changed',
      'packages/app/.claude-checkpoint': '{}',
      'packages/app/.claude-checkpoint.prev': '{}',
    });
    const app = path.join(root, 'packages/app');
    const state = await readRepoState(app, { prefix: 'packages/app/', objectFormat: 'sha1' });
    expect(state.entries.map((entry) => entry.path)).toEqual(['a.ts']);
  });

  it('ignores GIT_DIR and friends inherited from the environment', () => {
    const env = gitEnvironment({ GIT_DIR: '/elsewhere', GIT_INDEX_FILE: '/x', PATH: '/bin', HOME: '/h' });
    expect(env).toEqual({
      PATH: '/bin',
      HOME: '/h',
      GIT_OPTIONAL_LOCKS: '0',
      GIT_TERMINAL_PROMPT: '0',
      LC_ALL: 'C',
    });
  });
});

describe('WorktreeHasher', () => {
  it('computes exactly what git hash-object prints, for every kind of content and name', async () => {
    const root = createRepo({ committed: {} });
    const files: Record<string, string | Buffer> = {
      'empty.txt': '',
      'text.txt': 'hello\n',
      'crlf.txt': 'a\r\nb\r\n',
      'binary.bin': Buffer.from([0, 1, 2, 255, 254, 0, 10]),
      'big.bin': Buffer.alloc(3 * 1024 * 1024 + 17, 7),
      ...Object.fromEntries(UNUSUAL_NAMES.map((name) => [name, `content of ${name}`])),
    };
    writeTree(root, files);
    const oids = await new WorktreeHasher(root).oids(Object.keys(files));
    for (const name of Object.keys(files)) {
      expect(oids.get(name), name).toBe(git(root, 'hash-object', '--no-filters', '--', name).trim());
    }
  });

  it('hashes a symlink as git stores it (its target), and nothing for folders or missing paths', async () => {
    const root = createRepo({ committed: { 'target.txt': 't' } });
    symlinkSync('target.txt', path.join(root, 'link'));
    mkdirSync(path.join(root, 'folder'));
    git(root, 'add', 'link');
    const hasher = new WorktreeHasher(root);
    expect(await hasher.oid('link')).toBe(git(root, 'rev-parse', ':link').trim());
    expect(await hasher.oid('folder')).toBeNull();
    expect(await hasher.oid('missing.txt')).toBeNull();
  });

  it('never reads through a symlinked folder (it could lead outside the project)', async () => {
    const outside = tempDir();
    writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    const root = createRepo({ committed: {} });
    symlinkSync(outside, path.join(root, 'escape'));
    expect(await new WorktreeHasher(root).oid('escape/secret.txt')).toBeNull();
    // Deeper down too, while real nested folders are read; each hasher remembers what it checked.
    mkdirSync(path.join(outside, 'deep'), { recursive: true });
    writeFileSync(path.join(outside, 'deep', 'secret.txt'), 'secret');
    writeTree(root, { 'a/b/real.txt': 'real' });
    symlinkSync(outside, path.join(root, 'a', 'b', 'link'));
    const hasher = new WorktreeHasher(root);
    expect(hasher.oid('a/b/real.txt')).toBe(git(root, 'hash-object', 'a/b/real.txt').trim());
    expect(hasher.oid('a/b/link/deep/secret.txt')).toBeNull();
    expect(hasher.oid('a/b/link/secret.txt')).toBeNull();
    expect(hasher.oid('a/b/real.txt')).not.toBeNull();
  });

  it('hashes with SHA-256 in SHA-256 repositories', async () => {
    const root = tempDir();
    git(root, 'init', '-q', '--object-format=sha256');
    writeTree(root, { 'a.txt': 'abc' });
    expect(await new WorktreeHasher(root, 'sha256').oid('a.txt')).toBe(
      git(root, 'hash-object', 'a.txt').trim(),
    );
  });
});

describe('WorktreeHasher with remembered oids', () => {
  // A clock past the quiet period, so files written by the test count as settled.
  const later = () => Date.now() + QUIET_MS + 10_000;
  const FAKE = 'f'.repeat(40);
  /** Longer than a tick of any file system clock Linux keeps (10 ms at HZ=100). */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

  /** A memory whose oid for `file` is wrong: getting it back proves the file was not read again. */
  function planted(root: string, file: string): Map<string, RememberedOid> {
    const first = new WorktreeHasher(root, 'sha1', new Map(), later);
    first.oid(file);
    const known = first.remembered.get(file);
    expect(known).toBeDefined();
    return new Map([[file, { ...(known as RememberedOid), oid: FAKE }]]);
  }

  it('trusts a remembered oid while the lstat matches, without reading the file', () => {
    const root = createRepo({ committed: {} });
    writeTree(root, { 'a.txt': 'one' });
    const hasher = new WorktreeHasher(root, 'sha1', planted(root, 'a.txt'), later);
    expect(hasher.oid('a.txt')).toBe(FAKE);
    expect(hasher.remembered.get('a.txt')?.oid).toBe(FAKE);
  });

  it.each([
    ['rewritten at the same size', (file: string) => writeFileSync(file, 'two')],
    [
      'touched back to its old times',
      (file: string) => {
        const { atime, mtime } = statSync(file);
        writeFileSync(file, 'two');
        utimesSync(file, atime, mtime);
      },
    ],
    ['made executable', (file: string) => chmodSync(file, 0o755)],
    [
      'replaced by another file',
      (file: string) => {
        writeFileSync(`${file}.new`, 'one');
        renameSync(`${file}.new`, file);
      },
    ],
  ])('hashes a file again once it was %s', async (_name, change) => {
    const root = createRepo({ committed: {} });
    writeTree(root, { 'a.txt': 'one' });
    const memory = planted(root, 'a.txt');
    // The quiet period puts a change on a later tick of the file system's clock than the remembered one.
    await settle();
    change(path.join(root, 'a.txt'));
    const oid = new WorktreeHasher(root, 'sha1', memory, later).oid('a.txt');
    expect(oid).toBe(git(root, 'hash-object', '--no-filters', '--', 'a.txt').trim());
  });

  it('hashes a path again that became a symlink or vanished', async () => {
    const root = createRepo({ committed: {} });
    writeTree(root, { 'a.txt': 'one', 'b.txt': 'two' });
    const memory = new Map([...planted(root, 'a.txt'), ...planted(root, 'b.txt')]);
    await settle();
    rmSync(path.join(root, 'a.txt'));
    symlinkSync('b.txt', path.join(root, 'a.txt'));
    rmSync(path.join(root, 'b.txt'));
    const hasher = new WorktreeHasher(root, 'sha1', memory, later);
    expect(hasher.oid('a.txt')).toBe(blobOid(Buffer.from('b.txt')));
    expect(hasher.oid('b.txt')).toBeNull();
  });

  it('does not remember a file changed within the quiet period (it could change again unseen)', () => {
    const root = createRepo({ committed: {} });
    writeTree(root, { 'a.txt': 'one' });
    const hasher = new WorktreeHasher(root);
    expect(hasher.oid('a.txt')).not.toBeNull();
    expect(hasher.remembered.has('a.txt')).toBe(false);
  });
});

describe('history', () => {
  it('counts commits since the saved HEAD, and notices rewritten and missing history', async () => {
    const root = createRepo({ committed: { 'a.ts': '1' } });
    const saved = git(root, 'rev-parse', 'HEAD').trim();
    writeTree(root, { 'a.ts': '2' });
    const second = commitAll(root);
    commitAll(root, 'third');
    const head = git(root, 'rev-parse', 'HEAD').trim();
    expect(await compareHistory(root, saved, head)).toEqual({
      kind: 'known',
      commitsSince: 2,
      rewritten: false,
    });
    expect(await compareHistory(root, head, head)).toEqual({
      kind: 'known',
      commitsSince: 0,
      rewritten: false,
    });

    git(root, 'reset', '-q', '--hard', saved);
    writeTree(root, { 'b.ts': 'other' });
    const rewrittenHead = commitAll(root, 'other history');
    expect(await compareHistory(root, second, rewrittenHead)).toEqual({
      kind: 'known',
      commitsSince: 1,
      rewritten: true,
    });
    expect(await compareHistory(root, 'f'.repeat(40), rewrittenHead)).toEqual({ kind: 'missing' });
  });

  it('lists files that differ between two commits with their oids', async () => {
    const root = createRepo({ committed: { 'a.ts': '1', 'b.ts': '1' } });
    const before = git(root, 'rev-parse', 'HEAD').trim();
    writeTree(root, { 'a.ts': '2', 'c.ts': 'new' });
    const after = commitAll(root);
    const { changes } = await diffCommits(root, { prefix: '', objectFormat: 'sha1' }, before, after);
    expect(Object.fromEntries(changes)).toEqual({
      'a.ts': {
        before: git(root, 'rev-parse', `${before}:a.ts`).trim(),
        after: git(root, 'rev-parse', `${after}:a.ts`).trim(),
      },
      'c.ts': { before: null, after: git(root, 'rev-parse', `${after}:c.ts`).trim() },
    });
  });
});

describe('isIgnoredByGit', () => {
  it('tells whether the checkpoint file is ignored', async () => {
    expect(await isIgnoredByGit(createRepo({ committed: {} }), '.claude-checkpoint')).toBe(true);
    expect(
      await isIgnoredByGit(createRepo({ committed: {}, ignore: 'node_modules\n' }), '.claude-checkpoint'),
    ).toBe(false);
  });
});

describe('parseStatusV2', () => {
  it('reads branch headers, and both paths of a rename record (callers pass --no-renames)', () => {
    const output = [
      '# branch.oid (initial)',
      '# branch.head main',
      '2 R. N... 100644 100644 100644 aaaa aaaa R100 new name.ts',
      'old name.ts',
      '? untracked.ts',
      'u UU N... 100644 100644 100644 100644 aaaa bbbb cccc conflicted.ts',
      '',
    ].join('\0');
    expect(parseStatusV2(output)).toEqual({
      head: null,
      branch: 'main',
      entries: [
        { path: 'new name.ts', status: 'R', headOid: null, isSubmodule: false },
        { path: 'old name.ts', status: 'D', headOid: 'aaaa', isSubmodule: false },
        { path: 'untracked.ts', status: '??', headOid: null, isSubmodule: false },
        { path: 'conflicted.ts', status: 'M', headOid: null, isSubmodule: false },
      ],
    });
  });

  it.each([
    [
      'a copy: the new path only, its source is untouched',
      ['2 C. N... 100644 100644 100644 aaaa aaaa C100 copy.ts', 'a.ts'],
      [{ path: 'copy.ts', status: 'A', headOid: null, isSubmodule: false }],
    ],
    [
      'a copy and a rename of one source: the source once, gone',
      [
        '2 C. N... 100644 100644 100644 aaaa aaaa C100 copy.ts',
        'a.ts',
        '2 R. N... 100644 100644 100644 aaaa aaaa R100 lib/a.ts',
        'a.ts',
      ],
      [
        { path: 'copy.ts', status: 'A', headOid: null, isSubmodule: false },
        { path: 'lib/a.ts', status: 'R', headOid: null, isSubmodule: false },
        { path: 'a.ts', status: 'D', headOid: 'aaaa', isSubmodule: false },
      ],
    ],
    [
      "one rename's source another's target: that path modified, against HEAD's blob",
      [
        '2 R. N... 100644 100644 100644 aaaa aaaa R100 b.ts',
        'a.ts',
        '2 R. N... 100644 100644 100644 cccc cccc R100 a.ts',
        'c.ts',
      ],
      [
        { path: 'b.ts', status: 'R', headOid: null, isSubmodule: false },
        { path: 'a.ts', status: 'M', headOid: 'aaaa', isSubmodule: false },
        { path: 'c.ts', status: 'D', headOid: 'cccc', isSubmodule: false },
      ],
    ],
  ])('reads %s', (_title, records, entries) => {
    expect(parseStatusV2([...records, ''].join('\0')).entries).toEqual(entries);
  });

  it.each([
    ['.M', 'M'],
    ['M.', 'M'],
    ['MM', 'M'],
    ['A.', 'A'],
    ['AM', 'A'],
    ['AD', 'D'],
    ['.D', 'D'],
    ['D.', 'D'],
    ['R.', 'R'],
    ['RM', 'R'],
    ['C.', 'A'],
    ['.T', 'M'],
  ])('maps %s to %s', (xy, expected) => {
    expect(statusFromXY(xy)).toBe(expected);
  });
});

describe('readHeadFast', () => {
  it('agrees with git on a branch, a detached HEAD, packed refs, an unborn branch and a worktree', async () => {
    const { readHead, readHeadFast } = await import('../../src/git/repo.js');
    const root = createRepo({ committed: { 'a.ts': 'a' }, branch: 'feat/x' });
    expect(await readHeadFast(root)).toEqual(await readHead(root));
    expect((await readHeadFast(root))?.branch).toBe('feat/x');
    git(root, 'pack-refs', '--all');
    expect(await readHeadFast(root)).toEqual(await readHead(root));
    git(root, 'checkout', '-q', '--detach');
    expect(await readHeadFast(root)).toEqual({ head: git(root, 'rev-parse', 'HEAD').trim(), branch: null });
    const worktree = path.join(tempDir(), 'wt');
    git(root, 'worktree', 'add', '-q', worktree, 'feat/x');
    expect(await readHeadFast(worktree)).toEqual({
      head: git(root, 'rev-parse', 'HEAD').trim(),
      branch: 'feat/x',
    });
    expect(await readHeadFast(createRepo({ dirty: { 'a.ts': 'a' } }))).toBeNull();
    expect(await readHeadFast(tempDir())).toBeNull();
  });
});
