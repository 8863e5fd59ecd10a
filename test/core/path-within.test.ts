import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathWithin } from '../../src/core/paths.js';

// Issue 26: whether a project lies in the store, and where a repository puts it, told from the strings
// on POSIX (pathWithin) where path.relative's first call compiled Node's function in every process.

/** path.relative's answer where `inner` is `outer` or inside it, else `null`: what pathWithin replaces. */
function byRelative(outer: string, inner: string): string | null {
  const relative = path.posix.relative(outer, inner);
  return relative === '..' || relative.startsWith('../') ? null : relative;
}

describe.skipIf(path.sep !== '/')('pathWithin', () => {
  it.each([
    ['/', '/', ''],
    ['/', '/a', 'a'],
    ['/a', '/a', ''],
    ['/a', '/a/b/c', 'b/c'],
    ['/a', '/ab', null],
    ['/a/b', '/a', null],
    ['/a', '/b', null],
    ['/a b/ü', '/a b/ü/.git', '.git'],
  ])('%s holds %s: %s', (outer, inner, expected) => {
    expect(pathWithin(outer, inner)).toBe(expected);
    expect(byRelative(outer, inner)).toBe(expected);
  });

  it('answers as path.relative for any two resolved paths', () => {
    const name = fc.constantFrom('a', 'b', 'ab', '.a', 'a.', '..a', 'a b', 'é', '-', '.git');
    const resolved = fc.array(name, { maxLength: 5 }).map((names) => path.posix.resolve('/', ...names));
    fc.assert(
      fc.property(resolved, resolved, (outer, inner) => {
        expect(pathWithin(outer, inner)).toBe(byRelative(outer, inner));
        // An ancestor made from the other: the case that answers a path.
        const ancestor = path.posix.dirname(inner);
        expect(pathWithin(ancestor, inner)).toBe(byRelative(ancestor, inner));
      }),
      { numRuns: 2000 },
    );
  });
});
