import { describe, expect, it } from 'vitest';
import { includeMatcher, includePathspecs } from '../../src/core/include-ignored.js';

// Expected answers are git's own for the same lines in a .gitignore (`git check-ignore`), folders included.
describe('includeMatcher', () => {
  it.each([
    ['.env*', '.env', true],
    ['.env*', '.env.local', true],
    ['.env*', 'apps/web/.env.production', true],
    ['.env*', 'env', false],
    ['.env*', 'my.env', false],
    ['*.local.json', 'settings.local.json', true],
    ['*.local.json', 'config/db.local.json', true],
    ['*.local.json', 'config/db.local.json.bak', false],
    ['config/*.json', 'config/a.json', true],
    ['config/*.json', 'config/sub/a.json', false],
    ['config/*.json', 'other/config/a.json', false],
    ['/config/*.json', 'config/a.json', true],
    ['secrets/', 'secrets/key.pem', true],
    ['secrets/', 'deep/secrets/key.pem', true],
    ['secrets', 'secrets/a/b/c', true],
    ['data/**/*.csv', 'data/x.csv', true],
    ['data/**/*.csv', 'data/2024/01/x.csv', true],
    ['data/**/*.csv', 'other/data/x.csv', false],
    ['data/**', 'data/a/b', true],
    ['**/fixtures/*.db', 'a/b/fixtures/x.db', true],
    ['file?.txt', 'file1.txt', true],
    ['file?.txt', 'file10.txt', false],
    ['[ab].key', 'a.key', true],
    ['[!ab].key', 'a.key', false],
    ['[!ab].key', 'c.key', true],
    ['a+b(1).txt', 'a+b(1).txt', true],
    ['\\*.txt', '*.txt', true],
    ['\\*.txt', 'a.txt', false],
  ])('%s includes %s: %s', (glob, file, expected) => {
    expect(includeMatcher([glob])(file)).toBe(expected);
  });

  // Issue 26 (a sibling of audit item 10): a project's committed `snapshotIncludeIgnored` pattern was
  // compiled to a regular expression, and stars in a row backtracked on a long name: `*a*a*a*a*a*a*a*a*b`
  // on 200 letters would run for years, in every snapshot and prompt hook.
  it('matches in time that grows with the path and the pattern alone, whatever the stars', () => {
    const glob = `${'*a'.repeat(12)}*b`;
    expect(includeMatcher([glob])(`${'a'.repeat(250)}.txt`)).toBe(false);
    expect(includeMatcher([glob])(`dir/${'a'.repeat(250)}b`)).toBe(true);
    expect(includeMatcher([`**/${'*a'.repeat(12)}/**/x`])(`${'a/'.repeat(2000)}y`)).toBe(false);
  });

  it('includes a path when any pattern does, and nothing with no pattern', () => {
    const matches = includeMatcher(['.env*', '*.local.json']);
    expect(['.env', 'x.local.json', 'src/a.ts'].map(matches)).toEqual([true, true, false]);
    expect(includeMatcher([])('.env')).toBe(false);
  });
});

describe('includePathspecs', () => {
  it('looks everywhere for a name, and only under the named folders for a path', () => {
    expect(includePathspecs(['.env*', '/config/*.json', 'secrets/'])).toEqual({
      anywhere: [':(glob)**/.env*', ':(glob)**/.env*/**', ':(glob)**/secrets', ':(glob)**/secrets/**'],
      anchored: [':(glob)config/*.json', ':(glob)config/*.json/**'],
    });
  });
});
