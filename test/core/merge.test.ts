import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SaveInput } from '../../src/core/input.js';
import { LIMITS } from '../../src/core/limits.js';
import { type BuildCheckpointParams, buildCheckpoint, fitToSize, pathsToHash } from '../../src/core/merge.js';
import { fieldsOverLimits } from '../../src/core/over-limits.js';
import { clipRedacted, REDACTED } from '../../src/core/redact.js';
import { type Checkpoint, parseCheckpoint, type Task } from '../../src/core/schema.js';
import { compileCustomConfig } from '../../src/core/secrets/custom-config.js';

const T0 = new Date('2026-10-08T02:23:55.477Z');
const T1 = new Date('2026-10-08T03:00:00.000Z');
const OID_A = 'a'.repeat(40);
const OID_B = 'b'.repeat(40);
const OID_C = 'c'.repeat(40);
const GIT = { branch: 'main', head: '1'.repeat(40), dirty: true };

function build(overrides: Partial<BuildCheckpointParams> & { input: SaveInput }) {
  let counter = 0;
  return buildCheckpoint({
    previous: null,
    git: GIT,
    detectedFiles: [],
    oids: new Map(),
    now: T0,
    newId: () => `id-${++counter}`,
    generator: { name: 'claude-checkpoint-mcp', version: '0.1.0' },
    projectName: 'my-app',
    ...overrides,
  });
}

const full: SaveInput = {
  goal: 'Ship it',
  tasks: [
    { description: 'A', status: 'done' },
    { description: 'B', status: 'in_progress' },
  ],
  summary: 'Half done',
  nextSteps: ['Do B'],
  decisions: ['Use X'],
  modifiedFiles: [{ path: 'src/a.ts', note: 'core' }],
  recentCommands: [{ command: 'npm test', exitCode: 1, note: 'red' }],
};

const first = build({
  input: full,
  detectedFiles: [
    { path: 'src/b.ts', status: 'M' },
    { path: 'new.ts', status: '??' },
  ],
  oids: new Map([
    ['src/a.ts', OID_A],
    ['src/b.ts', OID_B],
    ['new.ts', OID_C],
  ]),
}).checkpoint;

describe('buildCheckpoint, replace', () => {
  it('writes every field of the original format, valid against the schema', () => {
    expect(parseCheckpoint(JSON.stringify(first))).toEqual(first);
    expect(first).toMatchObject({
      version: 1,
      id: 'id-1',
      createdAt: T0.toISOString(),
      updatedAt: T0.toISOString(),
      project: { name: 'my-app' },
      git: GIT,
      goal: { primary: 'Ship it', tasks: full.tasks },
      summary: 'Half done',
      nextSteps: ['Do B'],
      decisions: ['Use X'],
      meta: { redactions: 0, truncated: false },
    });
  });

  it('lists the named files first, then what git detected, each with its oid', () => {
    expect(first.modifiedFiles).toEqual([
      { path: 'src/a.ts', status: 'M', source: 'agent', note: 'core', hash: OID_A },
      { path: 'src/b.ts', status: 'M', source: 'git', hash: OID_B },
      { path: 'new.ts', status: '??', source: 'git', hash: OID_C },
    ]);
  });

  // Rewind trial: `--file nested` (or `nested/`) listed a nested repository twice, `nested (M)` and
  // `nested/ (??)`: git keys it `nested/`, and the agent's name was looked up as given.
  it.each(['nested', 'nested/'])(
    'lists a folder git reports whole, named by the agent as %s, once as git reports it',
    (named) => {
      const { checkpoint } = build({
        input: { goal: 'g', modifiedFiles: [{ path: named, note: 'its own repo' }] },
        detectedFiles: [
          { path: 'a.ts', status: 'M' },
          { path: 'nested/', status: '??' },
        ],
        oids: new Map([['a.ts', OID_A]]),
      });
      expect(checkpoint.modifiedFiles).toEqual([
        { path: 'nested/', status: '??', source: 'git', note: 'its own repo' },
        { path: 'a.ts', status: 'M', source: 'git', hash: OID_A },
      ]);
      // Merged again without naming it, the note stays with git's entry, and the old name is not listed again.
      const again = build({
        input: { goal: 'g', mode: 'merge' },
        previous: {
          ...checkpoint,
          modifiedFiles: [{ path: 'nested', status: 'M', source: 'agent', note: 'its own repo' }],
        },
        detectedFiles: [{ path: 'nested/', status: '??' }],
      }).checkpoint;
      expect(again.modifiedFiles).toEqual([
        { path: 'nested/', status: '??', source: 'git', note: 'its own repo' },
      ]);
    },
  );

  it('stamps commands with the save time', () => {
    expect(first.recentCommands).toEqual([
      { command: 'npm test', exitCode: 1, note: 'red', at: T0.toISOString() },
    ]);
  });

  it('starts over: a new id and nothing carried from the previous checkpoint', () => {
    const next = build({
      input: { goal: 'Other' },
      previous: first,
      now: T1,
      newId: () => 'id-new',
    }).checkpoint;
    expect(next.id).toBe('id-new');
    expect(next.createdAt).toBe(T1.toISOString());
    expect(next.goal.tasks).toEqual([]);
    expect(next.summary).toBeUndefined();
    expect(next.decisions).toEqual([]);
    expect(next.recentCommands).toEqual([]);
    expect(next.modifiedFiles).toEqual([]);
  });

  it('gives a file that no longer exists the status D', () => {
    const c = build({
      input: { goal: 'g', modifiedFiles: [{ path: 'gone.ts' }] },
      oids: new Map([['gone.ts', null]]),
    });
    expect(c.checkpoint.modifiedFiles).toEqual([{ path: 'gone.ts', status: 'D', source: 'agent' }]);
  });
});

describe('buildCheckpoint, merge (the original table, field by field)', () => {
  const merge = (input: Omit<SaveInput, 'mode'>, extra: Partial<BuildCheckpointParams> = {}) =>
    build({ input: { ...input, mode: 'merge' }, previous: first, now: T1, ...extra }).checkpoint;

  it('sets goal, keeps id and createdAt, moves updatedAt', () => {
    const c = merge({ goal: 'Ship it now' });
    expect(c.goal.primary).toBe('Ship it now');
    expect(c.id).toBe(first.id);
    expect(c.createdAt).toBe(first.createdAt);
    expect(c.updatedAt).toBe(T1.toISOString());
  });

  it('updates tasks by description and appends new ones', () => {
    const c = merge({
      goal: 'g',
      tasks: [
        { description: 'B', status: 'done' },
        { description: 'C', status: 'pending' },
      ],
    });
    expect(c.goal.tasks).toEqual([
      { description: 'A', status: 'done' },
      { description: 'B', status: 'done' },
      { description: 'C', status: 'pending' },
    ]);
  });

  // Bad-input trial: a task given twice was kept twice, pending and done, by a save and by a merge.
  it('keeps one entry per task given: where it was first given, with the last status given', () => {
    const twice = (tasks: Task[]) => [...tasks, { description: 'A', status: 'blocked' as const }];
    expect(merge({ goal: 'g', tasks: twice([{ description: 'C', status: 'pending' }]) }).goal.tasks).toEqual([
      { description: 'A', status: 'blocked' },
      { description: 'B', status: 'in_progress' },
      { description: 'C', status: 'pending' },
    ]);
    // The file's own entries stay: two that read the same may have differed in a redacted secret.
    const handEdited = { ...first, goal: { ...first.goal, tasks: twice(first.goal.tasks) } };
    expect(
      merge({ goal: 'g', tasks: [{ description: 'A', status: 'done' }] }, { previous: handEdited }).goal
        .tasks,
    ).toEqual([
      { description: 'A', status: 'done' },
      { description: 'B', status: 'in_progress' },
      { description: 'A', status: 'blocked' },
    ]);
    const replaced = build({
      input: { goal: 'g', tasks: twice([{ description: ' A ', status: 'pending' }]) },
    });
    expect(replaced.checkpoint.goal.tasks).toEqual([{ description: 'A', status: 'blocked' }]);
  });

  it('replaces summary and nextSteps only when given', () => {
    expect(merge({ goal: 'g' })).toMatchObject({ summary: 'Half done', nextSteps: ['Do B'] });
    expect(merge({ goal: 'g', summary: 'All done', nextSteps: [] })).toMatchObject({
      summary: 'All done',
      nextSteps: [],
    });
  });

  it('appends decisions without duplicates', () => {
    expect(merge({ goal: 'g', decisions: ['Use X', 'Avoid Y'] }).decisions).toEqual(['Use X', 'Avoid Y']);
  });

  it('appends commands and keeps only the last 50', () => {
    const commands = Array.from({ length: 50 }, (_, i) => ({ command: `c${i}` }));
    const c = merge({ goal: 'g', recentCommands: commands });
    expect(c.recentCommands).toHaveLength(50);
    expect(c.recentCommands[0]?.command).toBe('c0');
    expect(c.recentCommands.at(-1)?.command).toBe('c49');
    expect(c.meta.truncated).toBe(true);
  });

  it('combines a fresh git scan, the named files and the previously recorded ones', () => {
    const c = merge(
      { goal: 'g', modifiedFiles: [{ path: 'docs/x.md' }] },
      {
        detectedFiles: [{ path: 'src/b.ts', status: 'M' }],
        oids: new Map([
          ['docs/x.md', OID_C],
          ['src/b.ts', OID_A],
          ['src/a.ts', OID_A],
          ['new.ts', null],
        ]),
      },
    );
    expect(c.modifiedFiles).toEqual([
      { path: 'docs/x.md', status: 'M', source: 'agent', hash: OID_C },
      { path: 'src/b.ts', status: 'M', source: 'git', hash: OID_A },
      { path: 'src/a.ts', status: 'M', source: 'agent', note: 'core', hash: OID_A },
      { path: 'new.ts', status: 'D', source: 'agent' },
    ]);
  });

  it('keeps a note recorded earlier when the file is named again without one', () => {
    const c = merge(
      { goal: 'g', modifiedFiles: [{ path: 'src/a.ts' }] },
      { oids: new Map([['src/a.ts', OID_B]]) },
    );
    expect(c.modifiedFiles[0]).toEqual({
      path: 'src/a.ts',
      status: 'M',
      source: 'agent',
      note: 'core',
      hash: OID_B,
    });
  });

  it('behaves like replace when there is nothing to merge into', () => {
    const c = build({ input: { goal: 'g', mode: 'merge' }, previous: null, now: T1 }).checkpoint;
    expect(c.createdAt).toBe(T1.toISOString());
  });

  it('changes nothing but the time when the update repeats the goal only (law)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...['Ship it', 'x']), (goal) => {
        const c = merge(
          { goal },
          {
            oids: new Map([
              ['src/a.ts', OID_A],
              ['src/b.ts', OID_B],
              ['new.ts', OID_C],
            ]),
          },
        );
        const { updatedAt: _u, goal: _g, modifiedFiles, ...rest } = c;
        const { updatedAt: _u0, goal: _g0, modifiedFiles: before, ...restBefore } = first;
        expect(rest).toEqual(restBefore);
        expect(new Set(modifiedFiles.map((f) => f.path))).toEqual(new Set(before.map((f) => f.path)));
        expect(c.goal.tasks).toEqual(first.goal.tasks);
      }),
    );
  });
});

describe('limits and redaction', () => {
  it('redacts every free-text field before it is stored, and counts', () => {
    const secret = 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q';
    const result = build({
      input: {
        goal: `goal ${secret}`,
        tasks: [{ description: `task ${secret}`, status: 'pending' }],
        summary: `summary ${secret}`,
        nextSteps: [`step ${secret}`],
        decisions: [`decision ${secret}`],
        modifiedFiles: [{ path: 'a.ts', note: `note ${secret}` }],
        recentCommands: [{ command: `cmd ${secret}`, note: `cmd note ${secret}` }],
      },
    });
    expect(result.serialized).not.toContain(secret);
    expect(result.redactions).toBe(8);
    expect(result.checkpoint.meta.redactions).toBe(8);
  });

  it('keeps at most 30 tasks, dropping finished ones first', () => {
    const previous: Checkpoint = {
      ...first,
      goal: {
        primary: 'g',
        tasks: Array.from({ length: 30 }, (_, i) => ({
          description: `t${i}`,
          status: i === 5 ? 'done' : 'pending',
        })),
      },
    };
    const c = build({
      input: { goal: 'g', mode: 'merge', tasks: [{ description: 'new', status: 'pending' }] },
      previous,
    });
    expect(c.checkpoint.goal.tasks).toHaveLength(LIMITS.tasks);
    expect(c.checkpoint.goal.tasks.some((t) => t.description === 't5')).toBe(false);
    expect(c.checkpoint.goal.tasks.at(-1)?.description).toBe('new');
    expect(c.checkpoint.meta.truncated).toBe(true);
  });

  it("fits the 64 KB cap by dropping files only git found, then the oldest of this save's commands", () => {
    const long = 'x'.repeat(1900);
    const recentCommands = Array.from({ length: 50 }, (_, i) => ({ command: `${i} ${long}` }));
    const detectedFiles = Array.from({ length: 400 }, (_, i) => ({
      path: `dir/${'p'.repeat(150)}${i}.ts`,
      status: 'M' as const,
    }));
    const result = build({
      input: { goal: 'g', recentCommands, modifiedFiles: [{ path: 'dir/noted.ts', note: 'n' }] },
      detectedFiles,
    });
    expect(result.bytes).toBeLessThanOrEqual(LIMITS.fileBytes);
    expect(Buffer.byteLength(result.serialized)).toBe(result.bytes);
    expect(result.checkpoint.meta.truncated).toBe(true);
    expect(result.checkpoint.modifiedFiles).toMatchObject([{ path: 'dir/noted.ts', note: 'n' }]);
    const kept = result.checkpoint.recentCommands.length;
    expect(kept).toBeGreaterThan(20);
    expect(result.checkpoint.recentCommands[kept - 1]?.command).toBe(`49 ${long}`);
    expect(result.dropped).toEqual({
      scannedFiles: 400,
      commands: 50 - kept,
      notedFiles: 0,
      flaggedPaths: 0,
      unknownFields: false,
    });
  });

  // Issue 26: ~3,000 untracked files took every command of the save before any file.
  it.each([
    ['only files git found go, when that is enough', 20_000, false],
    ["then the older commands, before this save's", 8_000, true],
  ])('fitToSize keeps what this save gave: %s', (_title, maxBytes, isOlderDropped) => {
    const scanned = 300;
    const given = [{ command: 'npm test' }, { command: 'npm run b' }];
    const older = Array.from({ length: 10 }, (_, i) => ({ command: `old ${i} ${'o'.repeat(1500)}` }));
    const git = Array.from({ length: scanned }, (_, i) => ({
      path: `gen/${'q'.repeat(100)}${i}.ts`,
      status: 'A' as const,
      source: 'git' as const,
    }));
    const files = [
      { path: 'main.ts', status: 'M' as const, source: 'git' as const },
      { path: 'noted-before.ts', status: 'M' as const, source: 'agent' as const, note: 'earlier' },
      ...git,
    ];
    const checkpoint = { ...first, recentCommands: [...older, ...given], modifiedFiles: files };
    const fitted = fitToSize(checkpoint, maxBytes, { commandCount: 2, filePaths: new Set(['main.ts']) });
    expect(fitted.bytes).toBeLessThanOrEqual(maxBytes);
    expect(fitted.checkpoint.recentCommands.slice(-2)).toEqual(given);
    expect(fitted.checkpoint.modifiedFiles.slice(0, 2).map((file) => file.path)).toEqual([
      'main.ts',
      'noted-before.ts',
    ]);
    expect(fitted.dropped.commands > 0).toBe(isOlderDropped);
    expect(fitted.checkpoint.recentCommands).toHaveLength(12 - fitted.dropped.commands);
    expect(fitted.dropped.notedFiles).toBe(0);
    expect(fitted.dropped.scannedFiles).toBe(scanned - (fitted.checkpoint.modifiedFiles.length - 2));
    if (isOlderDropped) expect(fitted.dropped.scannedFiles).toBe(scanned);
  });

  it('fitToSize keeps the longest prefix of files that fits', () => {
    const files = Array.from({ length: 100 }, (_, i) => ({
      path: `f${i}`,
      status: 'M' as const,
      source: 'git' as const,
    }));
    const base = { ...first, recentCommands: [], modifiedFiles: files };
    const bytesFor = (n: number) => fitToSize({ ...base, modifiedFiles: files.slice(0, n) }, 1e9).bytes;
    const cap = bytesFor(60);
    const fitted = fitToSize(base, cap);
    expect(fitted.checkpoint.modifiedFiles).toHaveLength(60);
  });

  it('fitToSize drops exactly the fewest oldest commands that make it fit, and serializes what it returns', () => {
    const recentCommands = Array.from({ length: 20 }, (_, i) => ({ command: `${i} ${'y'.repeat(300 + i)}` }));
    const base = { ...first, recentCommands, modifiedFiles: [] };
    const bytesWithout = (dropped: number) =>
      fitToSize(
        { ...base, recentCommands: recentCommands.slice(dropped), meta: { ...base.meta, truncated: true } },
        1e9,
      ).bytes;
    for (const dropped of [1, 7, 19]) {
      const fitted = fitToSize(base, bytesWithout(dropped));
      expect(fitted.checkpoint.recentCommands.map((c) => c.command)).toEqual(
        recentCommands.slice(dropped).map((c) => c.command),
      );
      expect(fitted.checkpoint.meta.truncated).toBe(true);
      expect(fitted.serialized).toBe(`${JSON.stringify(fitted.checkpoint, null, 2)}\n`);
    }
    expect(fitToSize(base, 1e9).checkpoint).toBe(base);
  });

  it('fitToSize keeps the most files that fit, whatever their sizes (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 2, maxLength: 120 }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        (lengths, share) => {
          const files = lengths.map((length, i) => ({
            path: `${i}/${'f'.repeat(length)}`,
            status: 'M' as const,
            source: 'git' as const,
          }));
          const base = { ...first, recentCommands: [], modifiedFiles: files };
          const bytesWith = (n: number) =>
            fitToSize(
              { ...base, modifiedFiles: files.slice(0, n), meta: { ...base.meta, truncated: true } },
              1e9,
            ).bytes;
          const cap = Math.floor(bytesWith(0) + share * (bytesWith(files.length) - bytesWith(0)));
          const kept = fitToSize(base, cap).checkpoint.modifiedFiles.length;
          expect(bytesWith(kept)).toBeLessThanOrEqual(cap);
          if (kept < files.length) expect(bytesWith(kept + 1)).toBeGreaterThan(cap);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('a built checkpoint and its serialized text', () => {
  // A save hands the checkpoint it built to the store as what its text parses to (no parse on the next
  // read): that holds only if parsing the text gives back exactly the built object.
  it('parse back to exactly the built object, for any input, replacing or merging (property)', () => {
    const text = fc.string({ maxLength: 40 });
    const input = fc.record(
      {
        goal: fc.string({ minLength: 1, maxLength: 40 }),
        tasks: fc.array(
          fc.record({
            description: fc.string({ minLength: 1, maxLength: 30 }),
            status: fc.constantFrom('pending', 'in_progress', 'done'),
          }),
          { maxLength: 5 },
        ),
        summary: text,
        nextSteps: fc.array(text, { maxLength: 4 }),
        decisions: fc.array(text, { maxLength: 4 }),
        modifiedFiles: fc.array(
          fc.record(
            { path: fc.constantFrom('a.ts', 'src/b.ts', 'c d.md'), note: text },
            { requiredKeys: ['path'] },
          ),
          { maxLength: 3 },
        ),
        recentCommands: fc.array(
          fc.record(
            {
              command: fc.string({ minLength: 1, maxLength: 30 }),
              exitCode: fc.integer({ min: 0, max: 255 }),
              note: text,
            },
            { requiredKeys: ['command'] },
          ),
          { maxLength: 3 },
        ),
      },
      { requiredKeys: ['goal'] },
    );
    fc.assert(
      fc.property(input, fc.constantFrom('replace', 'merge'), fc.boolean(), (saveInput, mode, dirty) => {
        const built = build({
          input: { ...saveInput, mode } as SaveInput,
          previous: mode === 'merge' ? first : null,
          git: dirty ? GIT : null,
          detectedFiles: dirty ? [{ path: 'src/b.ts', status: 'M' }] : [],
          oids: new Map([['src/b.ts', OID_B]]),
          now: T1,
        });
        expect(parseCheckpoint(built.serialized)).toStrictEqual(built.checkpoint);
      }),
      { numRuns: 200 },
    );
  });
});

describe('pathsToHash', () => {
  it('includes recorded files only in merge mode', () => {
    const detected = [{ path: 'b', status: 'M' as const }];
    expect(pathsToHash({ goal: 'g', modifiedFiles: [{ path: 'a' }] }, first, detected)).toEqual(['a', 'b']);
    expect(pathsToHash({ goal: 'g', mode: 'merge' }, first, detected)).toEqual([
      'b',
      'src/a.ts',
      'src/b.ts',
      'new.ts',
    ]);
  });
});

describe('a field over its limit after redaction', () => {
  // «redacted» (10 characters) is longer than a short secret of the user's own pattern (4 here).
  const { config } = compileCustomConfig([
    { origin: 'redaction.json', scope: 'user', json: { patterns: ['TK-\\d'] } },
  ]);

  it('is clipped to the limit: our own save never stores a field a load would call a hand edit', () => {
    const over = (limit: number) => 'TK-1 '.repeat(Math.ceil(limit / 5)).slice(0, limit);
    const result = build({
      input: {
        goal: over(LIMITS.goalChars),
        tasks: [{ description: over(LIMITS.taskDescriptionChars), status: 'pending' }],
        summary: over(LIMITS.summaryChars),
        nextSteps: [over(LIMITS.nextStepChars)],
        decisions: [over(LIMITS.decisionChars)],
        modifiedFiles: [{ path: 'a.ts', note: over(LIMITS.noteChars) }],
        recentCommands: [{ command: over(LIMITS.commandChars), note: over(LIMITS.commandNoteChars) }],
      },
      redaction: config,
    });
    expect(fieldsOverLimits(result.checkpoint)).toEqual([]);
    expect(result.checkpoint.summary?.startsWith('«redacted» «redacted»')).toBe(true);
    expect(result.checkpoint.summary?.endsWith('…')).toBe(true);
  });

  it('never cuts inside a mark: one the cut would split goes whole', () => {
    const limit = LIMITS.goalChars;
    const goal = `${'g'.repeat(limit - 8)} TK-1 x`; // the mark would run from limit - 7 past limit - 1
    const result = build({ input: { goal }, redaction: config });
    expect(result.checkpoint.goal.primary).toBe(`${'g'.repeat(limit - 8)} …`);
    expect(clipRedacted(`ab ${REDACTED}`, 12)).toBe('ab …');
    expect(clipRedacted(`ab ${REDACTED} and more`, 14)).toBe(`ab ${REDACTED}…`);
  });
});
