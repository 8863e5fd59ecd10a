import { describe, expect, it } from 'vitest';
import { resolveRef, resolveSessionId } from '../../src/core/rewind-refs.js';
import {
  REWIND_ACTIONS,
  renderConflicts,
  renderRewind,
  renderRewindEntry,
  renderRewindList,
  renderSessionHeader,
  rewindActions,
} from '../../src/core/rewind-text.js';
import type { SnapshotRecord } from '../../src/core/snapshot.js';

// Newest first, as the store lists snapshots and rewind lists prompts.
const items = [
  { id: '20261202-103000-cccccc' },
  { id: '20261202-102000-bbbbbb' },
  { id: '20261201-090000-aaaaaa' },
];
const find = (ref: string) => resolveRef(items, ref, 'prompt', 'see them with rewind --list').id;

describe('resolveRef', () => {
  it.each([
    ['latest', '20261202-103000-cccccc'],
    ['latest~0', '20261202-103000-cccccc'],
    ['latest~1', '20261202-102000-bbbbbb'],
    ['latest~0000001', '20261202-102000-bbbbbb'],
    ['latest~2', '20261201-090000-aaaaaa'],
    ['20261201', '20261201-090000-aaaaaa'],
    ['20261202-102000-bbbbbb', '20261202-102000-bbbbbb'],
    ['  latest~1 ', '20261202-102000-bbbbbb'],
  ])('%s names %s', (ref, id) => {
    expect(find(ref)).toBe(id);
  });

  it.each([
    ['latest~3', /'latest~3' goes back 3 prompt\(s\), but there are only 3: the oldest is latest~2/],
    // Bad-input trial: seven digits or more were "not a reference", and named no limit.
    ['latest~1000000', /'latest~1000000' goes back 1000000 prompt\(s\), but there are only 3/],
    ['latest~00099999999999999999999', /goes back 99999999999999999999 prompt\(s\), but there are only 3/],
    ['latest~-1', /not a reference: use latest or latest~N/],
    ['latest^', /not a reference/],
    ['latest~x', /not a reference/],
    ['2026', /prompt id '2026' is ambiguous \(3 match\)/],
    ['nope', /no prompt 'nope': see them with rewind --list/],
    // An empty reference is named as such, not as a prefix every id matches.
    ['', /^the prompt reference is empty: give an id, a unique id prefix, latest or latest~N$/],
    ['  ', /^the prompt reference is empty/],
  ])('%s is refused with a one-line reason', (ref, message) => {
    expect(() => find(ref)).toThrow(message);
    try {
      find(ref);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
      expect((error as { code?: string }).code).toBe('INVALID_INPUT');
    }
  });
});

describe('resolveRef, an id retention removed (daily-use trial)', () => {
  // After weeks of use most ids a person kept in a note are gone: say why, not only "no snapshot".
  const snapshots = (ref: string) => () => resolveRef(items, ref, 'snapshot', 'see them with list');

  it('names an id older than the oldest kept as removed by retention, with its time', () => {
    expect(snapshots('20261125-080000-dddddd')).toThrow(
      "no snapshot '20261125-080000-dddddd' (taken 2026-11-25 08:00:00 UTC, by its id): it is older than the oldest snapshot kept, 20261201-090000-aaaaaa, so retention or gc removed it (the count, age and size limits: snapshotMaxCount, snapshotMaxAgeDays, storeMaxMb): see them with list",
    );
  });

  it("says an id between kept ones may have been removed, or be another project's", () => {
    expect(snapshots('20261202-100000')).toThrow(
      /^no snapshot '20261202-100000' \(taken 2026-12-02 10:00:00 UTC, by its id\): none of that time is kept; retention or gc may have removed it \(.*storeMaxMb\), or it is another project's: see them with list$/,
    );
  });

  it.each(['20261207-161460', '20261307-101010-abc', '20260230-000000'])(
    'says an id whose time cannot be (%s) names no time, rather than when it was taken',
    (ref) => {
      expect(snapshots(ref)).toThrow(
        new RegExp(
          `^no snapshot '${ref}' \\(its id would say it was taken [^)]*, which is no time: ids begin with the UTC time they were taken, YYYYMMDD-HHMMSS\\): see them with list$`,
        ),
      );
    },
  );

  it.each(['nope', '2026113', '20261125-0800'])(
    'leaves a reference of another form (%s) as it was',
    (ref) => {
      expect(snapshots(ref)).toThrow(new RegExp(`^no snapshot '${ref}': see them with list$`));
    },
  );
});

describe('resolveSessionId', () => {
  const sessions = [
    '33333333-1111-4222-8333-444444444444',
    '33334444-1111-4222-8333-444444444444',
    'ses_abc',
  ];
  const snapshots = [...sessions, undefined].map((sessionId) => ({ sessionId }) as SnapshotRecord);
  const resolve = (given: string) => resolveSessionId(snapshots, given, '--session', 'see --list --all');
  it.each([
    ['33333333', sessions[0]],
    ['333344', sessions[1]],
    [sessions[0] as string, sessions[0]],
    ['ses', 'ses_abc'],
  ])('%s names %s', (given, id) => {
    expect(resolve(given)).toBe(id);
  });
  it.each([
    [
      '3333',
      `--session '3333' is ambiguous: 2 sessions start with it (${sessions[0]}, ${sessions[1]}); give more of it`,
    ],
    ['44444444', "--session: no session '44444444'; see --list --all"],
  ])('%s: %s', (given, message) => {
    expect(() => resolve(given)).toThrow(message);
  });
});

describe('the action menu (the spec: code options only when there is something to restore)', () => {
  it('offers all four actions, in the spec’s order, when files changed after the prompt', () => {
    expect(
      rewindActions({ changes: { added: 1, modified: 0, deleted: 0 } }).map((action) => action.label),
    ).toEqual(['Restore code and conversation', 'Restore conversation', 'Restore code', 'Cancel']);
  });

  it('offers only the conversation and Cancel when nothing changed after it', () => {
    expect(rewindActions({ changes: { added: 0, modified: 0, deleted: 0 } })).toEqual([
      REWIND_ACTIONS[1],
      REWIND_ACTIONS[3],
    ]);
  });
});

/** A prompt's entry as the picker and `rewind --list` show it. */
const promptEntry = {
  id: '20261202-103000-cccccc',
  prompt: 'p',
  sessionId: '5f0c2a9e-1111-4222-8333-444455556666',
  agent: 'claude',
  createdAt: '2026-12-02T10:30:00Z',
  changes: { added: 0, modified: 0, deleted: 0 },
};

describe('a session’s header in the picker’s --all view', () => {
  const now = new Date('2026-12-02T10:40:00Z');
  const entry = promptEntry;
  const session = {
    sessionId: entry.sessionId,
    agent: 'claude',
    resume: `claude --resume ${entry.sessionId}`,
    entries: [entry],
  };

  it('names the session by its short id, agent and newest prompt’s age, then its resume command', () => {
    expect(renderSessionHeader(session, now, 80, 'named')).toBe(
      'Session 5f0c2a9e · claude · 10m ago (current)\n  resume: claude --resume 5f0c2a9e-1111-4222-8333-444455556666',
    );
    expect(renderSessionHeader({ ...session, resume: null }, now, 80, null).split('\n')[1]).toBe(
      '  (no resume command known for this agent)',
    );
  });

  it('fits the width, and nothing from a hook drives the terminal (Security)', () => {
    const header = renderSessionHeader(
      { ...session, agent: `evil\u001b[2J${'x'.repeat(100)}`, resume: `r\u0007${'y'.repeat(100)}` },
      now,
      40,
      'newest',
    );
    for (const line of header.split('\n')) expect([...line].length).toBeLessThanOrEqual(40);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not get through
    expect(header).not.toMatch(/[\u0000-\u001f\u007f](?<!\n)/);
  });
});

describe('a prompt’s line in the picker and in rewind --list', () => {
  const now = new Date('2026-12-02T10:40:00Z');
  const entry = { ...promptEntry, changes: { added: 1, modified: 2, deleted: 0 } };
  // Terminal columns as Unicode's East Asian Width (UAX #11) gives them for these test strings: CJK
  // ideographs, kana and the emoji used are Wide (two columns), ASCII and the ellipsis one.
  const columns = (line: string) =>
    [...line].reduce(
      (sum, char) => sum + (/[\u3040-\u30ff\u4e00-\u9fff\u{1f300}-\u{1faff}]/u.test(char) ? 2 : 1),
      0,
    );

  it.each([
    ['CJK', '漢字のテストを修正して'.repeat(12)],
    ['emoji', `ship it ${'🚀'.repeat(60)}`],
    ['ASCII', 'x'.repeat(200)],
  ])(
    'fits %s prompts in the terminal’s columns, not its characters, and cuts no more than needed',
    (_name, prompt) => {
      for (const width of [40, 80]) {
        const line = renderRewindEntry({ ...entry, prompt }, now, width);
        expect(columns(line)).toBeLessThanOrEqual(width);
        // A two-column character that would end past the width leaves its column empty.
        expect(columns(line)).toBeGreaterThanOrEqual(width - 2);
        expect(line.endsWith('…')).toBe(true);
      }
    },
  );

  it('cuts the whole line where its head alone leaves the prompt less than 10 columns (a narrow terminal, review)', () => {
    const long = { ...entry, agent: 'an-agent-with-a-long-name', prompt: 'Make the tests pass' };
    for (const width of [30, 38, 40])
      expect(columns(renderRewindEntry(long, now, width))).toBeLessThanOrEqual(width);
  });

  it('leaves a prompt that fits as it is', () => {
    const line = renderRewindEntry({ ...entry, prompt: '修正 the login form' }, now, 80);
    expect(line.endsWith('修正 the login form')).toBe(true);
  });
});

describe('a rewind with nothing to restore', () => {
  it('still names the paths a link kept from being brought back', () => {
    const entry = { ...promptEntry, prompt: 'edit the shared config' };
    const plan = {
      overwrite: [],
      create: [],
      delete: [],
      keptAside: [],
      refused: [],
      links: [
        {
          path: 'conf.json',
          reason: 'a symbolic link out of the project: edits made through it are not undone',
        },
      ],
    };
    const text = renderRewind({
      entry,
      dryRun: false,
      code: { plan, conflicts: [], undoSnapshotId: null },
      conversation: null,
    });
    expect(text).toContain('nothing to restore');
    expect(text).toContain('Not brought back through links (1):');
    expect(text).toContain('conf.json: a symbolic link out of the project');
  });
});

describe('renderConflicts after weeks of sessions (daily-use trial)', () => {
  // A far rewind named 580 files, each with every session since: a screen of nothing but names.
  const sessions = Array.from({ length: 6 }, (_, i) => `session s-${i} (claude)`);
  const conflicts = Array.from({ length: 580 }, (_, i) => ({ path: `src/f${i}.ts`, changedBy: sessions }));

  it('lists at most the limit of files, then how many more', () => {
    const lines = renderConflicts(conflicts, 50);
    expect(lines).toHaveLength(1 + 50 + 1);
    expect(lines[0]).toMatch(/^⚠ 580 file\(s\) to restore were changed after this prompt by someone else/);
    expect(lines.at(-1)).toBe('  … and 530 more');
  });

  it('names three sessions a file, then how many more', () => {
    expect(renderConflicts(conflicts.slice(0, 1))[1]).toBe(
      '  src/f0.ts — session s-0 (claude), session s-1 (claude), session s-2 (claude), and 3 more',
    );
  });

  it('lists a short conflict whole', () => {
    const one = [{ path: 'a.txt', changedBy: ['outside any agent session'] }];
    expect(renderConflicts(one)).toEqual([
      '⚠ 1 file(s) to restore were changed after this prompt by someone else; restoring undoes that too:',
      '  a.txt — outside any agent session',
    ]);
  });
});

describe('rewind --list --all after weeks of sessions (daily-use trial)', () => {
  const now = new Date('2026-12-02T10:40:00Z');
  const prompts = (sessionId: string, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      ...promptEntry,
      sessionId,
      id: `${sessionId}-${i}`,
      prompt: `p${i}`,
    }));
  const current = prompts('now', 30);
  const listing = {
    sessionId: 'now',
    sessionSource: 'named' as const,
    entries: current,
    sessions: [
      { sessionId: 'now', resume: null, entries: current },
      { sessionId: 'old', resume: 'claude --resume old', entries: prompts('old', 40) },
      { sessionId: 'few', resume: null, entries: prompts('few', 3) },
    ],
  };
  const text = renderRewindList(listing, now);

  it('lists the current session whole, and ten of each other, with the command that lists one whole', () => {
    expect(text.match(/ now-\d+ /g)).toHaveLength(30);
    expect(text.match(/ old-\d+ /g)).toHaveLength(10);
    expect(text).toContain('  … and 30 older: `claude-checkpoint rewind --list --session old`');
    expect(text.match(/ few-\d+ /g)).toHaveLength(3);
    expect(text).not.toMatch(/and \d+ older: `claude-checkpoint rewind --list --session (now|few)`/);
  });
});
