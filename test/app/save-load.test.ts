import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { loadCheckpoint } from '../../src/app/load.js';
import { saveCheckpoint } from '../../src/app/save.js';
import type { SaveInput } from '../../src/core/input.js';
import { QUIET_MS } from '../../src/git/oid.js';
import { defaultStoreBase, projectStoreDir } from '../../src/store/store-location.js';
import { commitAll, createRepo, git, tempDir, workerStateHome, writeTree } from '../helpers/fixtures.js';

const deps = defaultDeps({ env: { XDG_STATE_HOME: workerStateHome() } });
const save = (root: string, input: Omit<SaveInput, 'projectRoot'>) =>
  saveCheckpoint(deps, { ...input, projectRoot: root });
async function load(root: string) {
  const outcome = await loadCheckpoint(deps, { projectRoot: root });
  if (!outcome.found) throw new Error('expected a checkpoint');
  return outcome;
}
const stored = (root: string) => JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));

describe('save and load in a real repository', () => {
  // Brief h-left, item 4: a key bare in a path (a folder named by an AWS key id, a GitHub token as a
  // file's name, joined to the name by `_`) was kept in the checkpoint as it was.
  it('a token bare in a file path is redacted in the list, and such a file is never flagged as drift', async () => {
    const aws = `AKIA${'QYLPMN5HHHFPZAM2'}`;
    const github = `ghp_${'Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q'}`;
    const root = createRepo({
      committed: { 'src/app.ts': 'v1' },
      dirty: {
        'src/app.ts': 'v2',
        [`${aws}/config.json`]: '{}',
        [`keys/backup_${github}_old.txt`]: 'x',
        [`notes/${github}.md`]: 'notes',
      },
    });
    await save(root, {
      goal: 'Keys',
      modifiedFiles: [{ path: `keys/backup_${github}_old.txt`, note: 'named by hand' }],
    });
    const text = readFileSync(path.join(root, '.claude-checkpoint'), 'utf8');
    expect(text).not.toContain(aws);
    expect(text).not.toContain(github);
    const listed = () =>
      Object.fromEntries(
        stored(root).modifiedFiles.map((file: { path: string; status: string }) => [file.path, file.status]),
      );
    expect(listed()).toEqual({
      'keys/backup_«redacted»_old.txt': '??',
      'notes/«redacted».md': '??',
      'src/app.ts': 'M',
      '«redacted»/config.json': '??',
    });
    expect((await load(root)).drift?.changedSince).toEqual([]);
    // Committed since: the next save keeps them as listed (no file of that name to call deleted).
    commitAll(root, 'keys');
    writeTree(root, { 'src/app.ts': 'v3' });
    await save(root, { goal: 'Keys', mode: 'merge' });
    expect(listed()).toEqual({
      'src/app.ts': 'M',
      'keys/backup_«redacted»_old.txt': '??',
      'notes/«redacted».md': '??',
      '«redacted»/config.json': '??',
    });
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).not.toContain(github);
  });

  it('a listed file whose whole name is a token hides no other changed file from the drift check', async () => {
    // Review of 2026-12-07: the listed `«redacted»` was matched as "any name", and every changed file at
    // the root went unflagged ("the rest of this brief can be trusted as is").
    const github = `ghp_${'Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q'}`;
    const root = createRepo({ committed: { 'README.md': 'v1' }, dirty: { [github]: 's' } });
    await save(root, { goal: 'Keys', modifiedFiles: [{ path: github, note: 'n' }] });
    writeTree(root, { 'README.md': 'v2', 'other.txt': 'n' });
    expect((await load(root)).drift?.changedSince).toEqual(['README.md', 'other.txt']);
  });

  it("the original tool's scenario: only the file edited after the save is flagged", async () => {
    const root = createRepo({
      committed: { 'src/auth/session.ts': 'v1', 'src/auth/callback.ts': 'v1' },
      branch: 'feat/github-oauth',
      dirty: {
        'src/auth/session.ts': 'v2',
        'src/auth/callback.ts': 'v2',
        'src/auth/session.spec.ts': 'spec',
      },
    });
    const saved = await save(root, {
      goal: 'OAuth',
      modifiedFiles: [{ path: 'src/auth/session.ts', note: 'cookie options' }],
    });
    expect(saved.counts.modifiedFiles).toBe(3);
    expect(stored(root).modifiedFiles).toEqual([
      {
        path: 'src/auth/session.ts',
        status: 'M',
        source: 'git',
        note: 'cookie options',
        hash: git(root, 'hash-object', 'src/auth/session.ts').trim(),
      },
      {
        path: 'src/auth/callback.ts',
        status: 'M',
        source: 'git',
        hash: git(root, 'hash-object', 'src/auth/callback.ts').trim(),
      },
      {
        path: 'src/auth/session.spec.ts',
        status: '??',
        source: 'git',
        hash: git(root, 'hash-object', 'src/auth/session.spec.ts').trim(),
      },
    ]);

    git(root, 'add', 'src/auth/callback.ts');
    git(root, 'commit', '-q', '-m', 'callback');
    writeTree(root, { 'src/auth/session.ts': 'v3' });

    const loaded = await load(root);
    expect(loaded.drift).toEqual({
      branchChanged: false,
      currentBranch: 'feat/github-oauth',
      commitsSince: 1,
      changedSince: ['src/auth/session.ts'],
      savedHeadReachable: true,
      flaggedSince: null,
    });
    expect(loaded.brief).toContain(
      '- 1 new commit(s) on HEAD\n- ⚠ Changed after the checkpoint, re-read before editing: `src/auth/session.ts`',
    );
  });

  it('a checkpoint cut by the 64 KB cap does not flag the uncommitted files it had to leave out', async () => {
    const names = Array.from(
      { length: 700 },
      (_, i) => `src/components/generated/module-${String(i).padStart(4, '0')}.ts`,
    );
    const root = createRepo({ committed: Object.fromEntries(names.map((name) => [name, 'v1\n'])) });
    writeTree(root, Object.fromEntries(names.map((name) => [name, 'v2: uncommitted\n'])));
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const saved = await saveCheckpoint(defaultDeps({ env }), { goal: 'Big refactor', projectRoot: root });
    expect(saved.counts.modifiedFiles).toBeLessThan(700);
    writeTree(root, { [names[699] as string]: 'v3: edited after the save\n' });

    const loaded = await loadCheckpoint(defaultDeps({ env }), { projectRoot: root });
    if (!loaded.found) throw new Error('no checkpoint');
    expect(loaded.checkpoint.meta.truncated).toBe(true);
    expect(loaded.drift?.changedSince).toEqual([names[699]]);

    // Elsewhere (another store, as after a handoff) the record is missing: the brief says why files may be flagged.
    const elsewhere = await loadCheckpoint(
      defaultDeps({ env: { CHECKPOINT_STORE_DIR: tempDir('other-store-') } }),
      {
        projectRoot: root,
      },
    );
    if (!elsewhere.found) throw new Error('no checkpoint');
    expect(elsewhere.warnings.join('\n')).toMatch(/cut to fit 64 KB .* may be flagged as changed/);
  });

  it('records git facts: branch, full HEAD, dirty flag', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, branch: 'dev' });
    await save(root, { goal: 'g' });
    expect(stored(root).git).toEqual({
      branch: 'dev',
      head: git(root, 'rev-parse', 'HEAD').trim(),
      dirty: false,
    });
    writeTree(root, { 'a.ts': 'b' });
    await save(root, { goal: 'g' });
    expect(stored(root).git.dirty).toBe(true);
  });

  it('flags a deleted file, a clean file edited later, and a new untracked file; nothing else', async () => {
    const root = createRepo({
      committed: { 'keep.ts': 'k', 'clean.ts': 'c', 'doomed.ts': 'd' },
      dirty: { 'keep.ts': 'k2', 'doomed.ts': 'd2' },
    });
    await save(root, { goal: 'g' });
    rmSync(path.join(root, 'doomed.ts'));
    writeTree(root, { 'clean.ts': 'edited by someone', 'brand-new.ts': 'new' });
    expect((await load(root)).drift?.changedSince).toEqual(['doomed.ts', 'brand-new.ts', 'clean.ts']);
  });

  it('does not flag a file whose bytes differ from the blob only by an EOL filter (autocrlf)', async () => {
    const root = createRepo({ committed: { 'win.txt': 'a\nb\n', 'other.txt': 'o' } });
    git(root, 'config', 'core.autocrlf', 'true');
    await save(root, { goal: 'g' });
    // Rewritten with CRLF endings: git sees the same content after its filter; the bytes differ.
    writeTree(root, { 'win.txt': 'a\r\nb\r\n' });
    expect((await load(root)).drift?.changedSince).toEqual([]);
    writeTree(root, { 'win.txt': 'a\r\nchanged\r\n' });
    expect((await load(root)).drift?.changedSince).toEqual(['win.txt']);
  });

  // Issue 26: drift skips `git hash-object` where no filter can apply (git/filters.ts); a clean filter
  // named where `git status` does not look must still be applied.
  it.each([
    ['info/attributes', '.git/info/attributes', '*.txt filter=unx\n'],
    // Not committed, so not in the index either: only the folder tells.
    ["an uncommitted .gitattributes in the file's folder", 'sub/.gitattributes', '*.txt filter=unx\n'],
  ])('does not flag a change undone by a clean filter named in %s', async (_where, file, attributes) => {
    const root = createRepo({ committed: { 'sub/a.txt': 'abc\n' }, dirty: { [file]: attributes } });
    // The filter takes out every X: a file that gains some is longer, so git's status lists it.
    git(root, 'config', 'filter.unx.clean', 'tr -d X');
    await save(root, { goal: 'g' });
    writeTree(root, { 'sub/a.txt': 'aXbXc\n' });
    expect((await load(root)).drift?.changedSince).toEqual([]);
    writeTree(root, { 'sub/a.txt': 'aXbXcd\n' });
    expect((await load(root)).drift?.changedSince).toEqual(['sub/a.txt']);
  });

  it('reads again only files written since the last save, and still flags a same-size edit made right after it', async () => {
    const root = createRepo({
      committed: { 'a.ts': 'a', 'b.ts': 'b' },
      dirty: { 'a.ts': 'a2', 'b.ts': 'b2', 'u.ts': 'u' },
    });
    // Files older than the quiet period are the ones a save remembers.
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS + 200));
    await save(root, { goal: 'g' });
    const memoryFile = path.join(projectStoreDir(defaultStoreBase(deps.env), root), 'file-hashes.json');
    expect(Object.keys(JSON.parse(readFileSync(memoryFile, 'utf8')).files).sort()).toEqual([
      'a.ts',
      'b.ts',
      'u.ts',
    ]);
    writeTree(root, { 'a.ts': 'a3' });
    expect((await load(root)).drift?.changedSince).toEqual(['a.ts']);
    await save(root, { goal: 'g' });
    expect((await load(root)).drift?.changedSince).toEqual([]);
    // A damaged memory only costs hashing again.
    writeFileSync(memoryFile, '{"version": 1, "files": ');
    writeTree(root, { 'b.ts': 'b3' });
    expect((await load(root)).drift?.changedSince).toEqual(['b.ts']);
  });

  it('says nothing changed when nothing did', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, dirty: { 'a.ts': 'b', 'u.ts': 'u' } });
    await save(root, { goal: 'g' });
    const loaded = await load(root);
    expect(loaded.drift).toMatchObject({ commitsSince: 0, changedSince: [], savedHeadReachable: true });
    expect(loaded.brief).toContain('- No file changed after the checkpoint');
  });

  it('notices a file changed by a commit made after the save', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a', 'b.ts': 'b' } });
    await save(root, { goal: 'g' });
    writeTree(root, { 'b.ts': 'changed and committed' });
    commitAll(root);
    expect((await load(root)).drift).toMatchObject({ commitsSince: 1, changedSince: ['b.ts'] });
  });

  it('notices a branch switch', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    await save(root, { goal: 'g' });
    git(root, 'checkout', '-q', '-b', 'other');
    const loaded = await load(root);
    expect(loaded.drift).toMatchObject({ branchChanged: true, currentBranch: 'other' });
    expect(loaded.brief).toContain('- Branch changed: `main` → `other`');
  });

  it('after git commit --amend that changed no file: one verdict, not "re-read" and "trust as is" (issue 26)', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    await save(root, { goal: 'g' });
    git(root, 'commit', '-q', '--amend', '-m', 'reworded');
    const loaded = await load(root);
    expect(loaded.drift).toMatchObject({ savedHeadReachable: false, changedSince: [] });
    expect(loaded.brief).toMatch(
      /Saved commit [0-9a-f]{9} is no longer reachable .*no file changed after the checkpoint/,
    );
    expect(loaded.brief).not.toContain('re-read');
    expect(loaded.brief).not.toContain('can be trusted as is');
  });

  it('says when the saved commit is no longer reachable', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    writeTree(root, { 'a.ts': 'b' });
    commitAll(root);
    await save(root, { goal: 'g' });
    git(root, 'reset', '-q', '--hard', 'HEAD~1');
    writeTree(root, { 'c.ts': 'c' });
    commitAll(root, 'rewritten');
    const loaded = await load(root);
    expect(loaded.drift).toMatchObject({ savedHeadReachable: false });
    expect(loaded.brief).toMatch(/Saved commit [0-9a-f]{9} is no longer reachable/);
    expect(loaded.drift?.changedSince).toEqual(['a.ts', 'c.ts']);
  });

  it('works outside git: git is null and the brief has no drift section', async () => {
    const root = tempDir();
    writeTree(root, { 'notes.md': 'n' });
    await save(root, { goal: 'g', modifiedFiles: [{ path: 'notes.md' }] });
    expect(stored(root).git).toBeNull();
    expect(stored(root).modifiedFiles[0]).toMatchObject({ path: 'notes.md', source: 'agent', status: 'M' });
    const loaded = await load(root);
    expect(loaded.drift).toBeNull();
    expect(loaded.brief).not.toContain('Since this checkpoint');
  });

  it('stores git null before the first commit, with the untracked files still listed', async () => {
    const root = createRepo({ dirty: { 'a.ts': 'a' } });
    await save(root, { goal: 'g' });
    expect(stored(root).git).toBeNull();
    expect(stored(root).modifiedFiles.map((f: { path: string }) => f.path)).toEqual(['.gitignore', 'a.ts']);
  });

  it('converts absolute paths inside the project, and refuses paths outside without writing', async () => {
    const root = createRepo({ committed: { 'src/a.ts': 'a' } });
    await save(root, { goal: 'g', modifiedFiles: [{ path: path.join(root, 'src/a.ts'), note: 'n' }] });
    expect(stored(root).modifiedFiles[0].path).toBe('src/a.ts');
    const before = readFileSync(path.join(root, '.claude-checkpoint'), 'utf8');
    await expect(save(root, { goal: 'other', modifiedFiles: [{ path: '../escape.ts' }] })).rejects.toThrow(
      /modifiedFiles\.0\.path is outside the project root/,
    );
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).toBe(before);
  });

  it('warns when the checkpoint is not git-ignored, and never edits .gitignore', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, ignore: 'dist\n' });
    const outcome = await save(root, { goal: 'g' });
    expect(outcome.warnings).toContain(
      '.claude-checkpoint is not git-ignored: add ".claude-checkpoint*" to .gitignore (this tool never edits it).',
    );
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('dist\n');
    // Its own files are never reported as the user's changes.
    await save(root, { goal: 'g' });
    expect(stored(root).modifiedFiles).toEqual([]);
  });

  it('notices at the next save when the user ignores the checkpoint, or stops ignoring it', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, ignore: 'dist\n' });
    const warned = async () =>
      (await save(root, { goal: 'g' })).warnings.some((warning) => warning.includes('is not git-ignored'));
    expect(await warned()).toBe(true);
    writeFileSync(path.join(root, '.gitignore'), 'dist\n.claude-checkpoint*\n');
    expect(await warned()).toBe(false);
    writeFileSync(path.join(root, '.gitignore'), 'dist\n');
    expect(await warned()).toBe(true);
    writeFileSync(path.join(root, '.git', 'info', 'exclude'), '/.claude-checkpoint\n');
    expect(await warned()).toBe(false);
    writeFileSync(path.join(root, '.git', 'info', 'exclude'), '');
    expect(await warned()).toBe(true);
  });

  it('merges into the checkpoint on disk and keeps id and createdAt', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    await save(root, { goal: 'g', tasks: [{ description: 't1', status: 'in_progress' }], decisions: ['d1'] });
    const first = stored(root);
    const outcome = await save(root, {
      goal: 'g',
      mode: 'merge',
      tasks: [{ description: 't1', status: 'done' }],
      recentCommands: [{ command: 'npm test', exitCode: 0 }],
    });
    expect(outcome.mode).toBe('merge');
    const second = stored(root);
    expect(second.id).toBe(first.id);
    expect(second.createdAt).toBe(first.createdAt);
    expect(second.goal.tasks).toEqual([{ description: 't1', status: 'done' }]);
    expect(second.decisions).toEqual(['d1']);
    expect(JSON.parse(readFileSync(path.join(root, '.claude-checkpoint.prev'), 'utf8')).id).toBe(first.id);
  });

  it('loses no update when many merge saves run at once in one process', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    await save(root, { goal: 'g' });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        save(root, { goal: 'g', mode: 'merge', decisions: [`decision ${i}`] }),
      ),
    );
    expect(stored(root).decisions).toHaveLength(20);
  });

  it('redacts secrets before they reach the disk', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const outcome = await save(root, {
      goal: 'g',
      recentCommands: [{ command: 'GITHUB_CLIENT_SECRET=gh_live_8f2a91 npm run dev', exitCode: 0 }],
    });
    expect(outcome.counts.redactions).toBe(1);
    expect(outcome.warnings).toContain('Redacted 1 secret-looking value(s).');
    const text = readFileSync(path.join(root, '.claude-checkpoint'), 'utf8');
    expect(text).not.toContain('gh_live_8f2a91');
    expect(text).toContain('GITHUB_CLIENT_SECRET=«redacted» npm run dev');
    expect(statSync(path.join(root, '.claude-checkpoint')).mode & 0o777).toBe(0o600);
  });

  it('merges onto the backup when the main file is corrupt, and says so', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    await save(root, { goal: 'g', decisions: ['one'] });
    await save(root, { goal: 'g', decisions: ['two'] });
    writeFileSync(path.join(root, '.claude-checkpoint'), '{ broken');
    const outcome = await save(root, { goal: 'g', mode: 'merge', decisions: ['three'] });
    expect(outcome.warnings[0]).toMatch(/loaded the backup/);
    expect(stored(root).decisions).toEqual(['one', 'three']);
  });

  it('keeps a damaged checkpoint it replaces as .claude-checkpoint.damaged, byte for byte, and says so', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    await save(root, { goal: 'g', decisions: ['one'] });
    await save(root, { goal: 'g', decisions: ['two'] });
    const prev = readFileSync(path.join(root, '.claude-checkpoint.prev'));
    // A hand edit with a typo: the user's latest words, which the backup does not hold.
    const edited = `${readFileSync(path.join(root, '.claude-checkpoint'), 'utf8').replace('"two"', '"two, and my own note"').slice(0, -3)}\n`;
    writeFileSync(path.join(root, '.claude-checkpoint'), edited);
    const outcome = await save(root, { goal: 'g', mode: 'merge', decisions: ['three'] });
    expect(readFileSync(path.join(root, '.claude-checkpoint.damaged'), 'utf8')).toBe(edited);
    expect(outcome.warnings.join('\n')).toMatch(/kept as \.claude-checkpoint\.damaged/);
    // The damaged file never becomes the backup: the good one stays.
    expect(readFileSync(path.join(root, '.claude-checkpoint.prev'))).toEqual(prev);
    expect(stored(root).decisions).toEqual(['one', 'three']);
    expect(statSync(path.join(root, '.claude-checkpoint.damaged')).mode & 0o777).toBe(0o600);
  });

  it('never replaces a damaged copy kept before, nor lets something else at its name stop a save', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    await save(root, { goal: 'g', decisions: ['one'] });
    const file = path.join(root, '.claude-checkpoint');
    writeFileSync(file, '{ first bad edit', { mode: 0o644 });
    chmodSync(file, 0o644);
    await save(root, { goal: 'g', mode: 'merge', decisions: ['two'] });
    writeFileSync(file, '{ second bad edit');
    // A folder where the next copy would go: the copy takes the name after it, and the save still works.
    mkdirSync(path.join(root, '.claude-checkpoint.damaged-2'));
    const outcome = await save(root, { goal: 'g', mode: 'merge', decisions: ['three'] });
    // The save names the copy it made, not the first one's name.
    expect(outcome.warnings.join('\n')).toMatch(
      /this save replaced is kept as \.claude-checkpoint\.damaged-3: copy/,
    );
    expect(readFileSync(`${file}.damaged`, 'utf8')).toBe('{ first bad edit');
    expect(readFileSync(`${file}.damaged-3`, 'utf8')).toBe('{ second bad edit');
    // A hand edit readable by others is kept as private as the checkpoint.
    expect(statSync(`${file}.damaged`).mode & 0o777).toBe(0o600);
    expect(stored(root).decisions).toContain('three');
    // Until it is deleted, every load says it is there.
    expect((await load(root)).warnings.join('\n')).toMatch(
      /kept as \.claude-checkpoint\.damaged, \.claude-checkpoint\.damaged-3: copy what you need from them/,
    );
    // One deleted, the other is still named; both deleted, none is.
    rmSync(`${file}.damaged`);
    expect((await load(root)).warnings.join('\n')).toMatch(/kept as \.claude-checkpoint\.damaged-3: copy/);
    rmSync(`${file}.damaged-3`);
    expect((await load(root)).warnings.join('\n')).not.toMatch(/damaged/);
  });

  it('keeps a damaged checkpoint with no valid backup too, and the next save does not take it again', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    writeFileSync(path.join(root, '.claude-checkpoint'), '{ "goal": my notes, not JSON yet', { mode: 0o600 });
    const first = await save(root, { goal: 'g', decisions: ['one'] });
    expect(first.warnings.join('\n')).toMatch(/kept as \.claude-checkpoint\.damaged/);
    expect(readFileSync(path.join(root, '.claude-checkpoint.damaged'), 'utf8')).toBe(
      '{ "goal": my notes, not JSON yet',
    );
    const second = await save(root, { goal: 'g', mode: 'merge', decisions: ['two'] });
    expect(second.warnings.join('\n')).not.toMatch(/this save replaced/);
    expect(existsSync(path.join(root, '.claude-checkpoint.damaged-2'))).toBe(false);
    expect(readFileSync(path.join(root, '.claude-checkpoint.damaged'), 'utf8')).toBe(
      '{ "goal": my notes, not JSON yet',
    );
  });
});

describe('project root resolution', () => {
  it('refuses to write a checkpoint at the file-system root (a client started in `/`); a home folder may hold one', async () => {
    const home = tempDir('checkpoint-home-');
    const deps = defaultDeps({
      env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: home },
      cwd: () => '/',
    });
    await expect(saveCheckpoint(deps, { goal: 'g' })).rejects.toThrow(
      /refusing to write a checkpoint in \/: it is the file-system root, not a project\. Pass projectRoot/,
    );
    await expect(saveCheckpoint(deps, { goal: 'g', projectRoot: '/' })).rejects.toThrow(
      /file-system root, not a project\. Give projectRoot a project's folder instead\./,
    );
    expect((await saveCheckpoint(deps, { goal: 'g', projectRoot: home })).path).toBe(
      path.join(home, '.claude-checkpoint'),
    );
  });

  it('follows argument, then CHECKPOINT_PROJECT_ROOT, then client roots, then cwd', async () => {
    const [a, b, c, d] = [tempDir(), tempDir(), tempDir(), tempDir()];
    const withEnv = defaultDeps({ env: { CHECKPOINT_PROJECT_ROOT: b }, cwd: () => d });
    const noEnv = defaultDeps({ env: { XDG_STATE_HOME: workerStateHome() }, cwd: () => d });
    const roots = { clientRoots: async () => ['https://not-a-file', `file://${c}`] };
    expect((await saveCheckpoint(withEnv, { goal: 'g', projectRoot: a }, roots)).root).toEqual({
      root: a,
      source: 'argument',
    });
    expect((await saveCheckpoint(withEnv, { goal: 'g' }, roots)).root).toEqual({
      root: b,
      source: 'environment',
    });
    expect((await saveCheckpoint(noEnv, { goal: 'g' }, roots)).root).toEqual({
      root: c,
      source: 'client-roots',
    });
    expect((await saveCheckpoint(noEnv, { goal: 'g' })).root).toEqual({
      root: d,
      source: 'working-directory',
    });
  });

  it('resolves symlinks, and refuses relative, missing and non-folder roots', async () => {
    const real = tempDir();
    const link = path.join(tempDir(), 'link');
    (await import('node:fs')).symlinkSync(real, link);
    expect((await saveCheckpoint(deps, { goal: 'g', projectRoot: link })).path).toBe(
      path.join(real, '.claude-checkpoint'),
    );
    await expect(saveCheckpoint(deps, { goal: 'g', projectRoot: './app' })).rejects.toThrow(
      "projectRoot must be an absolute path: got './app'",
    );
    await expect(saveCheckpoint(deps, { goal: 'g', projectRoot: path.join(real, 'nope') })).rejects.toThrow(
      /projectRoot does not exist/,
    );
    writeFileSync(path.join(real, 'file'), '');
    await expect(saveCheckpoint(deps, { goal: 'g', projectRoot: path.join(real, 'file') })).rejects.toThrow(
      /must be a directory/,
    );
    const badEnv = defaultDeps({ env: { CHECKPOINT_PROJECT_ROOT: 'relative/dir' } });
    await expect(saveCheckpoint(badEnv, { goal: 'g' })).rejects.toThrow(
      "CHECKPOINT_PROJECT_ROOT must be an absolute path: got 'relative/dir'",
    );
  });
});
