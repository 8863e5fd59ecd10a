import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfigList } from '../../src/git/config-watch.js';
import { runGit } from '../../src/git/run.js';
import { type ConfigGit, globalExcludesChanged } from '../../src/store/global-excludes.js';
import type { StoreState } from '../../src/store/store-state.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

const context = { root: '/work/app', home: '/home/me' };
/** One value of `git config --list --show-origin -z`; a bare key has no value. */
const value = (origin: string, key: string, text?: string) =>
  `${origin}\0${text === undefined ? key : `${key}\n${text}`}\0`;

describe('parseConfigList', () => {
  it.each([
    [
      'a system config outside /etc (Homebrew) is watched',
      value('file:/opt/homebrew/etc/gitconfig', 'credential.helper', 'osxkeychain'),
      { configFiles: ['/opt/homebrew/etc/gitconfig'], excludesFile: null },
    ],
    [
      'an included file and the excludes file it names, ~ expanded as git --path does',
      value('file:/home/me/.gitconfig', 'include.path', 'extra.cfg') +
        value('file:/home/me/extra.cfg', 'core.excludesfile', '~/ignores'),
      { configFiles: ['/home/me/.gitconfig', '/home/me/extra.cfg'], excludesFile: '/home/me/ignores' },
    ],
    [
      'a conditional include is watched whether or not it applies, ~ expanded',
      value('file:/home/me/.gitconfig', 'includeif.gitdir:~/work/.path', '~/work.cfg'),
      { configFiles: ['/home/me/.gitconfig', '/home/me/work.cfg'], excludesFile: null },
    ],
    [
      'a relative origin is the project’s; the last excludes file wins; a bare key has no value',
      value('file:/etc/gitconfig', 'core.excludesFile', '/etc/ignores') +
        value('file:.git/config', 'core.bare') +
        value('file:.git/config', 'core.excludesFile', 'local-ignores'),
      { configFiles: ['/etc/gitconfig', '/work/app/.git/config'], excludesFile: 'local-ignores' },
    ],
    [
      'an empty excludes file is none; a value from the command line is no file',
      value('file:/home/me/.gitconfig', 'core.excludesFile', '/x') +
        value('command line:', 'core.excludesFile', ''),
      { configFiles: ['/home/me/.gitconfig'], excludesFile: null },
    ],
    ['no config at all', '', { configFiles: [], excludesFile: null }],
  ])('%s', (_title, output, expected) => {
    expect(parseConfigList(output, context)).toEqual(expected);
  });
});

describe('globalExcludesChanged', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  /** The project's own git for a real project (the store reads no excludes file of its own), each call counted. */
  const setUp = () => {
    const home = tempDir('checkpoint-home-');
    vi.stubEnv('HOME', home);
    const root = createRepo({ committed: { 'a.js': 'a\n' } });
    const calls: string[][] = [];
    const counted: ConfigGit = (args) => {
      calls.push([...args]);
      return runGit(args, { cwd: root });
    };
    return { home, root, git: counted, calls };
  };

  it('a record from a version that watched fixed files only asks git once, then not again', async () => {
    const { root, git: counted, calls } = setUp();
    const state: StoreState = {
      exclusions: { large: [], nested: [] },
      globalExcludes: { configs: 'old', file: 'x', excludes: 'old' } as never,
    };
    expect(await globalExcludesChanged(counted, root, state)).toBe(true);
    expect(calls).toEqual([['config', '--list', '--show-origin', '--includes', '-z']]);
    expect(await globalExcludesChanged(counted, root, state)).toBe(false);
    expect(calls).toHaveLength(1);
  });

  it('a new file in an include that was missing is noticed, and the excludes file it names', async () => {
    const { home, root, git: counted, calls } = setUp();
    writeFileSync(path.join(home, '.gitconfig'), '[include]\n\tpath = ~/later.cfg\n');
    const state: StoreState = { exclusions: { large: [], nested: [] } };
    await globalExcludesChanged(counted, root, state);
    expect(state.globalExcludes?.file).toBe(path.join(home, '.config', 'git', 'ignore'));
    writeFileSync(path.join(home, 'later.cfg'), '[core]\n\texcludesFile = ~/ignores\n');
    expect(await globalExcludesChanged(counted, root, state)).toBe(true);
    expect(calls).toHaveLength(2);
    expect(state.globalExcludes?.file).toBe(path.join(home, 'ignores'));
    expect(state.globalExcludes?.configFiles).toContain(path.join(home, 'later.cfg'));
    writeFileSync(path.join(home, 'ignores'), 'a.js\n');
    expect(await globalExcludesChanged(counted, root, state)).toBe(true);
    expect(calls).toHaveLength(2);
    expect(os.homedir()).toBe(home);
  });
});
