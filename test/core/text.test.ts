import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allMatches, forEachMatch } from '../../src/core/text.js';

describe('allMatches', () => {
  // The reference is the language's own matchAll, empty matches and surrogate pairs included.
  const patterns = [/a+/g, /x*/g, /(?:)/gu, /(?<k>\w+)=(?<v>[^\s]*)/g, /\b/g, /.?/gu, /[\uD83D]?/g];
  const texts = fc.string({ unit: fc.constantFrom('a', 'x', '=', ' ', 'k', '😀', 'é', '\n'), maxLength: 30 });

  it('finds what matchAll finds, at the same places, and leaves the pattern reusable (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...patterns), texts, (pattern, text) => {
        const expected = [...text.matchAll(pattern)].map((m) => [m.index, m[0], { ...m.groups }]);
        const actual = allMatches(pattern, text).map((m) => [m.index, m[0], { ...m.groups }]);
        expect(actual).toEqual(expected);
        expect(pattern.lastIndex).toBe(0);
      }),
      { numRuns: 500 },
    );
  });
});

describe('forEachMatch', () => {
  const patterns = [/a+/g, /x*/g, /(?:)/gu, /(?<k>\w+)=(?<v>[^\s]*)/g, /\b/g, /.?/gu, /[\uD83D]?/g];
  const texts = fc.string({ unit: fc.constantFrom('a', 'x', '=', ' ', 'k', '😀', 'é', '\n'), maxLength: 30 });

  it('visits what allMatches finds, in order, and leaves the pattern reusable (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...patterns), texts, (pattern, text) => {
        const expected = allMatches(pattern, text).map((m) => [m.index, m[0], { ...m.groups }]);
        const actual: unknown[] = [];
        forEachMatch(pattern, text, (m) => actual.push([m.index, m[0], { ...m.groups }]));
        expect(actual).toEqual(expected);
        expect(pattern.lastIndex).toBe(0);
      }),
      { numRuns: 500 },
    );
  });
});
