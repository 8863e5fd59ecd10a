import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mayFilterOnCheckin } from '../../src/git/filters.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';

// Issue 26: `status` skips `git hash-object` when no filter can apply; every place git reads a filter,
// an EOL conversion or more config from must keep it. The system git on Linux is the case the shortcut
// knows; the system's own /etc files are not ours to write, so they are not tested here.
const systemGit = process.platform === 'linux' && existsSync('/usr/bin/git');

function setUp() {
  const root = createRepo({ committed: { 'a.txt': 'a\n', 'src/deep/b.ts': 'b\n', 'other/c.ts': 'c\n' } });
  const home = tempDir('checkpoint-home-');
  const env = { PATH: '/usr/bin:/bin', HOME: home };
  const paths = ['a.txt', 'src/deep/b.ts'];
  return {
    root,
    home,
    env,
    ask: (extra: NodeJS.ProcessEnv = {}) => mayFilterOnCheckin(root, paths, { ...env, ...extra }),
  };
}

describe.runIf(systemGit)('mayFilterOnCheckin', () => {
  it('answers no in a plain repository with the system git, and no config or attributes', () => {
    expect(setUp().ask()).toBe(false);
  });

  it.each([
    [
      'core.autocrlf in the repository config',
      ({ root }: Setup) => git(root, 'config', 'core.autocrlf', 'input'),
    ],
    ['core.eol in the repository config', ({ root }: Setup) => git(root, 'config', 'core.eol', 'crlf')],
    ['an include in the repository config', ({ root }: Setup) => git(root, 'config', 'include.path', '/x')],
    [
      'core.attributesFile in the user config',
      ({ home }: Setup) => writeFileSync(path.join(home, '.gitconfig'), '[core]\n\tattributesFile = /x\n'),
    ],
    [
      'core.autocrlf in the XDG config',
      ({ home }: Setup) => writeTree(home, { '.config/git/config': '[core]\n\tAutoCRLF = true\n' }),
    ],
    ['the user’s attributes file', ({ home }: Setup) => writeTree(home, { '.config/git/attributes': '' })],
    [
      'info/attributes',
      ({ root }: Setup) => writeTree(root, { '.git/info/attributes': '*.txt filter=lfs\n' }),
    ],
    [
      'a .gitattributes at the top',
      ({ root }: Setup) => writeTree(root, { '.gitattributes': '* text=auto\n' }),
    ],
    [
      'a .gitattributes in a folder on a path',
      ({ root }: Setup) => writeTree(root, { 'src/.gitattributes': '*.ts text\n' }),
    ],
    [
      'a .gitattributes in the index only (deleted from the working tree)',
      ({ root }: Setup) => {
        writeTree(root, { 'src/deep/.gitattributes': '*.ts ident\n' });
        git(root, 'add', 'src/deep/.gitattributes');
        rmSync(path.join(root, 'src/deep/.gitattributes'));
      },
    ],
    [
      'index version 4 (paths compressed)',
      ({ root }: Setup) => git(root, 'update-index', '--index-version', '4'),
    ],
    [
      'a `.git` file (a worktree or submodule)',
      ({ root }: Setup) => {
        rmSync(path.join(root, '.git'), { recursive: true });
        writeFileSync(path.join(root, '.git'), 'gitdir: /elsewhere\n');
      },
    ],
  ])('answers yes with %s', (_name, change) => {
    const setup = setUp();
    change(setup);
    expect(setup.ask()).toBe(true);
  });

  it('answers no for a .gitattributes in a folder none of the paths is in', () => {
    const setup = setUp();
    writeTree(setup.root, { 'other/.gitattributes': '*.ts text\n' });
    expect(setup.ask()).toBe(false);
  });

  it('answers yes with another git first on PATH, or another system than Linux', () => {
    const setup = setUp();
    const bin = tempDir('checkpoint-bin-');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'git'), '#!/bin/sh\nexec /usr/bin/git "$@"\n', { mode: 0o755 });
    expect(setup.ask({ PATH: `${bin}:/usr/bin` })).toBe(true);
    expect(setup.ask({ PATH: 'bin:/usr/bin' })).toBe(true);
    expect(mayFilterOnCheckin(setup.root, ['a.txt'], setup.env, 'darwin')).toBe(true);
  });
});

type Setup = ReturnType<typeof setUp>;
