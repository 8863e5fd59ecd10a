import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderResumeBrief } from '../../src/core/brief.js';
import type { SaveInput } from '../../src/core/input.js';
import { LIMITS } from '../../src/core/limits.js';
import { buildCheckpoint, PLACEHOLDER_GOAL } from '../../src/core/merge.js';
import { REDACTED } from '../../src/core/redact.js';
import { type Checkpoint, parseCheckpoint } from '../../src/core/schema.js';
import {
  applyTranscript,
  DERIVED_GOAL_CHARS,
  FROM_TRANSCRIPT,
  shortenGoal,
  type TranscriptRecord,
} from '../../src/core/transcript.js';

const T0 = new Date('2026-10-08T02:23:55.477Z');
const T1 = new Date('2026-10-08T03:00:00.000Z');
const TOKEN = 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q';

function saved(input: SaveInput, previous: Checkpoint | null = null, isAutomatic = false): Checkpoint {
  return buildCheckpoint({
    input,
    previous,
    git: null,
    detectedFiles: [],
    oids: new Map(),
    now: T0,
    newId: () => 'id-1',
    generator: { name: 'claude-checkpoint-mcp', version: '0.1.0' },
    projectName: 'my-app',
    isAutomatic,
  }).checkpoint;
}

const started = saved({ goal: PLACEHOLDER_GOAL, mode: 'merge' });

const record: TranscriptRecord = {
  session: 'session-1',
  goal: 'Add a health check route\n  to the API server',
  tasks: [
    { description: 'Write the route', status: 'done' },
    { description: 'Test the route', status: 'in_progress' },
    { description: 'Document it', status: 'pending' },
  ],
  status: 'The route works; the docs are next.',
  files: ['src/health.ts'],
  commands: [
    { command: 'npm test', exitCode: 0 },
    { command: 'npm run lint', exitCode: 3, note: 'Lint' },
  ],
};

const apply = (checkpoint: Checkpoint, from: TranscriptRecord = record) =>
  applyTranscript(checkpoint, from, { now: T1 });

describe('applyTranscript: derived fields fill only what the agent left empty', () => {
  // As a save's (bad-input trial): a to-do list naming a task twice kept it twice.
  it('keeps one entry of a task the transcript lists twice, with the later status', () => {
    const twice = {
      ...record,
      tasks: [...(record.tasks ?? []), { description: 'Document it', status: 'done' as const }],
    };
    expect(apply(started, twice).checkpoint.goal.tasks).toEqual([
      { description: 'Write the route', status: 'done' },
      { description: 'Test the route', status: 'in_progress' },
      { description: 'Document it', status: 'done' },
    ]);
  });

  it('fills a checkpoint started by a hook: goal, tasks, status and commands, marked as derived', () => {
    const { checkpoint, changed } = apply(started);
    expect(changed).toBe(true);
    expect(checkpoint.goal).toEqual({
      primary: 'Add a health check route to the API server',
      tasks: record.tasks,
    });
    expect(checkpoint.summary).toBe('The route works; the docs are next.');
    expect(checkpoint.recentCommands).toEqual([
      { command: 'npm test', exitCode: 0, at: T1.toISOString() },
      { command: 'npm run lint', exitCode: 3, note: 'Lint', at: T1.toISOString() },
    ]);
    expect(checkpoint.meta.derived).toEqual({
      goal: 'session-1',
      tasks: 'session-1',
      summary: 'session-1',
    });
    // Still a valid version-1 file: an older reader ignores meta.derived.
    expect(parseCheckpoint(JSON.stringify(checkpoint))).toEqual(checkpoint);
    expect(checkpoint.version).toBe(1);
  });

  it('never replaces what the agent saved itself', () => {
    const own = saved({
      goal: 'Ship OAuth login',
      tasks: [{ description: 'Callback route', status: 'done' }],
      summary: 'Cookie flag is wrong',
    });
    const { checkpoint } = apply(own);
    expect(checkpoint.goal.primary).toBe('Ship OAuth login');
    expect(checkpoint.goal.tasks).toEqual([{ description: 'Callback route', status: 'done' }]);
    expect(checkpoint.summary).toBe('Cookie flag is wrong');
    expect(checkpoint.meta.derived).toBeUndefined();
  });

  it('keeps the agent’s own goal and fills the tasks it did not save (it saved a goal, then wrote todos)', () => {
    const own = saved({ goal: 'Ship OAuth login' });
    const { checkpoint } = apply(own);
    expect(checkpoint.goal.primary).toBe('Ship OAuth login');
    expect(checkpoint.goal.tasks).toEqual(record.tasks);
    expect(checkpoint.meta.derived).toEqual({ tasks: 'session-1', summary: 'session-1' });
  });

  it('replaces derived fields with newer derived ones: the latest task list, the latest status', () => {
    const once = apply(started).checkpoint;
    const later = apply(once, {
      ...record,
      tasks: [{ description: 'Document it', status: 'in_progress' }],
      status: 'Writing the docs.',
      commands: [],
    }).checkpoint;
    expect(later.goal.tasks).toEqual([{ description: 'Document it', status: 'in_progress' }]);
    expect(later.summary).toBe('Writing the docs.');
  });

  it('keeps a goal derived from another session: a new session’s first prompt is not the work’s goal', () => {
    const once = apply(started).checkpoint;
    const next = apply(once, { ...record, session: 'session-2', goal: 'What next?' }).checkpoint;
    expect(next.goal.primary).toBe('Add a health check route to the API server');
    expect(next.meta.derived?.goal).toBe('session-1');
  });

  it('changes nothing when the record says nothing new (applying twice is applying once)', () => {
    const once = apply(started);
    const twice = apply(once.checkpoint);
    expect(twice.changed).toBe(false);
    expect(twice.checkpoint).toEqual(once.checkpoint);
  });

  it('adds a command only once, however often the transcript is read', () => {
    const once = apply(started).checkpoint;
    const again = apply(once, { ...record, commands: [...record.commands, { command: 'git status' }] });
    expect(again.checkpoint.recentCommands.map((command) => command.command)).toEqual([
      'npm test',
      'npm run lint',
      'git status',
    ]);
  });

  it('shortens a long prompt into a one-line goal', () => {
    const long = `Please ${'refactor the session handling '.repeat(30)}`;
    const { checkpoint } = apply(started, { ...record, goal: long });
    expect(checkpoint.goal.primary.length).toBe(DERIVED_GOAL_CHARS);
    expect(checkpoint.goal.primary.endsWith('…')).toBe(true);
    expect(shortenGoal(' a\n\n b\tc ')).toBe('a b c');
  });

  it('keeps the list limits: at most 30 tasks, the finished ones dropped first; at most 50 commands', () => {
    const tasks = Array.from({ length: 40 }, (_, index) => ({
      description: `Task ${index}`,
      status: index < 15 ? ('done' as const) : ('pending' as const),
    }));
    const commands = Array.from({ length: 60 }, (_, index) => ({ command: `step ${index}`, exitCode: 0 }));
    const { checkpoint } = apply(started, { ...record, tasks, commands });
    expect(checkpoint.goal.tasks).toHaveLength(LIMITS.tasks);
    expect(checkpoint.goal.tasks.filter((task) => task.status === 'done')).toHaveLength(5);
    expect(checkpoint.recentCommands).toHaveLength(LIMITS.recentCommands);
    expect(checkpoint.recentCommands.at(-1)?.command).toBe('step 59');
    expect(checkpoint.meta.truncated).toBe(true);
  });
});

describe('the agent’s own save after derived fields', () => {
  const derived = apply(started).checkpoint;

  it('takes over the goal and the fields it writes, and drops their marks', () => {
    const own = saved(
      {
        goal: 'Ship the health route',
        summary: 'Docs left',
        tasks: [{ description: 'Docs', status: 'pending' }],
        mode: 'merge',
      },
      derived,
    );
    expect(own.goal.primary).toBe('Ship the health route');
    // Its tasks replace the derived list rather than merging into it.
    expect(own.goal.tasks).toEqual([{ description: 'Docs', status: 'pending' }]);
    expect(own.meta.derived).toBeUndefined();
    // From now on the transcript no longer overwrites them.
    const after = apply(own).checkpoint;
    expect(after.goal.primary).toBe('Ship the health route');
    expect(after.summary).toBe('Docs left');
  });

  it('keeps the marks of the fields it did not write', () => {
    const own = saved({ goal: 'Ship the health route', mode: 'merge' }, derived);
    expect(own.goal.tasks).toEqual(record.tasks);
    expect(own.meta.derived).toEqual({ tasks: 'session-1', summary: 'session-1' });
  });

  it('a refresh by a hook (the same goal again) keeps every mark', () => {
    const refreshed = saved({ goal: derived.goal.primary, mode: 'merge' }, derived, true);
    expect(refreshed.meta.derived).toEqual(derived.meta.derived);
    expect(refreshed.goal.tasks).toEqual(derived.goal.tasks);
  });

  it('a replace save drops every mark', () => {
    expect(saved({ goal: 'Fresh start' }, derived).meta.derived).toBeUndefined();
  });
});

describe('the brief says what came from the transcript', () => {
  it('labels the derived sections, and only those', () => {
    const own = saved({ goal: 'Ship OAuth login' });
    const brief = renderResumeBrief({ checkpoint: apply(own).checkpoint, drift: null, now: T1 });
    expect(brief).toContain('## Goal\nShip OAuth login');
    expect(brief).toContain(`## Tasks (${FROM_TRANSCRIPT})\n- [x] Write the route\n- [~] Test the route`);
    expect(brief).toContain(
      `## Where things stand (${FROM_TRANSCRIPT})\nThe route works; the docs are next.`,
    );
  });
});

describe('redaction of everything derived', () => {
  it('redacts a secret in the prompt, the tasks, the status and the commands', () => {
    const { checkpoint, redactions } = apply(started, {
      ...record,
      goal: `Deploy with ${TOKEN} please`,
      tasks: [{ description: `Rotate ${TOKEN}`, status: 'pending' }],
      status: `Used ${TOKEN}`,
      commands: [{ command: `curl -H "Authorization: token ${TOKEN}" api`, exitCode: 0 }],
    });
    expect(JSON.stringify(checkpoint)).not.toContain(TOKEN);
    expect(checkpoint.goal.primary).toBe(`Deploy with ${REDACTED} please`);
    expect(redactions).toBeGreaterThanOrEqual(4);
    expect(checkpoint.meta.redactions).toBe(redactions);
  });

  it('never leaves any part of a seeded secret behind, wherever a limit cuts the prompt (property)', () => {
    // Rotations of a real-looking body: as random as a token, never a placeholder the detector lets through.
    const body = TOKEN.slice(4);
    const secret = fc.nat({ max: body.length - 1 }).map((k) => `ghp_${body.slice(k)}${body.slice(0, k)}`);
    // Words enough to put the secret across the goal's length limit, often.
    const prose = fc
      .tuple(fc.integer({ min: 0, max: DERIVED_GOAL_CHARS + 20 }), fc.constantFrom('the ', 'déjà\n\n', 'x\t'))
      .map(([length, word]) => word.repeat(Math.ceil(length / word.length)).slice(0, length));
    fc.assert(
      fc.property(prose, secret, prose, (before, token, after) => {
        const prompt = `${before} ${token} ${after}`;
        const { checkpoint } = apply(started, { ...record, goal: prompt, status: prompt, tasks: [] });
        const text = JSON.stringify(checkpoint);
        expect(text).not.toContain(token.slice(4, 20));
      }),
    );
  });

  it('an empty record changes nothing (property)', () => {
    const empty: TranscriptRecord = { session: 's', files: [], commands: [] };
    fc.assert(
      fc.property(
        fc.constantFrom(started, apply(started).checkpoint, saved({ goal: 'Mine' })),
        (checkpoint) => {
          const result = apply(checkpoint, empty);
          expect(result.changed).toBe(false);
          expect(result.checkpoint).toEqual(checkpoint);
        },
      ),
    );
  });
});

describe('trial 4, item 6: tasks and a status newer than the agent’s own save', () => {
  const own = saved({
    goal: 'G',
    summary: 'model: cookie bug open',
    tasks: [{ description: 'cookie', status: 'in_progress' }],
    mode: 'merge',
  });
  const later: TranscriptRecord = {
    session: 'session-1',
    tasks: [
      { description: 'cookie', status: 'done' },
      { description: 'logout', status: 'in_progress' },
    ],
    status: `Cookie fixed with ${TOKEN}; logout next.`,
    files: [],
    commands: [],
    changedSinceLastRead: { tasks: true, status: true },
  };

  it('keeps what the agent saved, and marks what the transcript holds that is newer, redacted', () => {
    const { checkpoint, changed } = apply(own, later);
    expect(changed).toBe(true);
    expect(checkpoint.goal.tasks).toEqual([{ description: 'cookie', status: 'in_progress' }]);
    expect(checkpoint.summary).toBe('model: cookie bug open');
    expect(checkpoint.meta.newerInTranscript).toEqual({
      at: T1.toISOString(),
      tasks: '[x] cookie; [~] logout',
      summary: `Cookie fixed with ${REDACTED}; logout next.`,
    });
    expect(JSON.stringify(checkpoint)).not.toContain(TOKEN);
    // Read again with nothing new: nothing changes, the mark stays.
    const again = apply(checkpoint, { ...later, changedSinceLastRead: { tasks: false, status: false } });
    expect(again.changed).toBe(false);
    expect(again.checkpoint.meta.newerInTranscript).toEqual(checkpoint.meta.newerInTranscript);
  });

  it('marks nothing for what the transcript did not change since its last read (older than the save)', () => {
    const { checkpoint } = apply(own, { ...later, changedSinceLastRead: { tasks: false, status: false } });
    expect(checkpoint.meta.newerInTranscript).toBeUndefined();
  });

  it('drops a mark once the transcript agrees with the save, and the agent’s next save of a field drops its mark', () => {
    const marked = apply(own, later).checkpoint;
    const agreed = apply(marked, {
      ...later,
      tasks: [{ description: 'cookie', status: 'in_progress' }],
      changedSinceLastRead: { tasks: true, status: false },
    }).checkpoint;
    expect(agreed.meta.newerInTranscript).toEqual({
      at: T1.toISOString(),
      summary: `Cookie fixed with ${REDACTED}; logout next.`,
    });
    const resaved = saved({ goal: 'G', summary: 'Cookie fixed; logout next.', mode: 'merge' }, marked);
    expect(resaved.meta.newerInTranscript).toEqual({ at: T1.toISOString(), tasks: '[x] cookie; [~] logout' });
    expect(saved({ goal: 'G', mode: 'merge' }, marked, true).meta.newerInTranscript).toEqual(
      marked.meta.newerInTranscript,
    );
    expect(saved({ goal: 'G', mode: 'replace' }, marked).meta.newerInTranscript).toBeUndefined();
  });

  // The agent saved at T0 (12:05, say) with its tasks and status; the transcript's last task-list update
  // and reply were at 12:00, read for the first time since at 12:06: the save is the later of the two.
  const minutesBefore = (minutes: number) => new Date(T0.getTime() - minutes * 60_000).toISOString();
  const minutesAfter = (minutes: number) => new Date(T0.getTime() + minutes * 60_000).toISOString();

  it('marks nothing the transcript changed before the agent’s own save of that field, by the entries’ times', () => {
    const { checkpoint } = apply(own, { ...later, tasksAt: minutesBefore(5), statusAt: minutesBefore(5) });
    expect(checkpoint.meta.newerInTranscript).toBeUndefined();
    // Only the entry later than the save is called newer.
    expect(
      apply(own, { ...later, tasksAt: minutesBefore(5), statusAt: minutesAfter(1) }).checkpoint.meta
        .newerInTranscript,
    ).toEqual({
      at: T1.toISOString(),
      summary: `Cookie fixed with ${REDACTED}; logout next.`,
    });
  });

  it('each field against its own save: a later save of the status alone leaves the tasks newer', () => {
    const statusLater = new Date(T0.getTime() + 10 * 60_000);
    const resaved = buildCheckpoint({
      input: { goal: 'G', summary: 'model: still the cookie bug', mode: 'merge' },
      previous: own,
      git: null,
      detectedFiles: [],
      oids: new Map(),
      now: statusLater,
      newId: () => 'id-1',
      generator: { name: 'claude-checkpoint-mcp', version: '0.1.0' },
      projectName: 'my-app',
    }).checkpoint;
    const { checkpoint } = apply(resaved, { ...later, tasksAt: minutesAfter(5), statusAt: minutesAfter(5) });
    expect(checkpoint.meta.newerInTranscript).toEqual({
      at: T1.toISOString(),
      tasks: '[x] cookie; [~] logout',
    });
  });

  it('with the times known, an entry later than the save is newer even at a first read; an automatic refresh is no save', () => {
    const refreshed = saved({ goal: 'G', mode: 'merge' }, own, true);
    const first = { ...later, changedSinceLastRead: { tasks: false, status: false } };
    expect(
      apply(refreshed, { ...first, tasksAt: minutesAfter(1), statusAt: minutesAfter(1) }).checkpoint.meta
        .newerInTranscript,
    ).toEqual({
      at: T1.toISOString(),
      tasks: '[x] cookie; [~] logout',
      summary: `Cookie fixed with ${REDACTED}; logout next.`,
    });
    // Without a time for the entry (or for the save: a checkpoint from an earlier version), what changed
    // since the last read counts, as before.
    expect(apply(refreshed, first).checkpoint.meta.newerInTranscript).toBeUndefined();
    const { agentSavedAt: _, ...olderMeta } = own.meta as Checkpoint['meta'] & { agentSavedAt?: unknown };
    expect(
      apply({ ...own, meta: olderMeta }, { ...later, tasksAt: minutesBefore(5) }).checkpoint.meta
        .newerInTranscript?.tasks,
    ).toBe('[x] cookie; [~] logout');
  });

  it('the brief shows the saved fields, says in one line what is newer, and no longer says all can be trusted', () => {
    const marked = apply(own, later).checkpoint;
    const brief = renderResumeBrief({
      checkpoint: { ...marked, git: { branch: 'main', head: '1'.repeat(40), dirty: false } },
      drift: {
        branchChanged: false,
        currentBranch: 'main',
        savedHeadReachable: true,
        commitsSince: 0,
        changedSince: [],
        flaggedSince: null,
      },
      now: T1,
    });
    expect(brief).toContain('## Tasks\n- [~] cookie\n');
    const newer = brief.split('\n').filter((line) => line.includes('newer than the last save'));
    expect(newer).toEqual([
      `- ⚠ The session transcript is newer than the last save (seen just now): tasks [x] cookie; [~] logout; status “Cookie fixed with ${REDACTED}; logout next.”. The tasks and status above are older, as saved`,
    ]);
    expect(brief).not.toContain('the rest of this brief can be trusted');
    expect(brief).toContain(
      '- No file changed after the checkpoint: the files and commands in this brief are current',
    );
    // A newer status alone: "is", not "are" (a review).
    const statusOnly = renderResumeBrief({
      checkpoint: {
        ...marked,
        git: { branch: 'main', head: '1'.repeat(40), dirty: false },
        meta: {
          ...marked.meta,
          newerInTranscript: { at: T1.toISOString(), summary: 'Logout next.' },
        },
      },
      drift: null,
      now: T1,
    });
    expect(statusOnly).toContain('status “Logout next.”. The status above is older, as saved');
  });
});
