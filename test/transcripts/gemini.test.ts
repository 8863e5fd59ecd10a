import { appendFileSync, copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGeminiTranscript } from '../../src/transcripts/gemini.js';
import { tempDir } from '../helpers/fixtures.js';

// Recorded from a real Gemini CLI 0.61.0 session (`gemini -p`, model gemini-2.5-flash, which offers
// write_todos; set up by `setup gemini`) driven by the scripted model: a prompt whose turn calls
// write_todos, write_file, replace, two run_shell_command calls (one exits 3) and write_todos again
// (with a cancelled item), then `gemini --resume latest -p Thanks`. On resume Gemini CLI writes the whole
// history again as one `$set.messages` record, tool calls as functionCall / functionResponse parts, and
// our SessionStart context comes before "Thanks" in <hook_context> tags. Long texts are trimmed.
const FIXTURE = new URL('../fixtures/transcripts/gemini-chat.jsonl', import.meta.url).pathname;
const GOAL = "Add a health check route (token «the user's token»)";
const TASKS = [
  { description: 'Write the route', status: 'done' },
  { description: 'Test the route', status: 'in_progress' },
  { description: 'Document it', status: 'pending' },
];
const COMMANDS = [
  {
    command: "echo 'FAIL auth.test.ts' && exit 3",
    exitCode: 3,
    note: 'Run the auth tests',
    callId: 'run_shell_command__call_fake_4',
  },
  { command: "echo 'health: 200'", exitCode: 0, callId: 'run_shell_command__call_fake_5' },
];

function copyOfFixture(): string {
  const file = path.join(tempDir('gemini-transcript-'), 'session.jsonl');
  copyFileSync(FIXTURE, file);
  return file;
}

/** A message record as ChatRecordingService appends it (the same id again when it changes). */
const record = (value: Record<string, unknown>) => `${JSON.stringify(value)}\n`;
const model = (id: string, content: string, toolCalls?: unknown[]) =>
  record({
    id,
    timestamp: '2026-12-02T05:30:00.000Z',
    type: 'gemini',
    content,
    ...(toolCalls ? { toolCalls } : {}),
  });
const user = (id: string, text: string) =>
  record({ id, timestamp: '2026-12-02T05:30:00.000Z', type: 'user', content: [{ text }] });
const toolCall = (id: string, name: string, args: unknown, status: string, response: unknown) => ({
  id,
  name,
  args,
  status,
  timestamp: '2026-12-02T05:30:00.000Z',
  ...(response === undefined ? {} : { result: [{ functionResponse: { id, name, response } }] }),
});

describe('readGeminiTranscript on a recorded session', () => {
  it('the goal, the latest todos with their statuses, the last answer, the written files and the commands', () => {
    const read = readGeminiTranscript(FIXTURE, 'session-a', null);
    expect(read?.record).toEqual({
      session: 'session-a',
      goal: GOAL,
      // The cancelled item is left out: it is not work to resume.
      tasks: TASKS,
      // Trial 4, item 8: not "Noted." (the answer to a turn that called no tool) but the last answer of
      // the turn that did the work.
      status: 'The route answers 200; its tests pass, the docs are next.',
      // The messages' times: the write_todos call's and that answer's, compared with the agent's own save.
      tasksAt: '2026-12-02T05:22:17.869Z',
      statusAt: '2026-12-02T05:22:17.869Z',
      newestTurnWorked: false,
      files: ['src/health.ts', 'src/app.ts'],
      commands: COMMANDS,
    });
    expect(read?.state.offset).toBe(statSync(FIXTURE).size);
  });

  it('a half-written last line is left for the next read, which then takes it in', () => {
    const file = copyOfFixture();
    const whole = statSync(file).size;
    // A reply to a turn that called no tool, long enough to say something of the work.
    const done = 'Docs written; all tasks done, and the README now says how to call the health route.';
    const next = model('m-last', done);
    appendFileSync(file, next.slice(0, 30));
    const first = readGeminiTranscript(file, 's', null);
    expect(first?.record.status).toBe('The route answers 200; its tests pass, the docs are next.');
    expect(first?.state.offset).toBe(whole);
    appendFileSync(file, next.slice(30));
    const second = readGeminiTranscript(file, 's', first?.state ?? null);
    expect(second?.record.status).toBe(done);
    expect(second?.record.tasks).toEqual(TASKS);
    expect(second?.record.goal).toBe(GOAL);
  });

  it('reading in steps gives what one read of the whole gives, cut at every line', () => {
    const file = copyOfFixture();
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const whole = readGeminiTranscript(file, 's', null);
    for (let cut = 1; cut < lines.length; cut++) {
      writeFileSync(file, `${lines.slice(0, cut).join('\n')}\n`);
      const early = readGeminiTranscript(file, 's', null);
      writeFileSync(file, text);
      const later = readGeminiTranscript(file, 's', early?.state ?? null);
      // Each read's commands are those it found: the two reads together found every command once.
      const commands = [...(early?.record.commands ?? []), ...(later?.record.commands ?? [])];
      expect({ ...later?.record, commands }, `cut after line ${cut}`).toEqual(whole?.record);
    }
  });

  it('a message written again is read once, in its latest version; a call still running waits for its end', () => {
    const file = path.join(tempDir('gemini-transcript-'), 'session.jsonl');
    const run = (status: string, response?: unknown) =>
      toolCall('shell-1', 'run_shell_command', { command: 'npm test' }, status, response);
    writeFileSync(
      file,
      record({ sessionId: 's', projectHash: 'h', startTime: 'x', lastUpdated: 'x', kind: 'main' }) +
        user('u1', 'Make the tests pass') +
        model('m1', '', [run('executing')]),
    );
    const first = readGeminiTranscript(file, 's', null);
    expect(first?.record.commands).toEqual([]);
    appendFileSync(
      file,
      model('m1', '', [run('success', { output: 'Output: 2 failed\nExit Code: 1' })]) +
        model('m2', 'Two tests fail.'),
    );
    const second = readGeminiTranscript(file, 's', first?.state ?? null);
    expect(second?.record.commands).toEqual([{ command: 'npm test', exitCode: 1, callId: 'shell-1' }]);
    expect(second?.record).toEqual(readGeminiTranscript(file, 's', null)?.record);
  });

  it('a rewind drops what it rewound; a refused todo call and a failed write count for nothing', () => {
    const file = path.join(tempDir('gemini-transcript-'), 'session.jsonl');
    writeFileSync(
      file,
      record({ sessionId: 's', projectHash: 'h', startTime: 'x', lastUpdated: 'x', kind: 'main' }) +
        user('u1', '/help') +
        user('u2', 'Refactor the parser') +
        model('m1', 'Plan ready.', [
          toolCall(
            't1',
            'write_todos',
            { todos: [{ description: 'Split the lexer', status: 'in_progress' }] },
            'success',
            {
              output: 'Successfully updated the todo list.',
            },
          ),
        ]) +
        user('u3', 'Also rename it') +
        model('m2', 'Renamed.') +
        record({ $rewindTo: 'u3' }) +
        model('m3', 'Lexer split.', [
          toolCall('t2', 'write_todos', { todos: [{ description: 'x', status: 'pending' }] }, 'error', {
            error: 'Tool "write_todos" not found.',
          }),
          toolCall('w1', 'write_file', { file_path: 'src/lexer.ts', content: '' }, 'error', {
            error: 'Permission denied',
          }),
          toolCall(
            'w2',
            'replace',
            { file_path: 'src/parser.ts', old_string: 'a', new_string: 'b' },
            'success',
            {
              output: 'Successfully modified file: src/parser.ts (1 replacements).',
            },
          ),
        ]),
    );
    expect(readGeminiTranscript(file, 's', null)?.record).toEqual({
      session: 's',
      goal: 'Refactor the parser',
      tasks: [{ description: 'Split the lexer', status: 'in_progress' }],
      status: 'Lexer split.',
      tasksAt: '2026-12-02T05:30:00.000Z',
      statusAt: '2026-12-02T05:30:00.000Z',
      newestTurnWorked: true,
      files: ['src/parser.ts'],
      commands: [],
    });
    // The rewound answer is not the status, even as the newest text before the rewind.
    writeFileSync(file, readFileSync(file, 'utf8').split('\n').slice(0, 7).join('\n').concat('\n'));
    expect(readGeminiTranscript(file, 's', null)?.record.status).toBe('Plan ready.');
  });

  it('the single JSON document of older Gemini CLI versions (session-*.json) is read whole', () => {
    const file = path.join(tempDir('gemini-transcript-'), 'session-2025-09-01T10-00-abcd1234.json');
    const at = '2025-09-01T10:00:00.000Z';
    const conversation = {
      sessionId: 'abcd1234',
      projectHash: 'h',
      startTime: at,
      lastUpdated: at,
      messages: [
        { id: 'u1', timestamp: at, type: 'user', content: '/about' },
        { id: 'u2', timestamp: at, type: 'user', content: [{ text: 'Speed up the build' }] },
        {
          id: 'm1',
          timestamp: at,
          type: 'gemini',
          content: 'Build cache added; CI next.',
          toolCalls: [
            toolCall(
              't1',
              'write_todos',
              { todos: [{ description: 'Cache the build', status: 'completed' }] },
              'success',
              {
                output: 'Successfully updated the todo list.',
              },
            ),
            toolCall('s1', 'run_shell_command', { command: 'npm run build' }, 'success', {
              output: 'Output: done\nProcess Group PGID: 7',
            }),
            toolCall('w1', 'write_file', { file_path: 'build.config.js', content: '' }, 'success', {
              output: 'Successfully created and wrote to new file.',
            }),
          ],
        },
        { id: 'i1', timestamp: at, type: 'info', content: 'Session saved' },
      ],
    };
    writeFileSync(file, JSON.stringify(conversation, null, 2));
    expect(readGeminiTranscript(file, 's', null)?.record).toEqual({
      session: 's',
      goal: 'Speed up the build',
      tasks: [{ description: 'Cache the build', status: 'done' }],
      status: 'Build cache added; CI next.',
      tasksAt: at,
      statusAt: at,
      newestTurnWorked: true,
      files: ['build.config.js'],
      commands: [{ command: 'npm run build', exitCode: 0 }],
    });
    // Trial 4, item 7: read again, it hands over no command a read before took in (a replace save may
    // have dropped it from the checkpoint since).
    const first = readGeminiTranscript(file, 's', null);
    expect(readGeminiTranscript(file, 's', first?.state ?? null)?.record.commands).toEqual([]);
  });

  it('a missing file gives nothing; a foreign one gives an empty record', () => {
    const dir = tempDir('gemini-transcript-');
    expect(readGeminiTranscript(path.join(dir, 'missing.jsonl'), 's', null)).toBeNull();
    expect(readGeminiTranscript(dir, 's', null)).toBeNull();
    const foreign = path.join(dir, 'foreign.jsonl');
    writeFileSync(foreign, 'not json\n[1,2]\n{"id":"x","type":"gemini","toolCalls":7}\n\u0000\n{"id":');
    expect(readGeminiTranscript(foreign, 's', null)?.record).toEqual({
      session: 's',
      goal: undefined,
      tasks: undefined,
      status: undefined,
      files: [],
      commands: [],
    });
  });
});
