import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

/**
 * Trial of 2026-12-07: the paths a person types on the CLI were taken from the project root, not from the
 * folder they were in; `--file ./a.ts` in src/ recorded a made-up deleted `a.ts` at the root. They are
 * taken from the current folder, as git takes them; the paths in `save --stdin`'s JSON from the root.
 */

beforeAll(assertBuilt);

function project() {
  const root = createRepo({ committed: { '.gitignore': '.claude-checkpoint*\n', 'src/a.ts': 'one\n' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('cwd-store-'), HOME: tempDir('cwd-home-') };
  const src = path.join(root, 'src');
  return { root, env, src };
}

const savedFiles = (root: string) =>
  (
    JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).modifiedFiles as Array<{
      path: string;
      status: string;
    }>
  ).map((file) => [file.path, file.status]);

describe('the CLI takes the paths a person types from the current folder', () => {
  // Review: a script or agent shell that still types root-relative paths from a subfolder noted a made-up
  // deleted src/src/a.ts, and from outside the project was refused as outside with no word of why.
  it('a path typed from a subfolder as from the root is refused with how to type it, and nothing is saved', async () => {
    const { root, env, src } = project();
    writeTree(root, { 'src/a.ts': 'two\n' });
    const inSub = await runCli(['save', '--goal', 'g', '--file', 'src/a.ts'], {
      cwd: src,
      env: { ...env, CHECKPOINT_PROJECT_ROOT: root },
    });
    expect(inSub.code).toBe(2);
    expect(inSub.stderr).toContain(
      "paths typed on the command line are taken from the current folder, as git takes them: 'src/a.ts' from the project root is 'a.ts' from here (or give an absolute path)",
    );
    expect(() => readFileSync(path.join(root, '.claude-checkpoint'))).toThrow();
    const outside = await runCli(['--root', root, 'save', '--goal', 'g', '--file', 'src/a.ts'], {
      cwd: path.dirname(root),
      env,
    });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain(
      `'src/a.ts' from the project root is '${path.join(path.basename(root), 'src', 'a.ts')}' from here`,
    );
    await runCli(['snapshot'], { cwd: root, env });
    const restore = await runCli(['restore', 'latest', 'src/a.ts', '--root', '..', '--dry-run'], {
      cwd: src,
      env,
    });
    expect(restore.code).not.toBe(0);
    expect(restore.stderr).toContain("'src/a.ts' from the project root is 'a.ts' from here");
  });

  // Review: a file deleted in the current folder, with a file of the same name at the root, was refused
  // as typed from the root; git reports it deleted, so it is taken as typed.
  it('a file deleted in the current folder is noted as deleted, though the root has one of that name', async () => {
    const root = createRepo({ committed: { 'README.md': 'top\n', 'src/README.md': 'package\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('cwd-store-'), HOME: tempDir('cwd-home-') };
    rmSync(path.join(root, 'src', 'README.md'));
    const saved = await runCli(['save', '--root', '..', '--goal', 'g', '--file', 'README.md'], {
      cwd: path.join(root, 'src'),
      env,
    });
    expect(saved.code, saved.stderr).toBe(0);
    expect(savedFiles(root)).toEqual([['src/README.md', 'D']]);
  });

  it('save --file ./a.ts in src/ with --root .. notes src/a.ts, not a deleted a.ts at the root', async () => {
    const { root, env, src } = project();
    writeTree(root, { 'src/a.ts': 'two\n' });
    const saved = await runCli(['save', '--root', '..', '--goal', 'g', '--file', './a.ts'], {
      cwd: src,
      env,
    });
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stderr).not.toMatch(/does not exist/);
    expect(savedFiles(root)).toEqual([['src/a.ts', 'M']]);
  });

  it('save --file p1/src/a.ts from the parent with --root p1 (as a shell completes it) notes src/a.ts', async () => {
    const { root, env } = project();
    writeTree(root, { 'src/a.ts': 'two\n' });
    const parent = path.dirname(root);
    const name = path.basename(root);
    const saved = await runCli(['save', '--root', name, '--goal', 'g', '--file', `${name}/src/a.ts`], {
      cwd: parent,
      env,
    });
    expect(saved.code, saved.stderr).toBe(0);
    expect(savedFiles(root)).toEqual([['src/a.ts', 'M']]);
  });

  it('save --file of a file not there: the warning says what it was taken as, and from which folder', async () => {
    const { root, env, src } = project();
    const saved = await runCli(['save', '--root', '..', '--goal', 'g', '--file', './b.ts'], {
      cwd: src,
      env,
    });
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout + saved.stderr).toContain(
      `--file: 'src/b.ts' (from './b.ts' in the current folder ${src}) does not exist; recorded as deleted`,
    );
    expect(savedFiles(root)).toEqual([['src/b.ts', 'D']]);
  });

  it('save --stdin: the paths in the JSON stay relative to the project root, as the tool takes them', async () => {
    const { root, env, src } = project();
    writeTree(root, { 'src/a.ts': 'two\n' });
    const saved = await runCli(['save', '--root', '..', '--stdin'], {
      cwd: src,
      env,
      input: JSON.stringify({ goal: 'g', modifiedFiles: [{ path: 'src/a.ts' }] }),
    });
    expect(saved.code, saved.stderr).toBe(0);
    expect(savedFiles(root)).toEqual([['src/a.ts', 'M']]);
  });

  it('save --file outside the project from the current folder: refused, naming it, the root and where it led', async () => {
    const { root, env, src } = project();
    const saved = await runCli(['save', '--root', '..', '--goal', 'g', '--file', '../../x.ts'], {
      cwd: src,
      env,
    });
    expect(saved.code).not.toBe(0);
    expect(saved.stderr).toContain(
      `--file is outside the project root ${root}: got '../../x.ts' (taken from the current folder ${src}: '${path.join(root, '..', 'x.ts')}')`,
    );
  });

  it('diff and restore in src/ take a.ts as src/a.ts; one not found says what it was taken as', async () => {
    const { root, env, src } = project();
    const cli = (...args: string[]) => runCli([...args, '--root', '..'], { cwd: src, env });
    expect((await cli('snapshot')).code).toBe(0);
    writeTree(root, { 'src/a.ts': 'two\n' });
    const diff = await cli('diff', 'latest', 'a.ts');
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('+two');
    const missing = await cli('diff', 'latest', 'nope.ts');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(
      `path 'src/nope.ts' (from 'nope.ts' in the current folder ${src}) is in neither snapshot`,
    );
    const unknown = await cli('restore', 'latest', 'nope.ts', '--yes');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain(`path 'src/nope.ts' (from 'nope.ts' in the current folder ${src})`);
    const restored = await cli('restore', 'latest', 'a.ts', '--yes');
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'src/a.ts'), 'utf8')).toBe('one\n');
  });

  it('restore in a folder that is not the project, with CHECKPOINT_PROJECT_ROOT: a path from that folder', async () => {
    const { root, env } = project();
    const elsewhere = tempDir('cwd-elsewhere-');
    mkdirSync(path.join(elsewhere, 'sub'));
    const withRoot = { ...env, CHECKPOINT_PROJECT_ROOT: root };
    expect((await runCli(['snapshot'], { cwd: root, env: withRoot })).code).toBe(0);
    writeTree(root, { 'src/a.ts': 'two\n' });
    const outside = await runCli(['restore', 'latest', 'src/a.ts', '--yes'], {
      cwd: elsewhere,
      env: withRoot,
    });
    expect(outside.code).not.toBe(0);
    expect(outside.stderr).toContain(
      `path is outside the project root ${root}: got 'src/a.ts' (taken from the current folder ${elsewhere}`,
    );
    const given = path.relative(elsewhere, path.join(root, 'src/a.ts'));
    const restored = await runCli(['restore', 'latest', given, '--yes'], { cwd: elsewhere, env: withRoot });
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'src/a.ts'), 'utf8')).toBe('one\n');
  });
});
