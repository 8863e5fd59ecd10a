import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { carryFlags, changedOutsideRecorded, computeDrift } from '../../src/core/drift.js';
import { isOwnFile, toProjectPath } from '../../src/core/paths.js';
import { parseCheckpoint } from '../../src/core/schema.js';
import { formatAge, formatUtc } from '../../src/core/time.js';

describe('toProjectPath', () => {
  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['/home/me/app/src/a.ts', 'src/a.ts'],
    ['src/../b.ts', 'b.ts'],
    ['dir with space/ü.ts', 'dir with space/ü.ts'],
  ])('stores %j as %j', (given, stored) => {
    expect(toProjectPath('/home/me/app', given, 'modifiedFiles.0.path')).toBe(stored);
  });

  it.each(['../other/x.ts', '/etc/passwd', '/home/me/application/x', '..'])(
    'refuses %j outside the root',
    (given) => {
      expect(() => toProjectPath('/home/me/app', given, 'modifiedFiles.3.path')).toThrow(
        /modifiedFiles\.3\.path is outside the project root \/home\/me\/app/,
      );
    },
  );

  // A person types paths from the current folder, as git takes them (trial: `--file ./a.ts` in src/).
  it.each([
    ['/home/me/app/src', './a.ts', 'src/a.ts'],
    ['/home/me/app/src', '../b.ts', 'b.ts'],
    ['/home/me', 'app/src/a.ts', 'src/a.ts'],
    ['/home/me/app/src', '/home/me/app/c.ts', 'c.ts'],
  ])('from %j stores %j as %j', (from, given, stored) => {
    expect(toProjectPath('/home/me/app', given, '--file', { from })).toBe(stored);
  });

  it('refuses a path from the current folder outside the root, naming it, the root and what it was resolved to', () => {
    expect(() => toProjectPath('/home/me/app', '../../x.ts', '--file', { from: '/home/me/app/src' })).toThrow(
      "--file is outside the project root /home/me/app: got '../../x.ts' (taken from the current folder /home/me/app/src: '/home/me/x.ts')",
    );
  });

  it('refuses the root itself', () => {
    expect(() => toProjectPath('/home/me/app', '.', 'modifiedFiles.0.path')).toThrow(
      /not the project root itself/,
    );
  });

  it('recognises its own files', () => {
    expect(
      ['.claude-checkpoint', '.claude-checkpoint.prev', '.claude-checkpoint.lock'].every(isOwnFile),
    ).toBe(true);
    expect(isOwnFile('.claude-checkpointer')).toBe(false);
  });
});

describe('formatAge / formatUtc', () => {
  const now = new Date('2026-10-08T12:00:00Z');
  it.each([
    [0, 'just now'],
    [42, '42s ago'],
    [125, '2m ago'],
    [3 * 3600, '3h ago'],
    [47 * 3600, '47h ago'],
    [5 * 86400, '5d ago'],
    [-10, 'in the future'],
  ])('%i seconds → %s', (seconds, expected) => {
    expect(formatAge(new Date(now.getTime() - seconds * 1000), now)).toBe(expected);
  });
  it('prints UTC to the second', () => {
    expect(formatUtc(new Date('2026-10-08T02:23:55.477Z'))).toBe('2026-10-08 02:23:55 UTC');
  });
});

describe('computeDrift', () => {
  const saved = parseCheckpoint(
    readFileSync(new URL('../fixtures/spec-example.json', import.meta.url), 'utf8'),
  );
  const sameOids = new Map(saved.modifiedFiles.map((file) => [file.path, file.hash ?? null]));

  it('flags exactly the recorded files whose oid differs, and deleted ones', () => {
    const currentOids = new Map(sameOids);
    currentOids.set('src/auth/session.ts', 'f'.repeat(40));
    currentOids.set('src/auth/session.spec.ts', null);
    const drift = computeDrift({
      saved,
      currentBranch: 'feat/github-oauth',
      history: { kind: 'known', commitsSince: 1, rewritten: false },
      currentOids,
      changedOutsideRecorded: [],
    });
    expect(drift).toEqual({
      branchChanged: false,
      currentBranch: 'feat/github-oauth',
      commitsSince: 1,
      changedSince: ['src/auth/session.ts', 'src/auth/session.spec.ts'],
      savedHeadReachable: true,
      flaggedSince: null,
    });
  });

  it('keeps the files an automatic refresh flagged, with the time since which the notes are behind', () => {
    const flaggedAt = '2026-10-08T02:00:00.000Z';
    const refreshed = {
      ...saved,
      meta: { ...saved.meta, flagged: { since: flaggedAt, paths: ['b.ts', 'src/auth/session.ts'] } },
    };
    const drift = computeDrift({
      saved: refreshed,
      currentBranch: 'feat/github-oauth',
      history: { kind: 'known', commitsSince: 0, rewritten: false },
      currentOids: new Map([...sameOids, ['src/auth/session.ts', 'f'.repeat(40)]]),
      changedOutsideRecorded: ['a.ts'],
    });
    expect(drift.changedSince).toEqual(['src/auth/session.ts', 'a.ts', 'b.ts']);
    expect(drift.flaggedSince).toBe(flaggedAt);

    // The next refresh carries everything still flagged, and the original time.
    expect(carryFlags(refreshed, drift)).toEqual({ since: flaggedAt, paths: drift.changedSince });
    // A first refresh dates the flags from the checkpoint it refreshes; nothing changed, nothing carried.
    expect(carryFlags(saved, { ...drift, changedSince: ['x.ts'], flaggedSince: null })).toEqual({
      since: saved.updatedAt,
      paths: ['x.ts'],
    });
    expect(carryFlags(saved, { ...drift, changedSince: [], flaggedSince: null })).toBeUndefined();
    // Without git now, what was flagged stays flagged.
    expect(carryFlags(refreshed, null)).toEqual(refreshed.meta.flagged);
  });

  it('adds changes outside the recorded list, once, and reports rewritten or missing history', () => {
    const drift = computeDrift({
      saved,
      currentBranch: 'main',
      history: { kind: 'missing' },
      currentOids: sameOids,
      changedOutsideRecorded: ['z.ts', 'a.ts', 'src/auth/session.ts'],
    });
    expect(drift).toMatchObject({
      branchChanged: true,
      commitsSince: null,
      savedHeadReachable: false,
      changedSince: ['a.ts', 'z.ts'],
    });
    const rewritten = computeDrift({
      saved,
      currentBranch: 'feat/github-oauth',
      history: { kind: 'known', commitsSince: 2, rewritten: true },
      currentOids: sameOids,
      changedOutsideRecorded: [],
    });
    // Newcomer trial: after an amend, "1 new commit(s) on HEAD" counted from a commit HEAD no longer has.
    expect(rewritten).toMatchObject({ commitsSince: null, savedHeadReachable: false, changedSince: [] });
  });
});

describe('changedOutsideRecorded', () => {
  const H1 = '1'.repeat(40);
  const H2 = '2'.repeat(40);
  it.each([
    [
      'a dirty file whose content equals HEAD',
      [{ path: 'a', headOid: H1, isSubmodule: false }],
      new Map(),
      new Map([['a', H1]]),
      [],
    ],
    [
      'a dirty file edited after the save',
      [{ path: 'a', headOid: H1, isSubmodule: false }],
      new Map(),
      new Map([['a', H2]]),
      ['a'],
    ],
    [
      'a new untracked file',
      [{ path: 'n', headOid: null, isSubmodule: false }],
      new Map(),
      new Map([['n', H1]]),
      ['n'],
    ],
    ['a file changed by a new commit', [], new Map([['c', { before: H1, after: H2 }]]), new Map(), ['c']],
    [
      'a file changed by a commit, then restored in the worktree',
      [{ path: 'c', headOid: H2, isSubmodule: false }],
      new Map([['c', { before: H1, after: H2 }]]),
      new Map([['c', H1]]),
      [],
    ],
    [
      'a recorded file (compared elsewhere)',
      [{ path: 'r', headOid: H1, isSubmodule: false }],
      new Map(),
      new Map([['r', H2]]),
      [],
    ],
    ['a submodule', [{ path: 's', headOid: H1, isSubmodule: true }], new Map(), new Map(), []],
  ])('%s', (_name, dirty, commitChanges, currentOids, expected) => {
    expect(changedOutsideRecorded({ recorded: new Set(['r']), dirty, commitChanges, currentOids })).toEqual(
      expected,
    );
  });
});
