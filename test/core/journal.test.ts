import { describe, expect, it } from 'vitest';
import {
  applyJournal,
  type JournalRecord,
  journalId,
  parseJournalRecord,
  serializeJournalRecord,
} from '../../src/core/journal.js';
import { LIMITS } from '../../src/core/limits.js';
import { appendCommands, buildCheckpoint, recordedCommands } from '../../src/core/merge.js';
import { type Checkpoint, parseCheckpoint, serializeCheckpoint } from '../../src/core/schema.js';

const T0 = new Date('2026-10-08T02:23:55.477Z');
/** When the merges below run: a second after the records were named. */
const NOW = new Date(T0.getTime() + 1_000);
const later = (ms: number) => new Date(T0.getTime() + ms);

function checkpoint(commands: string[] = []): Checkpoint {
  return buildCheckpoint({
    input: { goal: 'Ship it', recentCommands: commands.map((command) => ({ command })) },
    previous: null,
    git: null,
    detectedFiles: [],
    oids: new Map(),
    now: T0,
    newId: () => 'id-1',
    generator: { name: 'claude-checkpoint-mcp', version: '0.1.0' },
    projectName: 'app',
  }).checkpoint;
}

function record(at: number, unique: string, ...commands: string[]): JournalRecord {
  const recorded = recordedCommands(
    commands.map((command) => ({ command, exitCode: 0 })),
    new Date(T0.getTime() + at),
  );
  return { id: journalId(new Date(T0.getTime() + at), unique), ...recorded };
}

describe('journal records', () => {
  it('read back as written, redacted before they are written', () => {
    const secret = recordedCommands([{ command: 'export API_KEY=sk8f3Qz71LwpX2v9', note: 'ok' }], T0);
    const text = serializeJournalRecord(secret);
    expect(text).not.toContain('sk8f3Qz71LwpX2v9');
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(2);
    const parsed = parseJournalRecord(journalId(T0, '12-ab'), text);
    expect(parsed).toEqual({ id: journalId(T0, '12-ab'), ...secret });
    expect(secret.redactions).toBe(1);
  });

  // A command is clipped to its limit in characters (code points): a journal that counted UTF-16 units read
  // a clipped command of emoji back as damaged, and dropped it.
  it('read back a command of emoji clipped at its limit in characters', () => {
    const long = recordedCommands(
      [{ command: `echo ${'😀'.repeat(LIMITS.commandChars)}`, note: '😀'.repeat(600) }],
      T0,
    );
    expect([...(long.commands[0]?.command ?? '')]).toHaveLength(LIMITS.commandChars);
    const parsed = parseJournalRecord(journalId(T0, '12-ab'), serializeJournalRecord(long));
    expect(parsed).toEqual({ id: journalId(T0, '12-ab'), ...long });
  });

  it('sort by the time they were written', () => {
    const ids = [5, 1_000_000, 30, 2].map((ms) => journalId(new Date(T0.getTime() + ms), '1-a'));
    expect([...ids].sort()).toEqual([ids[3], ids[0], ids[2], ids[1]]);
  });

  it('never hold more than a checkpoint can: the newest commands that fit', () => {
    const many = recordedCommands(
      Array.from({ length: 80 }, (_, i) => ({ command: `${i} ${'€'.repeat(LIMITS.commandChars - 4)}` })),
      T0,
    );
    const text = serializeJournalRecord(many);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(LIMITS.fileBytes);
    const parsed = parseJournalRecord(journalId(T0, '1-a'), text);
    expect(parsed).not.toBeNull();
    const kept = (parsed as JournalRecord).commands.map((command) => command.command.split(' ')[0]);
    expect(kept.at(-1)).toBe('79');
    expect(kept.length).toBeGreaterThan(0);
  });

  it.each([
    ['not JSON', 'make step-1'],
    ['a cut line', '{"v":1,"redactions":0,"commands":[{"comm'],
    ['no commands', '{"v":1,"redactions":0}'],
    ['a negative count', '{"v":1,"redactions":-1,"commands":[]}'],
    ['a command that is not one', '{"v":1,"redactions":0,"commands":[{"command":3}]}'],
    ['a bad time', '{"v":1,"redactions":0,"commands":[{"command":"x","at":"yesterday"}]}'],
    [
      'an overlong command',
      `{"v":1,"redactions":0,"commands":[{"command":"${'x'.repeat(LIMITS.commandChars + 1)}"}]}`,
    ],
    ['no version', '{"redactions":0,"commands":[]}'],
  ])('are refused when the text is %s', (_name, text) => {
    expect(parseJournalRecord(journalId(T0, '1-a'), text)).toBeNull();
  });

  it("are refused under a name that is not a record's, and left alone when a newer version wrote them", () => {
    expect(parseJournalRecord('../x', '{"v":1,"redactions":0,"commands":[]}')).toBeNull();
    expect(parseJournalRecord(journalId(T0, '1-a'), null)).toBeNull();
    expect(parseJournalRecord(journalId(T0, '1-a'), '{"v":2,"what":"else"}')).toBe('newer');
  });
});

describe('applyJournal', () => {
  it('appends the records oldest first, counts their redactions, and lists their ids', () => {
    const secret = recordedCommands([{ command: 'curl -H "Authorization: Bearer sk8f3Qz71LwpX2v9Qa"' }], T0);
    const records = [record(20, '1-b', 'make c'), record(10, '1-a', 'make a', 'make b')];
    const withSecret: JournalRecord = { id: journalId(new Date(T0.getTime() + 30), '1-c'), ...secret };
    const merged = applyJournal(checkpoint(['npm test']), [...records, withSecret], NOW);
    expect(merged.changed).toBe(true);
    if (!merged.changed) return;
    expect(merged.checkpoint.recentCommands.map((c) => c.command)).toEqual([
      'npm test',
      'make a',
      'make b',
      'make c',
      secret.commands[0]?.command,
    ]);
    expect(merged.checkpoint.meta.redactions).toBe(secret.redactions);
    expect(merged.checkpoint.meta.journaled).toEqual([records[1]?.id, records[0]?.id, withSecret.id]);
    expect(parseCheckpoint(merged.serialized)).toEqual(merged.checkpoint);
  });

  it('skips records the checkpoint holds already (a merge stopped before it cleared them): never twice', () => {
    const first = [record(1, '1-a', 'make a')];
    const once = applyJournal(checkpoint(), first, NOW);
    if (!once.changed) throw new Error('expected a change');
    // The journal still holds the first record (not cleared), and a new one came.
    const again = applyJournal(once.checkpoint, [...first, record(2, '1-b', 'make b')], NOW);
    if (!again.changed) throw new Error('expected a change');
    expect(again.checkpoint.recentCommands.map((c) => c.command)).toEqual(['make a', 'make b']);
    expect(applyJournal(again.checkpoint, first, NOW)).toEqual({ changed: false });
    expect(applyJournal(checkpoint(), [], NOW)).toEqual({ changed: false });
  });

  it('takes an id once: a hook that wrote its record again after its server died (issue 26)', () => {
    const fromServer = record(1, '1-a', 'echo kill-1');
    const again: JournalRecord = { ...record(5, '1-a', 'echo kill-1'), id: fromServer.id, mayRepeat: true };
    // Both in one merge: the server's renamed file (or its killed temp file) and the hook's own.
    const both = applyJournal(checkpoint(), [fromServer, again], NOW);
    if (!both.changed) throw new Error('expected a change');
    expect(both.checkpoint.recentCommands.map((c) => c.command)).toEqual(['echo kill-1']);
    // Merged first, then other hooks' records, then the hook's own write: still once.
    const others = applyJournal(both.checkpoint, [record(2, '1-b', 'make b')], later(60_000));
    if (!others.changed) throw new Error('expected a change');
    const third = applyJournal(others.checkpoint, [record(3, '1-c', 'make c')], later(120_000));
    if (!third.changed) throw new Error('expected a change');
    expect(applyJournal(third.checkpoint, [again], later(540_000))).toEqual({ changed: false });
  });

  it('takes an id once that a server appended straight to the file (its journal could not take it)', () => {
    const again: JournalRecord = { ...record(1, '1-a', 'echo kill-1'), mayRepeat: true };
    const appended = appendCommands(
      checkpoint(),
      [{ command: 'echo kill-1', exitCode: 0 }],
      T0,
      undefined,
      again.id,
    );
    expect(appended.checkpoint.meta.journaled).toEqual([again.id]);
    expect(applyJournal(appended.checkpoint, [again], NOW)).toEqual({ changed: false });
  });

  it('drops a repeat whose id is no longer remembered (ten minutes), and forgets old ids', () => {
    const once = applyJournal(checkpoint(), [record(1, '1-a', 'make a')], NOW);
    if (!once.changed) throw new Error('expected a change');
    const stale: JournalRecord = { ...record(1, '1-a', 'make a'), mayRepeat: true };
    const late = applyJournal(once.checkpoint, [stale, record(700_000, '1-b', 'make b')], later(700_001));
    if (!late.changed) throw new Error('expected a change');
    expect(late.checkpoint.recentCommands.map((c) => c.command)).toEqual(['make a', 'make b']);
    // A first write is merged however old: only a record that may repeat one is dropped.
    const waited = applyJournal(late.checkpoint, [record(5, '1-c', 'make c')], later(900_000));
    if (!waited.changed) throw new Error('expected a change');
    expect(waited.checkpoint.meta.journaled).toEqual([record(700_000, '1-b').id, record(5, '1-c').id]);
  });

  // Review of 2026-12-07: the test above passes without the time rule (the id is still remembered there).
  it('drops a repeat of a record whose id was already forgotten, rather than take it a second time', () => {
    const once = applyJournal(checkpoint(), [record(1, '1-a', 'make a')], NOW);
    if (!once.changed) throw new Error('expected a change');
    // A merge past the ten minutes forgets '1-a'.
    const forgot = applyJournal(once.checkpoint, [record(650_000, '1-b', 'make b')], later(650_000));
    if (!forgot.changed) throw new Error('expected a change');
    expect(forgot.checkpoint.meta.journaled).toEqual([record(650_000, '1-b').id]);
    const stale: JournalRecord = { ...record(1, '1-a', 'make a'), mayRepeat: true };
    expect(applyJournal(forgot.checkpoint, [stale], later(650_002))).toEqual({ changed: false });
  });

  it('keeps the newest 50 and the 64 KB cap, and says it dropped some', () => {
    const records = Array.from({ length: 60 }, (_, i) => record(i, `1-${i.toString(16)}`, `make ${i}`));
    const merged = applyJournal(checkpoint(['npm test']), records, NOW);
    if (!merged.changed) throw new Error('expected a change');
    expect(merged.checkpoint.recentCommands).toHaveLength(LIMITS.recentCommands);
    expect(merged.checkpoint.recentCommands.at(-1)?.command).toBe('make 59');
    expect(merged.checkpoint.meta.truncated).toBe(true);
    expect(Buffer.byteLength(serializeCheckpoint(merged.checkpoint))).toBeLessThanOrEqual(LIMITS.fileBytes);
  });
});

// Trial 4 of issue 26, item 4: hooks of two scopes ran at once, and the brief listed the command twice.
describe('the same tool call delivered twice', () => {
  const call = (at: number, unique: string, callId: string, command = 'npm run lint', exitCode = 0) => {
    const recorded = recordedCommands([{ command, exitCode, callId }], later(at));
    return { id: journalId(later(at), unique), ...recorded };
  };
  const listed = (result: ReturnType<typeof applyJournal>) =>
    result.changed ? result.checkpoint.recentCommands.map(({ command, callId }) => [command, callId]) : [];

  it.each([
    [
      'two records of one call, merged together',
      [call(1, '1-a', 'c1'), call(2, '1-b', 'c1')],
      [['npm run lint', 'c1']],
    ],
    [
      'two calls of one command',
      [call(1, '1-a', 'c1'), call(2, '1-b', 'c2')],
      [
        ['npm run lint', 'c1'],
        ['npm run lint', 'c2'],
      ],
    ],
    [
      'a provider that reuses ids, another command',
      [call(1, '1-a', 'c1'), call(2, '1-b', 'c1', 'npm test')],
      [
        ['npm run lint', 'c1'],
        ['npm test', 'c1'],
      ],
    ],
    [
      'a provider that reuses ids, another outcome',
      [call(1, '1-a', 'c1'), call(2, '1-b', 'c1', 'npm run lint', 1)],
      [
        ['npm run lint', 'c1'],
        ['npm run lint', 'c1'],
      ],
    ],
  ])('%s', (_name, records, expected) => {
    expect(listed(applyJournal(checkpoint(), records, NOW))).toEqual(expected);
  });

  it('is appended once: the second delivery finds it in the file, and has nothing to write or count', () => {
    const first = appendCommands(checkpoint(), [{ command: 'npm run lint', exitCode: 0, callId: 'c1' }], T0);
    expect(first.isRepeat).toBe(false);
    const again = appendCommands(
      first.checkpoint,
      [{ command: 'npm run lint', exitCode: 0, callId: 'c1' }],
      T0,
    );
    expect(again).toMatchObject({ isRepeat: true, redactions: 0 });
    expect(again.checkpoint.recentCommands).toHaveLength(1);
    // Journaled while the other held the lock: its merge finds it listed.
    expect(applyJournal(first.checkpoint, [call(1, '1-a', 'c1')], NOW)).toMatchObject({ changed: true });
    expect(listed(applyJournal(first.checkpoint, [call(1, '1-a', 'c1')], NOW))).toEqual([
      ['npm run lint', 'c1'],
    ]);
  });

  it('keeps only an id that is one: printable, no spaces, at most 200 characters', () => {
    const ids = ['toolu_01A', 'a b', 'x'.repeat(201), ''];
    const kept = recordedCommands(
      ids.map((callId) => ({ command: 'ls', callId })),
      T0,
    ).commands;
    expect(kept.map((command) => command.callId)).toEqual(['toolu_01A', undefined, undefined, undefined]);
  });
});
