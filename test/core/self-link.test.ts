import { describe, expect, it } from 'vitest';
import { countedAs, isLinkToItself, isLinkTypeChange } from '../../src/core/self-link.js';

describe('a symbolic link to itself', () => {
  it.each([
    ['x', 'x', true],
    ['x', './x', true],
    ['x', 'x/', true],
    ['d/x', 'x', true],
    ['d/x', '../d/x', true],
    ['d/x', 'd/x', false],
    ['x', 'y', false],
    ['x', '/x', false],
    ['x', '', false],
    ['x', '../x', false],
    ['d/x', './../d/x', true],
    // Up from a name the target walks into, which may be a link elsewhere: not said from the text.
    ['w', 'y/../w', false],
    ['d/x', 'e/../x', false],
  ])('at %s pointing to %s: %s', (file, target, expected) => {
    expect(isLinkToItself(file, target)).toBe(expected);
  });

  const file = { mode: '100644', isLinkToItself: false };
  const loop = { mode: '120000', isLinkToItself: true };
  const link = { mode: '120000', isLinkToItself: false };
  const absent = { mode: '000000', isLinkToItself: false };
  it.each([
    ['a file replaced by a link to itself is deleted', file, loop, 'deleted'],
    ['a link to itself replaced by a file is added', loop, file, 'added'],
    ['a file replaced by a link elsewhere is modified', file, link, 'modified'],
    ['a file edited is modified', file, { ...file }, 'modified'],
    ['a new link to itself is added', absent, loop, 'added'],
    ['a link to itself removed is deleted', loop, absent, 'deleted'],
  ] as const)('%s', (_, before, after, expected) => {
    expect(countedAs(before, after)).toBe(expected);
  });

  it('a typechange is a link on one side and something else on the other', () => {
    expect(isLinkTypeChange({ beforeMode: '100644', afterMode: '120000' })).toBe(true);
    expect(isLinkTypeChange({ beforeMode: '120000', afterMode: '100755' })).toBe(true);
    expect(isLinkTypeChange({ beforeMode: '120000', afterMode: '120000' })).toBe(false);
    expect(isLinkTypeChange({ beforeMode: '000000', afterMode: '120000' })).toBe(false);
    expect(isLinkTypeChange({ beforeMode: '100644', afterMode: '100755' })).toBe(false);
  });
});
