import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// The recorded TodoWrite session (see test/transcripts/claude-code.test.ts), moved into a test project.
const RECORDED_PROJECT = '/tmp/checkpoint-repo-0I9QD4';
const TOKEN = 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q';
const LAST_MESSAGE = 'Tests pass; the docs are next: the README needs the route and its one query parameter.';

function setUp(fixture: 'todo' | 'tasks' = 'todo') {
  const root = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  const transcript = path.join(tempDir('claude-projects-'), 'session-1.jsonl');
  const recorded = readFileSync(
    new URL(`../fixtures/transcripts/claude-code-${fixture}.jsonl`, import.meta.url),
    'utf8',
  );
  writeFileSync(
    transcript,
    recorded.replaceAll(RECORDED_PROJECT, root).replaceAll("«the user's token»", TOKEN),
  );
  writeFileSync(path.join(root, 'src/health.ts'), 'export const ok = 1;\n');
  const store = tempDir('checkpoint-store-');
  const env = { CHECKPOINT_STORE_DIR: store };
  const payload = (event: string, extra: Record<string, unknown> = {}) => ({
    session_id: 'session-1',
    transcript_path: transcript,
    cwd: root,
    hook_event_name: event,
    ...extra,
  });
  const hook = (event: string, extra: Record<string, unknown> = {}, more: Record<string, string> = {}) =>
    runCli(['hook', event], {
      cwd: root,
      env: { ...env, ...more },
      input: JSON.stringify(payload(event, extra)),
    });
  const stored = () => JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));
  return { root, transcript, store, env, hook, stored };
}

/** One turn of Claude Code's transcript at `at`: a prompt, a TodoWrite of `todos`, its result, a closing `text`. */
const todoTurn = (at: Date, todos: { content: string; status: string }[], text: string) =>
  [
    { type: 'user', timestamp: at.toISOString(), message: { role: 'user', content: 'Go on' } },
    {
      type: 'assistant',
      timestamp: at.toISOString(),
      message: {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: `toolu_${at.getTime()}`,
            name: 'TodoWrite',
            input: { todos: todos.map((todo) => ({ ...todo, activeForm: todo.content })) },
          },
        ],
      },
    },
    {
      type: 'user',
      timestamp: at.toISOString(),
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${at.getTime()}`, content: 'ok' }],
      },
    },
    {
      type: 'assistant',
      timestamp: at.toISOString(),
      message: { role: 'assistant', content: [{ type: 'text', text }] },
    },
  ]
    .map((line) => `${JSON.stringify(line)}\n`)
    .join('');

describe('hooks fill the checkpoint from the session transcript when the model never saved', () => {
  it('Stop: the goal, every task with its status, the status sentence and the commands; the brief says where they came from', async () => {
    const { hook, stored } = setUp();
    // The transcript's newest turn ("Thanks", "Noted.") called no tool: the message Stop hands over counts
    // when it says something of the work (trial 4, item 8).
    const stop = await hook('Stop', { last_assistant_message: LAST_MESSAGE });
    expect(stop).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const saved = stored();
    expect(saved.goal).toEqual({
      primary: 'Add a health check route, token «redacted»',
      tasks: [
        { description: 'Write the route', status: 'done' },
        { description: 'Test the route', status: 'in_progress' },
        { description: 'Document it', status: 'pending' },
      ],
    });
    expect(saved.summary).toBe(LAST_MESSAGE);
    expect(saved.recentCommands).toEqual([
      expect.objectContaining({ command: 'echo ok', exitCode: 0, note: 'Say ok' }),
      expect.objectContaining({ command: "echo 'bad' && exit 3", exitCode: 3, note: 'Fail' }),
    ]);
    expect(saved.meta.derived).toEqual({ goal: 'session-1', tasks: 'session-1', summary: 'session-1' });

    const brief = JSON.parse((await hook('SessionStart', { source: 'clear' })).stdout).hookSpecificOutput
      .additionalContext as string;
    expect(brief).toContain(
      '## Goal (from the session transcript)\nAdd a health check route, token «redacted»',
    );
    expect(brief).toContain(
      '## Tasks (from the session transcript)\n- [x] Write the route\n- [~] Test the route\n- [ ] Document it',
    );
    expect(brief).toContain(`## Where things stand (from the session transcript)\n${LAST_MESSAGE}`);
    expect(brief).toContain("✗ exit 3 `echo 'bad' && exit 3`");
  });

  it('a secret in the prompt reaches neither the checkpoint nor what is kept in the store', async () => {
    const { root, store, hook } = setUp();
    await hook('Stop');
    await hook('SessionEnd', { reason: 'clear' });
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).not.toContain(TOKEN);
    const kept = (readdirSync(store, { recursive: true }) as string[])
      .map((file) => path.join(store, file))
      .filter((file) => file.endsWith('.json'))
      .map((file) => readFileSync(file, 'utf8'));
    expect(kept.some((text) => text.includes('Write the route'))).toBe(true);
    for (const text of kept) expect(text).not.toContain(TOKEN);
  });

  it('the model’s own goal wins; the todos it wrote later fill the tasks it did not save', async () => {
    const { root, env, hook, stored } = setUp();
    await runCli(['save', '--goal', 'Ship the health check'], { cwd: root, env });
    await hook('Stop');
    expect(stored().goal.primary).toBe('Ship the health check');
    expect(stored().goal.tasks).toHaveLength(3);
    expect(stored().meta.derived).toEqual({ tasks: 'session-1', summary: 'session-1' });
  });

  it('SessionEnd also records the files the edit tools wrote, with their content', async () => {
    const { hook, stored } = setUp();
    await hook('SessionEnd', { reason: 'prompt_input_exit' });
    const files = stored().modifiedFiles as Array<{ path: string; status: string; hash?: string }>;
    expect(files).toContainEqual(expect.objectContaining({ path: 'src/health.ts', status: '??' }));
    expect(stored().goal.tasks).toHaveLength(3);
  });

  it('PreCompact fills from the transcript too, besides its refresh and snapshot', async () => {
    const { hook, stored } = setUp();
    await hook('PreCompact', { trigger: 'auto' });
    expect(stored().goal.primary).toBe('Add a health check route, token «redacted»');
    expect(stored().meta.derived.tasks).toBe('session-1');
  });

  it('reads only what was appended since: a later turn’s todos replace the derived list', async () => {
    const { transcript, hook, stored } = setUp();
    await hook('Stop');
    appendFileSync(
      transcript,
      `${JSON.stringify({
        type: 'assistant',
        message: {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 'toolu_later',
              name: 'TodoWrite',
              input: { todos: [{ content: 'Document it', status: 'completed', activeForm: 'Documenting' }] },
            },
          ],
        },
      })}\n`,
    );
    await hook('Stop', { last_assistant_message: 'All done.' });
    expect(stored().goal.tasks).toEqual([{ description: 'Document it', status: 'done' }]);
    expect(stored().summary).toBe('All done.');
  });

  it('trial 4, item 7: after a replace save, the next Stop never puts back the commands it dropped; new ones come after', async () => {
    const { root, env, transcript, hook, stored } = setUp();
    await hook('Stop');
    expect(stored().recentCommands).toHaveLength(2);
    await runCli(['save', '--goal', 'G', '--command', 'make'], { cwd: root, env });
    await hook('Stop');
    expect(stored().recentCommands.map((command: { command: string }) => command.command)).toEqual(['make']);
    appendFileSync(
      transcript,
      [
        {
          type: 'assistant',
          message: {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'toolu_next', name: 'Bash', input: { command: 'npm run lint' } },
            ],
          },
        },
        {
          type: 'user',
          message: {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_next', content: 'ok' }],
          },
        },
      ]
        .map((line) => `${JSON.stringify(line)}\n`)
        .join(''),
    );
    await hook('Stop');
    await hook('PreCompact', { trigger: 'auto' });
    expect(stored().recentCommands.map((command: { command: string }) => command.command)).toEqual([
      'make',
      'npm run lint',
    ]);
  });

  it('trial 4, item 8: where things stand is the last reply of the turn that did work, not "Noted." to "Thanks"', async () => {
    const { hook, stored } = setUp('tasks');
    await hook('PreCompact', { trigger: 'auto' });
    const brief = JSON.parse((await hook('SessionStart', { source: 'compact' })).stdout).hookSpecificOutput
      .additionalContext as string;
    expect(brief).toContain(
      '## Where things stand (from the session transcript)\nThe route works; the docs are next.',
    );
    // Stop hands over the last reply too: an acknowledgement keeps the status before it...
    await hook('Stop', { last_assistant_message: 'Noted.' });
    expect(stored().summary).toBe('The route works; the docs are next.');
    // ...and a reply that says something of the work replaces it, tools or not.
    const update = 'Where we are: the route works and is tested; the docs are the one thing left to write.';
    await hook('Stop', { last_assistant_message: update });
    expect(stored().summary).toBe(update);
  });

  it('trial 4, item 6: the model’s save wins, and the brief says the transcript holds newer tasks and a newer status', async () => {
    const { root, env, transcript, hook } = setUp();
    await hook('Stop');
    const save = (args: string[]) => runCli(['save', '--goal', 'G', ...args], { cwd: root, env });
    await save(['--summary', 'model: cookie bug open', '--task', 'in_progress:cookie']);
    const turn = [
      { type: 'user', message: { role: 'user', content: 'Fix the cookie bug' } },
      {
        type: 'assistant',
        message: {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 'toolu_todo2',
              name: 'TodoWrite',
              input: {
                todos: [
                  { content: 'cookie', status: 'completed', activeForm: 'x' },
                  { content: 'logout', status: 'in_progress', activeForm: 'y' },
                ],
              },
            },
          ],
        },
      },
      {
        type: 'user',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_todo2', content: 'ok' }],
        },
      },
      {
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'text', text: 'Cookie fixed; logout next.' }] },
      },
    ];
    appendFileSync(transcript, turn.map((line) => `${JSON.stringify(line)}\n`).join(''));
    await hook('Stop', { last_assistant_message: 'Cookie fixed; logout next.' });
    const brief = async () =>
      JSON.parse((await hook('SessionStart', { source: 'clear' })).stdout).hookSpecificOutput
        .additionalContext as string;
    const shown = await brief();
    // The model's own save is shown, as the rule says...
    expect(shown).toContain('## Tasks\n- [~] cookie');
    expect(shown).toContain('## Where things stand\nmodel: cookie bug open');
    // ...and one line says what is newer, and that the save is older; nothing claims all can be trusted.
    expect(shown).toMatch(
      /- ⚠ The session transcript is newer than the last save \(seen [^)]*\): tasks \[x\] cookie; \[~\] logout; status “Cookie fixed; logout next\.”\. The tasks and status above are older, as saved\n/,
    );
    expect(shown).not.toContain('the rest of this brief can be trusted');
    // The model's next save of both is the newer: the line goes.
    await save([
      '--summary',
      'Cookie fixed; logout next.',
      '--task',
      'done:cookie',
      '--task',
      'in_progress:logout',
    ]);
    const after = await brief();
    expect(after).not.toContain('The session transcript is newer');
    expect(after).toContain('the rest of this brief can be trusted as is');
  });

  it('the first Stop of a session after the agent’s save: the reply that ended the turn is a newer status, beside the newer tasks', async () => {
    const { root, env, transcript, hook } = setUp();
    // A new session: nothing read before. The model saves, then works on and ends its turn.
    await runCli(
      ['save', '--goal', 'F work', '--task', 'in_progress:cookie fix', '--summary', 'working on cookies'],
      {
        cwd: root,
        env,
      },
    );
    writeFileSync(
      transcript,
      todoTurn(
        new Date(Date.now() + 1_000),
        [
          { content: 'cookie fix', status: 'completed' },
          { content: 'logout', status: 'in_progress' },
        ],
        'Cookie fixed; logout next.',
      ),
    );
    await hook('Stop', { last_assistant_message: 'Cookie fixed; logout next.' });
    const brief = JSON.parse((await hook('SessionStart', { source: 'clear' })).stdout).hookSpecificOutput
      .additionalContext as string;
    expect(brief).toContain('## Where things stand\nworking on cookies');
    expect(brief).toMatch(
      /- ⚠ The session transcript is newer than the last save \(seen [^)]*\): tasks \[x\] cookie fix; \[~\] logout; status “Cookie fixed; logout next\.”\. The tasks and status above are older, as saved\n/,
    );
  });

  it('a reply that ends the turn in which the agent saved keeps the save’s status (the turn began before the save)', async () => {
    const { root, env, transcript, hook } = setUp();
    const started = new Date(Date.now() - 5_000).toISOString();
    const line = (entry: Record<string, unknown>) => `${JSON.stringify({ timestamp: started, ...entry })}\n`;
    // The turn's prompt, then the agent's own save in that turn, then its reply reporting the save.
    writeFileSync(
      transcript,
      line({ type: 'user', message: { role: 'user', content: 'Save where we are' } }),
    );
    await runCli(
      ['save', '--goal', 'G', '--summary', 'Cookie fixed; logout next, per the plan in docs/plan.md'],
      {
        cwd: root,
        env,
      },
    );
    const reply = 'I saved a checkpoint with the cookie fix done and the logout work next.';
    // The save as the model made it: a tool call of this turn (so the turn did work).
    appendFileSync(
      transcript,
      line({
        type: 'assistant',
        timestamp: new Date().toISOString(),
        message: {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 'toolu_save',
              name: 'mcp__claude-checkpoint__save_session_checkpoint',
              input: { goal: 'G' },
            },
          ],
        },
      }) +
        line({
          type: 'user',
          timestamp: new Date().toISOString(),
          message: {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_save', content: 'saved' }],
          },
        }),
    );
    appendFileSync(
      transcript,
      line({
        type: 'assistant',
        timestamp: new Date().toISOString(),
        message: { role: 'assistant', content: [{ type: 'text', text: reply }] },
      }),
    );
    await hook('Stop', { last_assistant_message: reply });
    const brief = JSON.parse((await hook('SessionStart', { source: 'clear' })).stdout).hookSpecificOutput
      .additionalContext as string;
    expect(brief).toContain('## Where things stand\nCookie fixed; logout next, per the plan in docs/plan.md');
    expect(brief).not.toContain('The session transcript is newer');
  });

  it('the transcript is called newer only for what it wrote after the agent’s own save, by the entries’ times', async () => {
    const { root, env, transcript, hook } = setUp();
    await hook('Stop');
    // A turn: the model updates its todos and says where it stands (12:00, say)...
    appendFileSync(
      transcript,
      todoTurn(
        new Date(Date.now() - 60_000),
        [
          { content: 'cookie', status: 'completed' },
          { content: 'logout', status: 'in_progress' },
        ],
        'Cookie fixed; logout next.',
      ),
    );
    // ...then saves its own, different view (12:05); the turn's end reads the transcript after (12:06).
    const save = (args: string[]) => runCli(['save', '--goal', 'G', ...args], { cwd: root, env });
    await save([
      '--summary',
      'model: logout first',
      '--task',
      'in_progress:logout',
      '--task',
      'pending:cookie',
    ]);
    await hook('Stop');
    const brief = async () =>
      JSON.parse((await hook('SessionStart', { source: 'clear' })).stdout).hookSpecificOutput
        .additionalContext as string;
    const shown = await brief();
    expect(shown).toContain('## Tasks\n- [~] logout\n- [ ] cookie');
    expect(shown).not.toContain('The session transcript is newer');
    // A turn written after the save is newer, and said so.
    appendFileSync(
      transcript,
      todoTurn(
        new Date(Date.now() + 1_000),
        [
          { content: 'logout', status: 'completed' },
          { content: 'cookie', status: 'in_progress' },
        ],
        'Logout done; the cookie is next.',
      ),
    );
    await hook('Stop');
    expect(await brief()).toMatch(
      /- ⚠ The session transcript is newer than the last save \(seen [^)]*\): tasks \[x\] logout; \[~\] cookie; status “Logout done; the cookie is next\.”\./,
    );
  });

  it('changes nothing with CHECKPOINT_FROM_TRANSCRIPT=0, or when the transcript is missing or foreign', async () => {
    const { root, env, transcript, hook } = setUp();
    await runCli(['save', '--goal', '(not recorded yet: placeholder kept)'], { cwd: root, env });
    const before = readFileSync(path.join(root, '.claude-checkpoint'), 'utf8');
    expect(await hook('Stop', {}, { CHECKPOINT_FROM_TRANSCRIPT: '0' })).toMatchObject({
      code: 0,
      stderr: '',
    });
    const missing = await hook('Stop', { transcript_path: path.join(root, 'nope.jsonl') });
    expect(missing.code).toBe(0);
    expect(missing.stderr).toContain('could not be read');
    writeFileSync(transcript, 'PK\u0003\u0004 not a transcript\n{"type":"user"');
    expect((await hook('Stop')).code).toBe(0);
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).toBe(before);
  });
});

describe('the other agents’ hooks fill the checkpoint from their sessions', () => {
  // The recorded Copilot CLI session (see test/transcripts/copilot.test.ts), moved into a test project.
  const COPILOT_PROJECT = '/tmp/checkpoint-repo-h92Ozi';
  const COPILOT_SESSION = 'af86c68a-a4bb-48c1-8cf8-ba796d0575f7';

  it('Copilot CLI: Stop (agentStop) reads the events file it names; SessionEnd finds it under COPILOT_HOME', async () => {
    const root = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
    const home = tempDir('copilot-home-');
    const events = path.join(home, 'session-state', COPILOT_SESSION, 'events.jsonl');
    const recorded = readFileSync(
      new URL('../fixtures/transcripts/copilot-session.jsonl', import.meta.url),
      'utf8',
    );
    mkdirSync(path.dirname(events), { recursive: true });
    writeFileSync(events, recorded.replaceAll(COPILOT_PROJECT, root));
    writeFileSync(path.join(root, 'src/health.ts'), 'export const ok = 1;\n');
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), COPILOT_HOME: home };
    const hook = (event: string, payload: Record<string, unknown>) =>
      runCli(['hook', event, '--agent', 'copilot'], {
        cwd: root,
        env,
        input: JSON.stringify({ hook_event_name: event, session_id: COPILOT_SESSION, cwd: root, ...payload }),
      });
    // As Copilot CLI 1.0.102 sends them.
    expect(
      await hook('Stop', { transcript_path: events, stop_reason: 'end_turn', stop_hook_active: false }),
    ).toMatchObject({
      code: 0,
      stderr: '',
    });
    const saved = JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));
    expect(saved.goal).toEqual({
      primary: 'Go: add a health check route',
      tasks: [
        { description: 'Writing the route', status: 'done' },
        { description: 'Testing the route', status: 'in_progress' },
        { description: 'Documenting it', status: 'pending' },
      ],
    });
    // Trial 4, item 8: not "Noted." (the answer to "Thanks", a turn that called no tool).
    expect(saved.summary).toBe('The route answers 200; its tests pass, the docs are next.');
    expect(saved.recentCommands).toEqual([
      expect.objectContaining({ command: "echo 'FAIL auth.test.ts' && exit 3", exitCode: 3 }),
      expect.objectContaining({ command: 'echo ok', exitCode: 0 }),
    ]);
    expect(await hook('SessionEnd', { reason: 'complete' })).toMatchObject({ code: 0, stderr: '' });
    const ended = JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));
    // A full save: the files the edit tools wrote are recorded, with their content's oid.
    expect(ended.modifiedFiles).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'src/health.ts', status: '??' }),
        expect.objectContaining({ path: 'src/app.ts' }),
      ]),
    );
  });

  it('Copilot CLI: todos the model changed before its own save are not called newer than the save; after it, they are', async () => {
    const root = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
    const home = tempDir('copilot-home-');
    const events = path.join(home, 'session-state', COPILOT_SESSION, 'events.jsonl');
    mkdirSync(path.dirname(events), { recursive: true });
    writeFileSync(
      events,
      readFileSync(
        new URL('../fixtures/transcripts/copilot-session.jsonl', import.meta.url),
        'utf8',
      ).replaceAll(COPILOT_PROJECT, root),
    );
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), COPILOT_HOME: home };
    const stop = () =>
      runCli(['hook', 'Stop', '--agent', 'copilot'], {
        cwd: root,
        env,
        input: JSON.stringify({
          hook_event_name: 'Stop',
          session_id: COPILOT_SESSION,
          cwd: root,
          transcript_path: events,
          stop_reason: 'end_turn',
        }),
      });
    const brief = async () =>
      JSON.parse(
        (
          await runCli(['hook', 'SessionStart', '--agent', 'copilot'], {
            cwd: root,
            env,
            input: JSON.stringify({
              hook_event_name: 'SessionStart',
              session_id: 'next',
              cwd: root,
              source: 'resume',
            }),
          })
        ).stdout,
      ).additionalContext as string;
    // One turn: an `sql` UPDATE of the todos, then the answer, each event with its time.
    let id = 0;
    const turn = (at: Date, query: string) =>
      [
        { type: 'user.message', data: { content: 'Go on' } },
        { type: 'assistant.turn_start', data: { turnId: '9' } },
        {
          type: 'tool.execution_start',
          data: { toolCallId: `late_${++id}`, toolName: 'sql', arguments: { query } },
        },
        {
          type: 'tool.execution_complete',
          data: { toolCallId: `late_${id}`, success: true, result: { content: 'ok' } },
        },
        { type: 'assistant.message', data: { content: 'Updated the todos.', toolRequests: [] } },
        { type: 'assistant.turn_end', data: { turnId: '9' } },
      ]
        .map(
          (line) =>
            `${JSON.stringify({ ...line, id: `late-event-${++id}`, timestamp: at.toISOString(), parentId: null })}\n`,
        )
        .join('');
    expect(await stop()).toMatchObject({ code: 0, stderr: '' });
    appendFileSync(
      events,
      turn(new Date(Date.now() - 60_000), "UPDATE todos SET status = 'done' WHERE id = 'test-route'"),
    );
    // The model's own save comes after that turn's entries (as `save_checkpoint` would, from the CLI here).
    await runCli(['save', '--goal', 'G', '--task', 'in_progress:Testing the route'], { cwd: root, env });
    expect(await stop()).toMatchObject({ code: 0, stderr: '' });
    expect(await brief()).not.toContain('The session transcript is newer');
    appendFileSync(
      events,
      turn(new Date(Date.now() + 1_000), "UPDATE todos SET status = 'done' WHERE id = 'document'"),
    );
    expect(await stop()).toMatchObject({ code: 0, stderr: '' });
    expect(await brief()).toMatch(
      /The session transcript is newer than the last save \(seen [^)]*\): tasks \[x\] Writing/,
    );
  });

  /** A project, Copilot CLI's home, and its hooks run as a process; the events file written by `writeEvents`. */
  function copilotProject() {
    const root = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
    const home = tempDir('copilot-home-');
    const events = path.join(home, 'session-state', COPILOT_SESSION, 'events.jsonl');
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), COPILOT_HOME: home };
    const hook = (event: string, payload: Record<string, unknown>) =>
      runCli(['hook', event, '--agent', 'copilot'], { cwd: root, env, input: JSON.stringify(payload) });
    const stop = () =>
      hook('Stop', {
        hook_event_name: 'Stop',
        session_id: COPILOT_SESSION,
        cwd: root,
        transcript_path: events,
        stop_reason: 'end_turn',
      });
    const recorded = () =>
      JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).recentCommands as {
        command: string;
        exitCode?: number;
        note?: string;
      }[];
    /** One turn of shell calls, as Copilot CLI writes them (tool.execution_start, then _complete). */
    const writeEvents = (calls: { tool: string; args: Record<string, unknown>; exitCode: number }[]) => {
      let id = 0;
      const line = (type: string, data: Record<string, unknown>) =>
        `${JSON.stringify({ type, data, id: `e${++id}`, timestamp: '2026-12-06T12:00:00.000Z', parentId: null })}\n`;
      mkdirSync(path.dirname(events), { recursive: true });
      writeFileSync(
        events,
        [
          line('user.message', { content: 'Look at the sources' }),
          line('assistant.turn_start', { turnId: '0' }),
          ...calls.flatMap((call, index) => [
            line('tool.execution_start', {
              toolCallId: `call_${index}`,
              toolName: call.tool,
              arguments: call.args,
              turnId: '0',
            }),
            line('tool.execution_complete', {
              toolCallId: `call_${index}`,
              turnId: '0',
              shellExecution: { exitCode: call.exitCode },
              success: true,
              result: { content: `done\n<shellId: ${index} completed with exit code ${call.exitCode}>` },
            }),
          ]),
          line('assistant.message', { content: 'Looked.', toolRequests: [] }),
          line('assistant.turn_end', { turnId: '0' }),
        ].join(''),
      );
    };
    return { root, hook, stop, recorded, writeEvents };
  }

  // Copilot CLI on Windows runs shell commands with its `powershell` tool. The payloads as its hooks
  // reference describes them (docs.github.com, "GitHub Copilot CLI hooks reference"): PascalCase events
  // get snake_case fields (tool_name, tool_input, tool_result.result_type/text_result_for_llm), camelCase
  // ones toolName, toolArgs and toolResult.resultType/textResultForLlm; the tool is named `powershell` in
  // its list of tool names, and Claude-format payloads carry Claude's tool name (its changelog: `Bash`
  // rather than `bash`), which for PowerShell is `PowerShell`.
  it.each([
    ['PostToolUse', 'powershell'],
    ['PostToolUse', 'PowerShell'],
    ['postToolUse', 'powershell'],
  ])(
    'Copilot CLI: %s records a %s command with its exit code, redacted, and Stop does not list it again from the events file',
    async (event, tool) => {
      const { root, hook, stop, recorded, writeEvents } = copilotProject();
      const secret = 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q';
      const command = `$env:GH_TOKEN = '${secret}'; Get-ChildItem src | Select-Object -First 1; exit 2`;
      const text = 'app.ts\n<shellId: 0 completed with exit code 2>';
      const args = { command, description: 'List the sources' };
      const payload =
        event === 'PostToolUse'
          ? {
              hook_event_name: 'PostToolUse',
              session_id: COPILOT_SESSION,
              timestamp: '2026-12-06T12:00:00.000Z',
              cwd: root,
              tool_name: tool,
              tool_input: args,
              tool_result: { result_type: 'success', text_result_for_llm: text },
            }
          : {
              sessionId: COPILOT_SESSION,
              timestamp: 1796189016294,
              cwd: root,
              toolName: tool,
              // `unknown` in the reference: the arguments' JSON, as the preToolUse payload carries them.
              toolArgs: JSON.stringify(args),
              toolResult: { resultType: 'success', textResultForLlm: text },
            };
      expect(await hook(event, payload)).toMatchObject({ code: 0, stderr: '' });
      const expected = {
        command: "$env:GH_TOKEN = '«redacted»'; Get-ChildItem src | Select-Object -First 1; exit 2",
        exitCode: 2,
        note: 'List the sources; output: app.ts',
      };
      expect(recorded()).toEqual([expect.objectContaining(expected)]);
      expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).not.toContain(secret);

      // The turn's end reads the same call from the events file, and one the hook never saw (its hook
      // timed out, say), which it adds.
      writeEvents([
        { tool: 'powershell', args, exitCode: 2 },
        { tool: 'powershell', args: { command: 'Get-Date' }, exitCode: 0 },
      ]);
      expect(await stop()).toMatchObject({ code: 0, stderr: '' });
      expect(recorded()).toEqual([
        expect.objectContaining({ command: expected.command, exitCode: 2 }),
        expect.objectContaining({ command: 'Get-Date', exitCode: 0 }),
      ]);
    },
  );

  it('Copilot CLI: a command longer than the limit is redacted before it is clipped (no part of a secret at the cut is kept), and Stop does not list it again', async () => {
    const { root, hook, stop, recorded, writeEvents } = copilotProject();
    const secret = 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q';
    // The secret straddles the 2,000-character cut; the second command's sits before it, and its redaction
    // makes room for more of the line.
    const long = (prefix: string, at: number) =>
      `${prefix}${'x'.repeat(at - prefix.length)} ${secret} ${'y'.repeat(200)}`;
    const commands = [long('echo ', 1_980), long(`echo ${secret} `, 1_950)];
    for (const command of commands)
      expect(
        await hook('PostToolUse', {
          hook_event_name: 'PostToolUse',
          session_id: COPILOT_SESSION,
          cwd: root,
          tool_name: 'Bash',
          tool_input: { command },
          tool_result: {
            result_type: 'success',
            text_result_for_llm: 'ok\n<shellId: 0 completed with exit code 0>',
          },
        }),
      ).toMatchObject({ code: 0, stderr: '' });
    // The second is in the command journal until the end of the turn merges it: redacted there too.
    const journal = path.join(root, '.claude-checkpoint.journal');
    const saved = [
      readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'),
      ...readdirSync(journal).map((name) => readFileSync(path.join(journal, name), 'utf8')),
    ].join('\n');
    for (const part of [secret.slice(0, 12), secret.slice(-12)]) expect(saved).not.toContain(part);

    writeEvents(commands.map((command) => ({ tool: 'bash', args: { command }, exitCode: 0 })));
    expect(await stop()).toMatchObject({ code: 0, stderr: '' });
    expect(recorded()).toHaveLength(2);
    for (const entry of recorded()) expect(entry.command).toHaveLength(2_000);
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).not.toContain(secret.slice(-12));
  });

  // Seen in real sessions: when agentStop ran, the file ended at the last model call's start; its answer
  // (the status) came a moment later. A prompt makes one model call per tool round: the file may also be
  // behind by a whole round, ending at a call that asked for a tool.
  it.each([
    // The answer ("Noted.", to "Thanks") is not the status (trial 4, item 8): the one before stays.
    [
      'at the last model call’s start',
      (type: string) => type === 'assistant.turn_start',
      'The route answers 200; its tests pass, the docs are next.',
    ],
    [
      'a whole tool round behind (the first session, cut after its next-to-last call)',
      (type: string, index: number) => type === 'assistant.turn_end' && index < 80,
      'The route answers 200; its tests pass, the docs are next.',
    ],
  ])(
    'Copilot CLI: Stop waits for the answer, which Copilot CLI writes behind the hook: %s',
    async (_name, cutAfter, status) => {
      const root = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
      const home = tempDir('copilot-home-');
      const events = path.join(home, 'session-state', COPILOT_SESSION, 'events.jsonl');
      const lines = readFileSync(
        new URL('../fixtures/transcripts/copilot-session.jsonl', import.meta.url),
        'utf8',
      )
        .replaceAll(COPILOT_PROJECT, root)
        .split(/(?<=\n)/);
      const typeOf = (line: string) => /"type":"([^"]+)"/.exec(line)?.[1] ?? '';
      const cut = lines.findLastIndex((line, index) => cutAfter(typeOf(line), index));
      // The rest of that prompt: up to its answer's turn_end.
      const end = lines.findIndex(
        (line, index) =>
          index > cut && line.includes('"toolRequests":[]') && typeOf(line) === 'assistant.message',
      );
      mkdirSync(path.dirname(events), { recursive: true });
      writeFileSync(events, lines.slice(0, cut + 1).join(''));
      const stop = runCli(['hook', 'Stop', '--agent', 'copilot'], {
        cwd: root,
        env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), COPILOT_HOME: home },
        input: JSON.stringify({
          hook_event_name: 'Stop',
          session_id: COPILOT_SESSION,
          cwd: root,
          transcript_path: events,
          stop_reason: 'end_turn',
        }),
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      appendFileSync(events, lines.slice(cut + 1, end + 2).join(''));
      expect(await stop).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).summary).toBe(status);
    },
  );

  it('OpenCode: the session its plugin hands over in the Stop payload', async () => {
    const root = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
    const recorded = JSON.parse(
      readFileSync(new URL('../fixtures/transcripts/opencode-session.json', import.meta.url), 'utf8'),
    );
    const stop = await runCli(['hook', 'Stop', '--agent', 'opencode'], {
      cwd: root,
      env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') },
      input: JSON.stringify({
        hook_event_name: 'Stop',
        cwd: root,
        session_id: 'ses_1',
        transcript: recorded,
      }),
    });
    expect(stop).toMatchObject({ code: 0, stderr: '' });
    const saved = JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));
    expect(saved.goal.primary).toBe('Go: add a health check route');
    expect(saved.goal.tasks).toEqual([
      { description: 'Write the route', status: 'done' },
      { description: 'Test the route', status: 'in_progress' },
      { description: 'Document it', status: 'pending' },
    ]);
    expect(saved.summary).toBe('The route answers 200; its tests pass, the docs are next.');
    expect(saved.meta.derived).toEqual({ goal: 'ses_1', tasks: 'ses_1', summary: 'ses_1' });
  });

  it('OpenCode, trial 4, item 7: after a replace save, the next turn’s end never puts back the commands it dropped', async () => {
    const root = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
    const recorded = JSON.parse(
      readFileSync(new URL('../fixtures/transcripts/opencode-session.json', import.meta.url), 'utf8'),
    );
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const stop = () =>
      runCli(['hook', 'Stop', '--agent', 'opencode'], {
        cwd: root,
        env,
        input: JSON.stringify({
          hook_event_name: 'Stop',
          cwd: root,
          session_id: 'ses_1',
          transcript: recorded,
        }),
      });
    const commands = () =>
      JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).recentCommands.map(
        (command: { command: string }) => command.command,
      );
    expect(await stop()).toMatchObject({ code: 0, stderr: '' });
    expect(commands()).toHaveLength(2);
    await runCli(['save', '--goal', 'G', '--command', 'make'], { cwd: root, env });
    expect(await stop()).toMatchObject({ code: 0, stderr: '' });
    expect(commands()).toEqual(['make']);
  });
});
