import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { diffSnapshot, restoreSnapshot, takeSnapshot } from '../../src/app/rewind.js';
import { saveCheckpoint } from '../../src/app/save.js';
import type { SaveInput } from '../../src/core/input.js';
import { createRepo, tempDir, workerStateHome } from '../helpers/fixtures.js';

const deps = defaultDeps({
  env: { XDG_STATE_HOME: workerStateHome(), CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') },
});
const save = (root: string, input: Omit<SaveInput, 'projectRoot'>) =>
  saveCheckpoint(deps, { ...input, projectRoot: root });
const listed = (root: string) =>
  JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).modifiedFiles.map(
    (file: { path: string; status: string; note?: string }) => [file.path, file.status, file.note],
  );

/** The project, and a link to it elsewhere (as /tmp is to /private/tmp on macOS). */
function projectAndAlias(): { root: string; alias: string } {
  const root = createRepo({ committed: { 'top.txt': 'v1\n' }, dirty: { 'top.txt': 'v2\n' } });
  const alias = path.join(tempDir('checkpoint-alias-'), 'p2link');
  symlinkSync(root, alias);
  return { root, alias };
}

describe('absolute paths through a link to the project (bad-input trial)', () => {
  it('save takes an absolute path through the alias, with the alias as the root, as that project path', async () => {
    const { alias } = projectAndAlias();
    await save(alias, { goal: 'g', modifiedFiles: [{ path: path.join(alias, 'top.txt'), note: 'edited' }] });
    expect(listed(alias)).toEqual([['top.txt', 'M', 'edited']]);
  });

  it('lists a link named through the alias as the link, not the file it points to', async () => {
    const { root, alias } = projectAndAlias();
    symlinkSync('top.txt', path.join(root, 'link.txt'));
    await save(alias, { goal: 'g', modifiedFiles: [{ path: path.join(alias, 'link.txt'), note: 'a link' }] });
    expect(listed(alias)).toContainEqual(['link.txt', '??', 'a link']);
  });

  it('diff and restore take an absolute path through the alias', async () => {
    const { root, alias } = projectAndAlias();
    const snap = await takeSnapshot(deps, { projectRoot: alias, trigger: 'manual' });
    writeFileSync(path.join(root, 'top.txt'), 'v3\n');
    const diff = await diffSnapshot(deps, {
      projectRoot: alias,
      snapshotId: snap.snapshot.id,
      path: path.join(alias, 'top.txt'),
    });
    expect(diff.files.map((file) => file.path)).toEqual(['top.txt']);
    await restoreSnapshot(deps, {
      projectRoot: alias,
      snapshotId: snap.snapshot.id,
      paths: [path.join(alias, 'top.txt')],
      dryRun: false,
    });
    expect(readFileSync(path.join(root, 'top.txt'), 'utf8')).toBe('v2\n');
  });

  it('refuses an absolute path whose link leads out of the project, and says a link is why', async () => {
    const { root, alias } = projectAndAlias();
    const outside = tempDir('checkpoint-outside-');
    writeFileSync(path.join(outside, 'secret.txt'), 's');
    symlinkSync(outside, path.join(root, 'out'));
    await expect(
      save(alias, { goal: 'g', modifiedFiles: [{ path: path.join(alias, 'out/secret.txt') }] }),
    ).rejects.toThrow(/modifiedFiles\.0\.path leads out of the project root .* through a symbolic link/);
    await expect(
      save(alias, { goal: 'g', modifiedFiles: [{ path: path.join(outside, 'secret.txt') }] }),
    ).rejects.toThrow(/modifiedFiles\.0\.path is outside the project root/);
  });
});

describe('absolute paths through a link to the project: the review of the fix', () => {
  it('follows no link inside the project, however the path reaches it', async () => {
    const { root, alias } = projectAndAlias();
    writeFileSync(path.join(root, 'a.ts'), 'a');
    symlinkSync('.', path.join(root, 'lib'));
    // `lib` is a link inside the project: refused as from the root itself, never saved as `a.ts`.
    await expect(
      save(alias, { goal: 'g', modifiedFiles: [{ path: path.join(alias, 'lib/a.ts') }] }),
    ).rejects.toThrow(/modifiedFiles\.0\.path: 'lib\/a\.ts' goes through the symbolic link 'lib'/);
  });

  it('never repeats a token in the path of its own errors, nor a control character (review)', async () => {
    const { root } = projectAndAlias();
    const token = 'ghp_AhQPVd3nXq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5';
    const tokenAlias = path.join(tempDir('checkpoint-alias-'), token);
    symlinkSync(root, tokenAlias);
    const refused = (given: string) =>
      save(root, { goal: 'g', modifiedFiles: [{ path: given }] }).then(
        () => '',
        (error: Error) => error.message,
      );
    const atRoot = await refused(tokenAlias);
    expect(atRoot).toMatch(/not the project root itself/);
    expect(atRoot).not.toContain(token);
    const outside = await refused(path.join(tempDir('checkpoint-outside-'), `${token}\u001b[31m.txt`));
    expect(outside).toMatch(/is outside the project root/);
    expect(outside).not.toContain(token);
    expect(outside).not.toContain('\u001b');
  });

  it('calls the project root itself, named through a link, the root (not outside)', async () => {
    const { alias } = projectAndAlias();
    await expect(save(alias, { goal: 'g', modifiedFiles: [{ path: alias }] })).rejects.toThrow(
      /modifiedFiles\.0\.path must name a file inside the project, not the project root itself/,
    );
  });
});

describe('paths a save cannot list (bad-input trial)', () => {
  it.each([
    ['.git/config', /modifiedFiles\.0\.path: '\.git\/config' is in git's own folder \(\.git\)/],
    ['.claude-checkpoint', /modifiedFiles\.0\.path: '\.claude-checkpoint' is the checkpoint's own file/],
    [
      '.claude-checkpoint.bak',
      /modifiedFiles\.0\.path: '\.claude-checkpoint\.bak' is the checkpoint's own file/,
    ],
    ['src', /modifiedFiles\.0\.path: 'src' is a folder: name the files in it/],
    [
      'out/secret.txt',
      /'out\/secret\.txt' goes through the symbolic link 'out', which leads out of the project/,
    ],
    [
      'lib/a.ts',
      /'lib\/a\.ts' goes through the symbolic link 'lib': name the file where it lies .*'src\/a\.ts'/,
    ],
  ])('refuses %s, naming the field, and writes nothing', async (given, message) => {
    const root = createRepo({ committed: { 'src/a.ts': 'a' } });
    const outside = tempDir('checkpoint-outside-');
    writeFileSync(path.join(outside, 'secret.txt'), 's');
    symlinkSync(outside, path.join(root, 'out'));
    symlinkSync('src', path.join(root, 'lib'));
    await save(root, { goal: 'before' });
    const before = readFileSync(path.join(root, '.claude-checkpoint'), 'utf8');
    await expect(save(root, { goal: 'g', modifiedFiles: [{ path: given, note: 'n' }] })).rejects.toThrow(
      message,
    );
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).toBe(before);
  });

  it('refuses a path in the store when the store lies in the project', async () => {
    const root = createRepo({ committed: { 'src/a.ts': 'a' } });
    const inside = defaultDeps({
      env: { XDG_STATE_HOME: workerStateHome(), CHECKPOINT_STORE_DIR: path.join(root, 'store') },
    });
    await takeSnapshot(inside, { projectRoot: root, trigger: 'manual' });
    await expect(
      saveCheckpoint(inside, { goal: 'g', projectRoot: root, modifiedFiles: [{ path: 'store/x' }] }),
    ).rejects.toThrow("modifiedFiles.0.path: 'store/x' is in this tool's own store");
  });

  it('keeps a file that does not exist as deleted, and warns unless git reports it deleted', async () => {
    const root = createRepo({ committed: { 'src/a.ts': 'a', 'old.ts': 'o' } });
    rmSync(path.join(root, 'old.ts'));
    const outcome = await save(root, {
      goal: 'g',
      modifiedFiles: [
        { path: 'src/tpyo.ts', note: 'fixed here' },
        { path: 'old.ts', note: 'removed' },
      ],
    });
    expect(listed(root)).toEqual([
      ['src/tpyo.ts', 'D', 'fixed here'],
      ['old.ts', 'D', 'removed'],
    ]);
    expect(outcome.warnings).toContain(
      "modifiedFiles.0.path: 'src/tpyo.ts' does not exist; recorded as deleted",
    );
    expect(outcome.warnings.join('\n')).not.toContain('old.ts');
  });

  it('warns, naming both fields, when two entries name the same file', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    writeFileSync(path.join(root, 'a.txt'), 'changed');
    const outcome = await save(root, {
      goal: 'g',
      modifiedFiles: [
        { path: 'a.txt', note: 'first' },
        { path: './a.txt', note: 'second' },
      ],
    });
    expect(listed(root)).toEqual([['a.txt', 'M', 'second']]);
    expect(outcome.warnings).toContain(
      "modifiedFiles.1.path names the same file as modifiedFiles.0.path ('a.txt'): it is listed once, with the last note given",
    );
  });
});

describe('paths a save lists after all: the review of the fix', () => {
  it('lists a nested repository the agent names once, as git reports it: not deleted, no warning (review)', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const nested = createRepo({ committed: { 'x.txt': 'x' } });
    execFileSync('git', ['-c', 'protocol.file.allow=always', 'clone', '-q', nested, 'vendor/clone'], {
      cwd: root,
    });
    const outcome = await save(root, {
      goal: 'g',
      modifiedFiles: [{ path: 'vendor/clone', note: 'as it was' }],
    });
    // One entry, as git reports it (`vendor/clone/`): it was listed twice, `vendor/clone (M)` too (rewind trial).
    expect(listed(root).filter(([file]: string[]) => file?.startsWith('vendor/'))).toEqual([
      ['vendor/clone/', '??', 'as it was'],
    ]);
    expect(outcome.warnings.join('\n')).not.toContain('does not exist');
  });

  it('takes a note on a submodule git lists as one entry', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const nested = createRepo({ committed: { 'x.txt': 'x' } });
    execFileSync(
      'git',
      ['-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', nested, 'vendor/sub'],
      {
        cwd: root,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@example.invalid',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@example.invalid',
        },
      },
    );
    await save(root, { goal: 'g', modifiedFiles: [{ path: 'vendor/sub', note: 'bumped' }] });
    expect(listed(root)).toContainEqual(['vendor/sub', expect.any(String), 'bumped']);
  });

  it('keeps a path under a link to nothing, or to a file, as deleted rather than refusing it', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    symlinkSync('nowhere', path.join(root, 'build'));
    symlinkSync('a.txt', path.join(root, 'flink'));
    const outcome = await save(root, {
      goal: 'g',
      modifiedFiles: [{ path: 'build/app.js' }, { path: 'flink/x' }],
    });
    // The links themselves are new files git reports, listed beside them.
    expect(listed(root)).toContainEqual(['build/app.js', 'D', undefined]);
    expect(listed(root)).toContainEqual(['flink/x', 'D', undefined]);
    expect(outcome.warnings).toContain(
      "modifiedFiles.0.path: 'build/app.js' does not exist; recorded as deleted",
    );
  });

  it('refuses a pipe, naming the field', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    await expect(save(root, { goal: 'g', modifiedFiles: [{ path: 'pipe' }] })).rejects.toThrow(
      /modifiedFiles\.0\.path: 'pipe' is not a regular file/,
    );
  });

  it('says a missing file named twice once', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const outcome = await save(root, { goal: 'g', modifiedFiles: [{ path: 'b.txt' }, { path: './b.txt' }] });
    expect(outcome.warnings.filter((warning) => warning.includes('does not exist'))).toHaveLength(1);
  });

  it('never repeats a token in a path in what it says, as the file keeps it redacted', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const token = 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q';
    const outcome = await save(root, {
      goal: 'g',
      modifiedFiles: [{ path: `keys/${token}.json` }, { path: `./keys/${token}.json` }],
    });
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).not.toContain(token);
    expect(outcome.warnings.join('\n')).not.toContain(token);
    await expect(save(root, { goal: 'g', modifiedFiles: [{ path: `.git/${token}` }] })).rejects.toThrow(
      /is in git's own folder/,
    );
    await save(root, { goal: 'g', modifiedFiles: [{ path: `.git/${token}` }] }).catch((error: Error) =>
      expect(error.message).not.toContain(token),
    );
  });

  it('drops what a save now refuses from a checkpoint an older version wrote, when it merges', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    await save(root, { goal: 'g' });
    const file = path.join(root, '.claude-checkpoint');
    const older = JSON.parse(readFileSync(file, 'utf8'));
    older.modifiedFiles = [
      { path: '.claude-checkpoint', status: 'M', source: 'agent' },
      { path: '.git/config', status: 'M', source: 'agent' },
      { path: 'a.txt', status: 'M', source: 'agent', note: 'kept' },
    ];
    writeFileSync(file, JSON.stringify(older));
    await save(root, { goal: 'g', mode: 'merge' });
    expect(listed(root)).toEqual([['a.txt', 'M', 'kept']]);
  });
});

describe("a hook's automatic save", () => {
  it.each([
    ['a folder and a path in .git', [{ path: 'src' }, { path: '.git/config' }]],
    [
      'a name past 255 bytes and one with a NUL (review)',
      [{ path: `${'n'.repeat(300)}.ts` }, { path: 'bad\0name.ts' }],
    ],
  ])('leaves out what no save can list (%s) instead of failing the save', async (_, modifiedFiles) => {
    const root = createRepo({ committed: { 'src/a.ts': 'a' }, dirty: { 'src/a.ts': 'b' } });
    await saveCheckpoint(
      deps,
      { goal: 'g', mode: 'merge', projectRoot: root, modifiedFiles },
      {},
      { automatic: true },
    );
    expect(listed(root)).toEqual([['src/a.ts', 'M', undefined]]);
  });
});
