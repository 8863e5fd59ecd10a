import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isIgnoredByGitRemembered } from '../../src/git/ignore-check.js';
import { gitLoggingShim } from '../helpers/cli.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';

const FILE = '.claude-checkpoint';

/** A project whose checkpoint no .gitignore mentions, and a config file that names an excludes file. */
function project() {
  const root = createRepo({ committed: { 'a.txt': 'a\n' }, ignore: '' });
  writeFileSync(path.join(root, FILE), '{}\n');
  const dir = tempDir('ignore-config-');
  const excludes = path.join(dir, 'excludes');
  writeFileSync(excludes, '# nothing yet\n');
  const included = path.join(dir, 'included.gitconfig');
  writeFileSync(included, `[core]\n\texcludesFile = ${excludes}\n`);
  return { root, dir, excludes, included };
}

const home = process.env.HOME;
const searchPath = process.env.PATH;
afterEach(() => {
  process.env.HOME = home;
  process.env.PATH = searchPath;
  delete process.env.TRACE_GIT_LOG;
});

/** From now on, git on PATH writes down each command line before it runs; returns how to read them. */
function logGit(root: string): () => string[] {
  const shim = gitLoggingShim(root);
  process.env.TRACE_GIT_LOG = shim.log;
  process.env.PATH = `${shim.dir}${path.delimiter}${searchPath ?? ''}`;
  return shim.commands;
}

// Issue 26: the remembered answer watched only the default config files, so a long-running server kept a
// stale "is the checkpoint ignored" when a config file they include, or the excludes file it names, changed.
describe('isIgnoredByGitRemembered, asked again in the same process', () => {
  it('follows the excludes file that a config included by the project’s config names', async () => {
    const { root, excludes } = project();
    git(root, 'config', 'include.path', path.join(path.dirname(excludes), 'included.gitconfig'));
    expect(await isIgnoredByGitRemembered(root, FILE)).toBe(false);
    expect(await isIgnoredByGitRemembered(root, FILE)).toBe(false);
    writeFileSync(excludes, `${FILE}\n`);
    expect(await isIgnoredByGitRemembered(root, FILE)).toBe(true);
    writeFileSync(excludes, '# not any more\n');
    expect(await isIgnoredByGitRemembered(root, FILE)).toBe(false);
  });

  it('follows the excludes file that a config included by the user’s config names, and a change of that name', async () => {
    const { root, dir, excludes, included } = project();
    process.env.HOME = tempDir('ignore-home-');
    writeFileSync(path.join(process.env.HOME, '.gitconfig'), `[include]\n\tpath = ${included}\n`);
    expect(await isIgnoredByGitRemembered(root, FILE)).toBe(false);
    expect(await isIgnoredByGitRemembered(root, FILE)).toBe(false);
    writeFileSync(excludes, `${FILE}\n`);
    expect(await isIgnoredByGitRemembered(root, FILE)).toBe(true);
    // The included config now names another excludes file, which does not list the checkpoint.
    const other = path.join(dir, 'other-excludes');
    writeFileSync(other, '*.log\n');
    writeFileSync(included, `[core]\n\texcludesFile = ${other}\n`);
    expect(await isIgnoredByGitRemembered(root, FILE)).toBe(false);
  });

  it('runs no git while nothing it watches changed, once it has learnt the config files', async () => {
    const { root, excludes, included } = project();
    git(root, 'config', 'include.path', included);
    const ran = logGit(root);
    expect(await isIgnoredByGitRemembered(root, FILE)).toBe(false);
    expect(ran()).toEqual(['check-ignore -q -- .claude-checkpoint']);
    expect(await isIgnoredByGitRemembered(root, FILE)).toBe(false);
    expect(ran()).toHaveLength(3); // the config files learnt, and asked again
    for (let time = 0; time < 3; time++) expect(await isIgnoredByGitRemembered(root, FILE)).toBe(false);
    expect(ran()).toHaveLength(3);
    writeFileSync(excludes, `${FILE}\n`);
    expect(await isIgnoredByGitRemembered(root, FILE)).toBe(true);
    expect(ran().slice(3)).toEqual(['check-ignore -q -- .claude-checkpoint']);
  });
});
