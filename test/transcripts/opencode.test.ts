import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readOpenCodeSession } from '../../src/transcripts/opencode.js';

// Shapes as OpenCode's SDK types describe them (@opencode-ai/sdk, OpenCode 1.18): a message is
// `{ info: { role }, parts }`; a text part `{ type: 'text', text, synthetic? }`; a tool part
// `{ type: 'tool', tool, callID, state: { status: 'pending' | 'running' | 'completed' | 'error', input,
// metadata } }`, the bash tool's exit code in `metadata.exit`; a todo `{ content, status, priority }`,
// status one of pending, in_progress, completed, cancelled.
const text = (value: string, extra = {}) => ({ type: 'text', text: value, ...extra });
const tool = (name: string, status: string, input: Record<string, unknown>, metadata = {}) => ({
  type: 'tool',
  tool: name,
  callID: `call-${name}`,
  state: { status, input, metadata },
});
const message = (role: string, ...parts: unknown[]) => ({ info: { role }, parts });

describe('readOpenCodeSession, on messages written from the SDK types', () => {
  it('the goal, the todo list, the last text, the files and the shell commands', () => {
    const record = readOpenCodeSession(
      {
        messages: [
          message('user', text('Context a plugin added', { synthetic: true })),
          message('user', text('"Add a health check route"')),
          message(
            'assistant',
            tool('todowrite', 'completed', { todos: [] }),
            tool('bash', 'completed', { command: 'npm test', description: 'Run the tests' }, { exit: 3 }),
            tool('bash', 'error', { command: 'rm -rf /' }),
            tool('write', 'completed', { filePath: '/p/src/health.ts', content: 'x' }),
            tool('edit', 'error', { filePath: '/p/src/gone.ts' }),
            tool('edit', 'completed', { filePath: '/p/src/app.ts' }),
            tool('write', 'completed', { filePath: '/p/src/health.ts', content: 'y' }),
            text('The route answers 200.'),
          ),
          message('user', text('Thanks')),
          // Trial 4, item 8: the reply to a turn that called no tool does not hide the status.
          message('assistant', text('Noted.')),
          message('assistant', text('')),
        ],
        todos: [
          { content: 'Write the route', status: 'completed', priority: 'high' },
          { content: 'Test the route', status: 'in_progress', priority: 'high' },
          { content: 'Document it', status: 'pending', priority: 'low' },
          { content: 'Old plan', status: 'cancelled', priority: 'low' },
        ],
      },
      's',
    );
    expect(record).toEqual({
      session: 's',
      goal: 'Add a health check route',
      tasks: [
        { description: 'Write the route', status: 'done' },
        { description: 'Test the route', status: 'in_progress' },
        { description: 'Document it', status: 'pending' },
      ],
      status: 'The route answers 200.',
      newestTurnWorked: false,
      files: ['/p/src/app.ts', '/p/src/health.ts'],
      commands: [{ command: 'npm test', exitCode: 3, note: 'Run the tests', callId: 'call-bash' }],
    });
  });

  it('a session that never used the todo tool has no task list (an empty one would clear a derived list)', () => {
    const record = readOpenCodeSession({ messages: [message('user', text('Hi'))], todos: [] }, 's');
    expect(record?.tasks).toBeUndefined();
  });

  it.each([
    ['a slash command', '/init'],
    ['only whitespace', '  '],
  ])('skips %s as the goal', (_name, typed) => {
    const record = readOpenCodeSession(
      { messages: [message('user', text(typed)), message('user', text('Real'))] },
      's',
    );
    expect(record?.goal).toBe('Real');
  });

  it('a foreign payload gives nothing; damaged entries are skipped', () => {
    expect(readOpenCodeSession(null, 's')).toBeNull();
    expect(readOpenCodeSession({ messages: 'x' }, 's')).toBeNull();
    expect(
      readOpenCodeSession(
        { messages: [1, null, { info: 7 }, message('assistant', 5, { type: 'tool' })] },
        's',
      ),
    ).toEqual({
      session: 's',
      goal: undefined,
      tasks: undefined,
      status: undefined,
      newestTurnWorked: true,
      files: [],
      commands: [],
    });
  });
});

// Recorded from a real OpenCode 1.18.33 session (`opencode run "Go: add a health check route"`, the
// scripted model): what `client.session.messages` and `client.session.todo` answered a plugin at
// `session.idle`. The turn writes a todo list twice (the second marks one done and cancels one), runs a
// failing and a passing command, writes and edits a file and fails an edit.
const FIXTURE = new URL('../fixtures/transcripts/opencode-session.json', import.meta.url).pathname;
const PROJECT = '/tmp/checkpoint-repo-NnAUJB';

describe('readOpenCodeSession on a recorded session', () => {
  it('reads the goal, every todo with its status, the last text, the files and the commands', () => {
    expect(readOpenCodeSession(JSON.parse(readFileSync(FIXTURE, 'utf8')), 'ses_1')).toEqual({
      session: 'ses_1',
      goal: 'Go: add a health check route',
      tasks: [
        { description: 'Write the route', status: 'done' },
        { description: 'Test the route', status: 'in_progress' },
        { description: 'Document it', status: 'pending' },
      ],
      status: 'The route answers 200; its tests pass, the docs are next.',
      newestTurnWorked: true,
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
  });
});
