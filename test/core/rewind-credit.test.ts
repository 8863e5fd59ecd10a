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

describe('selectExpired: prompts are counted per session, the rest go with their turn', () => {
  const now = new Date('2026-12-02T12:00:00Z');
  // Newest first: p5 e4 p4 e3 p3 e2 p2 e1 p1 (pN a prompt, eN the end of its turn).
  const snapshots = [5, 4, 3, 2, 1].flatMap((n) => [
    ...(n < 5 ? [{ id: `e${n}`, createdAt: `2026-12-02T10:0${n}:30Z` }] : []),
    { id: `p${n}`, createdAt: `2026-12-02T10:0${n}:00Z` },
  ]);
  const settings = { maxCount: 3, maxAgeDays: 30 };
  const turns = (id: string) => at(id.startsWith('e') ? TURN_END_TRIGGER : 'prompt', A);
  const ids = (expired: ReadonlyArray<{ id: string }>) => expired.map((snapshot) => snapshot.id);

  it('keeps maxCount prompts and the ends of their turns', () => {
    expect(ids(selectExpired(snapshots, settings, now, turns))).toEqual(['e2', 'p2', 'e1', 'p1']);
  });

  it('counted as snapshots when nothing says which are turn ends', () => {
    expect(ids(selectExpired(snapshots, settings, now))).toEqual(['e3', 'p3', 'e2', 'p2', 'e1', 'p1']);
  });

  it('the snapshot just taken counts as the newest, though its id sorts below others of its second', () => {
    const second = '2026-12-02T11:00:00.000Z';
    const sameSecond = ['c', 'b', 'a'].map((id) => ({ id, createdAt: second }));
    // Without `justTaken`, `a` (the one just taken) would sort last and be the one beyond the count.
    expect(ids(selectExpired(sameSecond, { maxCount: 2, maxAgeDays: 30 }, now))).toEqual(['a']);
    expect(ids(selectExpired(sameSecond, { maxCount: 2, maxAgeDays: 30 }, now, undefined, 'a'))).toEqual([
      'b',
    ]);
  });

  it('at most maxCount turn ends, even with no prompts between them', () => {
    const ends = [5, 4, 3, 2, 1].map((n) => ({ id: `e${n}`, createdAt: `2026-12-02T10:0${n}:30Z` }));
    expect(ids(selectExpired(ends, settings, now, () => end(A)))).toEqual(['e2', 'e1']);
  });

  // The trial's repro (issue 26, trial 4): 4 prompts of session A with 2 pre-command snapshots each, a
  // manual one, then session B's prompts; at a count of 3, every session keeps its 3 newest prompts.
  const minute = (n: number) => `2026-12-02T10:${String(n).padStart(2, '0')}:00Z`;
  const mixed: Array<{ id: string; createdAt: string; kind: ReturnType<typeof at> }> = [];
  let clock = 0;
  const add = (id: string, kind: ReturnType<typeof at>) =>
    mixed.push({ id, createdAt: minute(clock++), kind });
  for (let n = 1; n <= 4; n++) {
    add(`A${n}`, at('prompt', A));
    add(`A${n}c1`, at('pre-command', A));
    add(`A${n}c2`, at('pre-command', A));
  }
  add('m', at('manual'));
  for (let n = 1; n <= 4; n++) add(`B${n}`, at('prompt', B));
  const kindOf = (id: string) => mixed.find((snapshot) => snapshot.id === id)?.kind;

  it('other kinds and other sessions never push a session’s prompt out', () => {
    expect(ids(selectExpired(mixed, settings, now, kindOf)).sort()).toEqual(['A1', 'A1c1', 'A1c2', 'B1']);
  });

  it('past the ceiling (ten times the count), the oldest that are not prompts go first', () => {
    const one = { maxCount: 1, maxAgeDays: 30 };
    // Count 1: A4 and its two commands, the manual one, B4 (5 kept) fit under a ceiling of 10.
    expect(ids(selectExpired(mixed, one, now, kindOf))).not.toContain('A4c1');
    const many = Array.from({ length: 14 }, (_, n) => ({ id: `c${n}`, createdAt: minute(20 + n) }));
    const crowded = [...mixed, ...many];
    const crowdedKind = (id: string) =>
      id.startsWith('c') && !id.startsWith('A') ? at('pre-command', B) : kindOf(id);
    const expired = ids(selectExpired(crowded, one, now, crowdedKind));
    // B4 and its 14 commands, A4 and its 2, the manual one: 19 by the rules, 10 by the ceiling; the prompts stay.
    const kept = crowded.map((snapshot) => snapshot.id).filter((id) => !expired.includes(id));
    expect(kept).toHaveLength(10);
    expect(kept).toEqual(expect.arrayContaining(['A4', 'B4', 'c13']));
  });

  it('past the ceiling, a turn’s snapshots go before one taken by hand outside any session (daily-use trial)', () => {
    const one = { maxCount: 1, maxAgeDays: 30 };
    const many = Array.from({ length: 14 }, (_, n) => ({ id: `c${n}`, createdAt: minute(20 + n) }));
    const crowdedKind = (id: string) =>
      id.startsWith('c') && !id.startsWith('A') ? at('pre-command', B) : kindOf(id);
    const expired = ids(selectExpired([...mixed, ...many], one, now, crowdedKind));
    // `m` (a person's `snapshot --label`) is older than every command of B4's turn, and outlives them.
    expect(expired).not.toContain('m');
    expect(expired).toEqual(expect.arrayContaining(['A4c1', 'A4c2', 'c0', 'c6']));
    expect(expired).not.toContain('c7');
  });

  // Review B: any snapshot of a session's turn went first, a `snapshot_files` one and a restore's undo too.
  it('past the ceiling, one taken on purpose in a turn and a restore’s undo outlive its automatic ones', () => {
    const one = { maxCount: 1, maxAgeDays: 30 };
    const onPurpose = [
      { id: 'r', createdAt: minute(18), kind: at('pre-restore', B) },
      { id: 'u', createdAt: minute(19), kind: at('manual', B) },
    ];
    const many = Array.from({ length: 14 }, (_, n) => ({ id: `c${n}`, createdAt: minute(20 + n) }));
    const crowdedKind = (id: string) =>
      onPurpose.find((snapshot) => snapshot.id === id)?.kind ??
      (id.startsWith('c') && !id.startsWith('A') ? at('pre-command', B) : kindOf(id));
    const expired = ids(selectExpired([...mixed, ...onPurpose, ...many], one, now, crowdedKind));
    // 21 kept by the rules, 10 by the ceiling: the 11 oldest automatic ones go (A4's 2, c0-c8), not r or u.
    expect(expired).not.toContain('r');
    expect(expired).not.toContain('u');
    expect(expired).toEqual(expect.arrayContaining(['A4c1', 'A4c2', 'c0', 'c8']));
    expect(expired).not.toContain('c9');
  });

  it('older than the age limit goes, whatever the count; the newest stays', () => {
    const old = [
      { id: 'x', createdAt: '2026-10-01T00:00:00Z' },
      { id: 'y', createdAt: '2026-09-01T00:00:00Z' },
    ];
    expect(ids(selectExpired(old, settings, now, () => at('prompt', A)))).toEqual(['y']);
  });
});
