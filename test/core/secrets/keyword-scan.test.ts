import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKeywordScan } from '../../../src/core/secrets/keyword-scan.js';

describe('createKeywordScan', () => {
  const words = [
    'sk',
    'q~',
    'key',
    'key-',
    'pass',
    'passw',
    'password-stdin',
    'sk-ant-',
    'ssws',
    'é~x',
    '://',
  ];
  const scan = createKeywordScan(words);
  const occurring = (text: string) => words.flatMap((word, id) => (text.includes(word) ? [id] : []));

  it.each([
    ['', []],
    ['ke', []],
    ['key', ['key']],
    ['a key-value and a password', ['key', 'key-', 'pass', 'passw']],
    ['sk-ant-api03 http://x', ['sk', 'sk-ant-', '://']],
    ['passwor', ['pass', 'passw']],
    ['pas', []],
    ['é~x', ['é~x']],
  ])('finds in %j exactly the words that occur in it', (text, expected) => {
    expect(
      scan(text)
        .map((id) => words[id])
        .sort(),
    ).toEqual([...expected].sort());
  });

  it('finds the words that occur, each once, and no other (property)', () => {
    // Characters that share the table's five bits with the words' own (`K` and `k`, `@` and a space).
    const unit = fc.constantFrom(
      'k',
      'e',
      'y',
      '-',
      'p',
      'a',
      's',
      'w',
      'o',
      'r',
      'd',
      't',
      'i',
      'n',
      'q',
      '~',
      ':',
      '/',
      'é',
      'x',
      'K',
      'E',
      'Y',
      '@',
      ' ',
      'S',
      '\n',
      '{',
      '[',
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 60 }), (text) => {
        expect([...scan(text)].sort((a, b) => a - b)).toEqual(occurring(text));
      }),
      { numRuns: 2000 },
    );
  });
});
