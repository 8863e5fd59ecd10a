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
