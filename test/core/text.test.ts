import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allMatches, charLength, clip, cutChars, cutUnits, forEachMatch } from '../../src/core/text.js';

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

// New-user trial (issue 26): a label cut at 200 UTF-16 units kept half an emoji (a lone \ud83d).
describe('characters: counted and cut as code points, never inside a surrogate pair', () => {
  const texts = fc.string({
    unit: fc.constantFrom('a', 'é', '😀', '\u{1F468}\u200D\u{1F469}', '\ud83d', '\ude00'),
    maxLength: 40,
  });
  const hasLonePairHalf = (cut: string, whole: string) =>
    /[\ud800-\udbff]$/.test(cut) && /^[\udc00-\udfff]/.test(whole.slice(cut.length));

  it.each([
    ['plain text', 'abc', 3],
    ['an emoji is one character', '😀😀', 2],
    ['a lone surrogate counts as one', '\ud83dx', 2],
    ['a joined family is its code points', '\u{1F468}\u200D\u{1F469}', 3],
  ])('charLength: %s', (_title, text, length) => {
    expect(charLength(text)).toBe(length);
    expect(charLength(text)).toBe([...text].length);
  });

  it('cutChars keeps the first N code points, clip at most N with its ellipsis, cutUnits at most N units (property)', () => {
    fc.assert(
      fc.property(texts, fc.nat(45), (text, max) => {
        const chars = [...text];
        expect(cutChars(text, max)).toBe(chars.slice(0, max).join(''));
        const clipped = clip(text, max);
        expect(charLength(clipped)).toBeLessThanOrEqual(Math.max(max, 1));
        if (chars.length <= max) expect(clipped).toBe(text);
        else expect(clipped).toBe(`${chars.slice(0, Math.max(0, max - 1)).join('')}…`);
        const units = cutUnits(text, max);
        expect(units.length).toBeLessThanOrEqual(max);
        expect(text.startsWith(units)).toBe(true);
        expect(units.length).toBeGreaterThanOrEqual(Math.min(text.length, max) - 1);
        expect(hasLonePairHalf(units, text)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('199 x and an emoji: the 200th character is the emoji, whole', () => {
    expect(cutChars(`${'x'.repeat(199)}😀 and more`, 200)).toBe(`${'x'.repeat(199)}😀`);
    expect(cutUnits(`${'x'.repeat(199)}😀`, 200)).toBe('x'.repeat(199));
  });
});
