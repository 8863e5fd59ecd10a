import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  escapeControls,
  isUtf8,
  quoteBytesPath,
  quotePath,
  quotePathFully,
  shellWord,
} from '../../src/core/quote.js';
import { git, tempDir } from '../helpers/fixtures.js';

/** What real git prints for each name, as the reference: `git ls-files` with the given core.quotePath. */
function gitQuoted(names: readonly string[], quotePathFully: boolean): Map<string, string> {
  const root = tempDir('quote-');
  git(root, 'init', '-q');
  for (const name of names) writeFileSync(path.join(root, name), 'x');
  git(root, 'add', '-A');
  const listed = execFileSync('git', ['-c', `core.quotePath=${quotePathFully}`, 'ls-files'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
  const raw = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  expect(raw.sort()).toEqual(
    readdirSync(root)
      .filter((name) => name !== '.git')
      .sort(),
  );
  return new Map(raw.map((name, index) => [name, listed[index] ?? '']));
}

describe('quotePath quotes a name as git does', () => {
  // Names git leaves alone or C-quotes; printable non-ASCII as with core.quotePath=false.
  const plain = [
    'plain.txt',
    'with space.txt',
    'line\nfeed',
    'tab\there',
    'carriage\rreturn',
    'escape\u001b]0;title\u0007',
    'clear\u001b[2J',
    'quote"mark',
    'back\\slash',
    'bell\u0007and\u0008backspace\u000bvt\u000cff',
    'del\u007f',
    'café ünïcode 日本',
  ];
  it.each(plain)('%j is printed as git -c core.quotePath=false ls-files prints it', (name) => {
    expect(quotePath(name)).toBe(gitQuoted([name], false).get(name));
  });

  // Characters that reorder or hide text are escaped byte for byte, as git's default core.quotePath=true does.
  const hidden = ['rtl\u202eoverride', 'c1\u0085next-line', 'zero\u200bwidth', 'bom\ufeff', 'ls\u2028sep'];
  it.each(hidden)('%j is escaped as git -c core.quotePath=true ls-files escapes it', (name) => {
    expect(quotePath(name)).toBe(gitQuoted([name], true).get(name));
  });

  it('a lone surrogate (not a character) is shown as the replacement character', () => {
    expect(quotePath('a\ud800b')).toBe('"a\\357\\277\\275b"');
  });
});

describe('quotePathFully quotes a name as git with its default core.quotePath=true', () => {
  const names = [
    'plain.txt',
    'with space.txt',
    'line\nfeed',
    'quote"mark',
    'back\\slash',
    'café 日本',
    'rtl\u202e',
    'del\u007f',
  ];
  it.each(names)('%j', (name) => {
    expect(quotePathFully(name)).toBe(gitQuoted([name], true).get(name));
  });
});

describe('escapeControls', () => {
  it.each([
    ['Ship the parser', 'Ship the parser'],
    ['\u001b]0;owned\u0007Alice', '\\033]0;owned\\aAlice'],
    ['two\nlines', 'two\\nlines'],
    ['a "quoted" C:\\path', 'a "quoted" C:\\path'],
    ['hidden\u202eevil', 'hidden\\342\\200\\256evil'],
  ])('%j becomes %j', (text, expected) => {
    expect(escapeControls(text)).toBe(expected);
  });

  it('multiline keeps line feeds, tabs and CRLF, and escapes the rest', () => {
    expect(escapeControls('a\tb\r\nc\rd\u001b[2J\n', { multiline: true })).toBe('a\tb\r\nc\\rd\\033[2J\n');
  });
});

describe('shellWord: a printed command runs as printed (issue 26)', () => {
  it.each([
    'plain/path.ts',
    "it's here.txt",
    'a b $HOME `x` "q"',
    'tab\there',
    'line\nfeed',
    '-starts-with-dash',
    '~home',
    'ünïcode',
  ])('bash reads %j back as the same word', (word) => {
    const quoted = shellWord(word);
    expect(quoted).not.toMatch(/[\n\t]/);
    expect(execFileSync('bash', ['-c', `printf %s ${quoted}`], { encoding: 'utf8' })).toBe(word);
  });

  it('leaves an id and a plain path as they are', () => {
    expect(shellWord('20261206-131907-f47136')).toBe('20261206-131907-f47136');
    expect(shellWord('src/app.ts')).toBe('src/app.ts');
  });
});

describe('quoteBytesPath: a name that is not valid UTF-8, as git status shows it (trial 4, item 1)', () => {
  it.each([
    [[0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74], '"caf\\351.txt"'],
    [[0xc3, 0xa9, 0xff], '"é\\377"'],
    [[0x22, 0x0a, 0xe2, 0x82], '"\\"\\n\\342\\202"'],
  ])('%j -> %s', (bytes, shown) => {
    expect(isUtf8(Uint8Array.from(bytes))).toBe(false);
    expect(quoteBytesPath(Uint8Array.from(bytes))).toBe(shown);
  });
});
