import { describe, expect, it } from 'vitest';
import { creditStretches, TURN_END_TRIGGER } from '../../src/core/rewind-credit.js';
import { selectExpired } from '../../src/core/snapshot.js';

const A = 'session-a';
const B = 'session-b';
const at = (trigger: string, sessionId?: string) => ({ trigger, ...(sessionId ? { sessionId } : {}) });
const end = (sessionId: string) => at(TURN_END_TRIGGER, sessionId);

describe('creditStretches: whose turn ran between two snapshots', () => {
  it.each([
    ['a turn, then a hand edit after it ended', [at('prompt', A), end(A)], [[A], []]],
    [
      'a manual snapshot inside a turn is still the turn',
      [at('prompt', A), at('manual'), end(A)],
      [[A], [A], []],
    ],
    [
      'another session’s command and compaction are that session’s, whatever the trigger',
      [at('prompt', A), end(A), at('pre-command', B), at('pre-compact', B), end(B)],
      [[A], [], [B], [B], []],
    ],
    [
      'a compaction between turns credits only the stretch after it',
      [at('prompt', A), end(A), at('pre-compact', A), at('manual')],
      [[A], [], [A], []],
    ],
    [
      'overlapping turns: both sessions, until each one’s end',
      [at('prompt', A), at('prompt', B), end(A), end(B)],
      [[A], [A, B], [B], []],
    ],
    [
      'a rewind between turns is the session it went back to; a snapshot by hand, no one’s',
      [at('prompt', A), end(A), at('pre-restore', A), at('manual')],
      [[A], [], [A], []],
    ],
    [
      'a session that never marks its turn ends: only the stretches its own snapshots open',
      [at('prompt', A), at('manual'), at('prompt', A)],
      [[A], [], [A]],
    ],
  ])('%s', (_title, snapshots, credited) => {
    expect(creditStretches(snapshots)).toEqual(credited);
  });
});

describe('selectExpired: turn ends go with their turn and are not counted', () => {
  const now = new Date('2026-12-02T12:00:00Z');
  // Newest first: p5 e4 p4 e3 p3 e2 p2 e1 p1 (pN a prompt, eN the end of its turn).
  const snapshots = [5, 4, 3, 2, 1].flatMap((n) => [
    ...(n < 5 ? [{ id: `e${n}`, createdAt: `2026-12-02T10:0${n}:30Z` }] : []),
    { id: `p${n}`, createdAt: `2026-12-02T10:0${n}:00Z` },
  ]);
  const settings = { maxCount: 3, maxAgeDays: 30 };

  it('keeps maxCount prompts and the ends of their turns', () => {
    const expired = selectExpired(snapshots, settings, now, (id) => id.startsWith('e'));
    expect(expired.map((snapshot) => snapshot.id)).toEqual(['e2', 'p2', 'e1', 'p1']);
  });

  it('counted as snapshots when nothing says which are turn ends', () => {
    expect(selectExpired(snapshots, settings, now).map((snapshot) => snapshot.id)).toEqual([
      'e3',
      'p3',
      'e2',
      'p2',
      'e1',
      'p1',
    ]);
  });

  it('the snapshot just taken counts as the newest, though its id sorts below others of its second', () => {
    const second = '2026-12-02T11:00:00.000Z';
    const sameSecond = ['c', 'b', 'a'].map((id) => ({ id, createdAt: second }));
    // Without `justTaken`, `a` (the one just taken) would sort last and be the one beyond the count.
    expect(selectExpired(sameSecond, { maxCount: 2, maxAgeDays: 30 }, now).map((s) => s.id)).toEqual(['a']);
    expect(
      selectExpired(sameSecond, { maxCount: 2, maxAgeDays: 30 }, now, undefined, 'a').map((s) => s.id),
    ).toEqual(['b']);
  });

  it('at most maxCount turn ends, even with no prompts between them', () => {
    const ends = [5, 4, 3, 2, 1].map((n) => ({ id: `e${n}`, createdAt: `2026-12-02T10:0${n}:30Z` }));
    expect(selectExpired(ends, settings, now, () => true).map((snapshot) => snapshot.id)).toEqual([
      'e2',
      'e1',
    ]);
  });
});
