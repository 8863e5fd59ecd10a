import { appendFileSync, copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copilotStateOrNull, readCopilotTranscript } from '../../src/transcripts/copilot.js';
import { tempDir } from '../helpers/fixtures.js';

// Events as Copilot CLI's published schema describes them (schemas/session-events.schema.json in the
// 1.0.102 package): `{"type", "data", "id", "timestamp", "parentId"}` a line.
let counter = 0;
const event = (type: string, data: Record<string, unknown>) =>
  JSON.stringify({ type, data, id: `e-${++counter}`, timestamp: '2026-01-01T00:00:00.000Z', parentId: null });
const user = (content: string, extra: Record<string, unknown> = {}) =>
  event('user.message', {
    content,
    transformedContent: `<current_datetime>x</current_datetime>\n\n${content}`,
    ...extra,
  });
const assistant = (content: string, extra: Record<string, unknown> = {}) =>
  event('assistant.message', { messageId: `m-${counter}`, content, toolRequests: [], ...extra });
const start = (toolCallId: string, toolName: string, args: Record<string, unknown>, extra = {}) =>
  event('tool.execution_start', { toolCallId, toolName, arguments: args, ...extra });
const complete = (toolCallId: string, data: Record<string, unknown>) =>
  event('tool.execution_complete', { toolCallId, ...data });
const shell = (id: string, command: string, exitCode: number, description?: string) => [
  start(id, 'bash', { command, ...(description ? { description } : {}) }),
  complete(id, {
    success: true,
    shellExecution: { exitCode },
    result: { content: `out\n<shellId: 0 completed with exit code ${exitCode}>` },
  }),
];
const sql = (id: string, query: string, success = true) => [
  start(id, 'sql', { description: 'todos', query }),
  complete(
    id,
    success ? { success, result: { content: 'ok' } } : { success, error: { message: 'no such column' } },
  ),
];

function sessionFile(lines: string[]): string {
  const file = path.join(tempDir('copilot-events-'), 'events.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('readCopilotTranscript, on events written from the published schema', () => {
  it('the goal, the todos from the sql tool, the last status, the files and the shell commands', () => {
    const file = sessionFile([
      event('session.start', { sessionId: 's', version: 1 }),
      user('/model gpt-5', { source: 'user' }),
      user('Injected by a skill', { source: 'skill-pdf' }),
      user('Add a health check route'),
      event('system.message', { role: 'system', content: 'You are Copilot' }),
      ...sql(
        'c1',
        "INSERT INTO todos (id, title, description) VALUES ('r', 'Writing the route', 'GET /health'), ('t', 'Testing it', 'x')",
      ),
      ...sql('c2', "UPDATE todos SET status = 'done' WHERE id = 'r'"),
      ...sql('c3', "UPDATE todos SET status = 'done' WHERE id = 't'", false),
      ...shell('c4', 'npm test', 3, 'Run the tests'),
      start('c5', 'create', { path: '/p/src/health.ts', file_text: 'x' }),
      complete('c5', { success: true, fileEdits: [{ path: '/p/src/health.ts', kind: 'create' }] }),
      start('c6', 'edit', { path: '/p/src/gone.ts', old_str: 'a', new_str: 'b' }),
      complete('c6', { success: false, error: { message: 'ENOENT' } }),
      start('c7', 'bash', { command: 'rm -rf /' }),
      complete('c7', { success: false, error: { message: 'Denied by policy', code: 'denied' } }),
      assistant('Sub-agent text', { parentToolCallId: 'c9' }),
      assistant('The route answers 200.'),
      assistant(''),
    ]);
    expect(readCopilotTranscript(file, 's', null)?.record).toEqual({
      session: 's',
      goal: 'Add a health check route',
      tasks: [
        { description: 'Writing the route', status: 'done' },
        { description: 'Testing it', status: 'pending' },
      ],
      status: 'The route answers 200.',
      // The times of the last statement that changed the todos and of that reply (every event's here).
      tasksAt: '2026-01-01T00:00:00.000Z',
      statusAt: '2026-01-01T00:00:00.000Z',
      newestTurnWorked: true,
      files: ['/p/src/health.ts'],
      commands: [{ command: 'npm test', exitCode: 3, note: 'Run the tests', callId: 'c4' }],
    });
  });

  it('a command still running at one read is taken in, with its exit code, by the next', () => {
    const lines = [user('Go'), start('c1', 'bash', { command: 'make' })];
    const file = sessionFile(lines);
    const first = readCopilotTranscript(file, 's', null);
    expect(first?.record.commands).toEqual([]);
    appendFileSync(file, `${complete('c1', { success: true, shellExecution: { exitCode: 2 } })}\n`);
    const second = readCopilotTranscript(file, 's', first?.state ?? null);
    expect(second?.record.commands).toEqual([{ command: 'make', exitCode: 2, callId: 'c1' }]);
  });

  it('events a rewind removed count for nothing, also when read before', () => {
    // Its tool calls removed, the turn called none: its reply counts when it says something of the work.
    const BACK =
      'Back to before the todo list: none of it is left, and the first goal is where we start again.';
    const file = sessionFile([
      user('First goal'),
      ...sql('c1', "INSERT INTO todos (id, title) VALUES ('a', 'A')"),
    ]);
    const first = readCopilotTranscript(file, 's', null);
    expect(first?.record.tasks).toEqual([{ description: 'A', status: 'pending' }]);
    const removedFrom = `e-${counter - 1}`;
    appendFileSync(
      file,
      `${event('session.snapshot_rewind', { upToEventId: removedFrom, eventsRemoved: 2 })}\n${assistant(BACK)}\n`,
    );
    const second = readCopilotTranscript(file, 's', first?.state ?? null);
    expect(second?.record).toEqual(
      expect.objectContaining({ goal: 'First goal', status: BACK, tasks: undefined }),
    );
  });

  it('a huge shell output is not parsed, and its exit code is still read', () => {
    const file = sessionFile([
      user('Go'),
      start('c1', 'bash', { command: 'cat big.log; exit 2' }),
      complete('c1', {
        success: true,
        shellExecution: { exitCode: 2 },
        result: { content: `${'x'.repeat(3_000_000)}\n<shellId: 0 completed with exit code 2>` },
      }),
    ]);
    expect(readCopilotTranscript(file, 's', null)?.record.commands).toEqual([
      { command: 'cat big.log; exit 2', exitCode: 2, callId: 'c1' },
    ]);
  });

  it('a missing file gives nothing; a foreign one an empty record', () => {
    const dir = tempDir('copilot-events-');
    expect(readCopilotTranscript(path.join(dir, 'missing.jsonl'), 's', null)).toBeNull();
    const foreign = sessionFile([
      'not json',
      '[1]',
      '{"type":"user.message","data":7}',
      '{"type":"assistant.message"',
    ]);
    expect(readCopilotTranscript(foreign, 's', null)?.record).toEqual({
      session: 's',
      goal: undefined,
      tasks: undefined,
      status: undefined,
      newestTurnWorked: false,
      files: [],
      commands: [],
    });
  });
});

// Recorded from a real Copilot CLI 1.0.102 session (set up by `setup copilot`) driven by the scripted
// model: "Go: add a health check route", whose turn inserts three todos and updates two with the `sql`
// tool, runs a failing and a passing command, creates and edits a file and fails an edit; then
// `--continue` with "Thanks". Copilot CLI's own system prompt is left out (its size kept).
const FIXTURE = new URL('../fixtures/transcripts/copilot-session.jsonl', import.meta.url).pathname;
const PROJECT = '/tmp/checkpoint-repo-h92Ozi';

describe('readCopilotTranscript on a recorded session', () => {
  it('reads the goal, every todo with its status, the last status, the files and the commands', () => {
    const read = readCopilotTranscript(FIXTURE, 'session-a', null);
    expect(read?.record).toEqual({
      session: 'session-a',
      goal: 'Go: add a health check route',
      tasks: [
        { description: 'Writing the route', status: 'done' },
        { description: 'Testing the route', status: 'in_progress' },
        { description: 'Documenting it', status: 'pending' },
      ],
      // Trial 4, item 8: not "Noted." (the answer to "Thanks", a turn that called no tool).
      status: 'The route answers 200; its tests pass, the docs are next.',
      // When the UPDATE of the todos (not the INSERT before it) and that reply were made.
      tasksAt: '2026-12-02T05:23:35.048Z',
      statusAt: '2026-12-02T05:23:40.399Z',
      newestTurnWorked: false,
      files: [`${PROJECT}/src/health.ts`, `${PROJECT}/src/app.ts`],
      commands: [
        {
          command: "echo 'FAIL auth.test.ts' && exit 3",
          exitCode: 3,
          note: 'Run the auth tests',
          callId: 'call_fake_3',
        },
        { command: 'echo ok', exitCode: 0, note: 'Say ok', callId: 'call_fake_4' },
      ],
    });
    expect(read?.state.offset).toBe(statSync(FIXTURE).size);
  });

  it('reading in steps gives what one read of the whole gives, and a cut last line waits for the next read', () => {
    const file = path.join(tempDir('copilot-events-'), 'events.jsonl');
    copyFileSync(FIXTURE, file);
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const whole = readCopilotTranscript(file, 's', null);
    for (let cut = 1; cut < lines.length; cut++) {
      const head = `${lines.slice(0, cut).join('\n')}\n`;
      // The next line half written: left for the next read.
      writeFileSync(file, head + (lines[cut] ?? '').slice(0, 30));
      const early = readCopilotTranscript(file, 's', null);
      expect(early?.state.offset).toBe(Buffer.byteLength(head));
      writeFileSync(file, text);
      const later = readCopilotTranscript(file, 's', early?.state ?? null);
      // Each read's commands are those it found: the two reads together found every command once.
      const commands = [...(early?.record.commands ?? []), ...(later?.record.commands ?? [])];
      expect({ ...later?.record, commands }, `cut after line ${cut}`).toEqual(whole?.record);
    }
  });

  it('a remembered state is used only when it has the shape written', () => {
    const state = readCopilotTranscript(FIXTURE, 's', null)?.state;
    expect(copilotStateOrNull(JSON.parse(JSON.stringify(state)))).toEqual(state);
    for (const damaged of [
      null,
      { ...state, version: 2 },
      { ...state, todos: [{ id: 1 }] },
      { ...state, files: 'x' },
    ])
      expect(copilotStateOrNull(damaged)).toBeNull();
  });
});
