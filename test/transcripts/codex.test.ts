import { appendFileSync, copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCodexTranscript } from '../../src/transcripts/codex.js';
import { listStateOrNull } from '../../src/transcripts/list-state.js';
import { tempDir } from '../helpers/fixtures.js';

// Recorded from a real Codex CLI 0.169.0 session (`codex exec`, set up by `setup codex`) driven by the
// scripted model: a prompt whose turn calls update_plan, apply_patch (adding src/health.ts), two
// exec_command calls (one exits 3) and update_plan again, then `codex exec resume --last "Thanks"`.
// Long texts (instructions, the environment) are trimmed; the prompt's token is replaced.
const FIXTURE = new URL('../fixtures/transcripts/codex-rollout.jsonl', import.meta.url).pathname;
const PROJECT = '/tmp/checkpoint-repo-nhtbwG';
const GOAL = "Add a health check route (token «the user's token»)";
const TASKS = [
  { description: 'Write the route', status: 'done' },
  { description: 'Test the route', status: 'in_progress' },
  { description: 'Document it', status: 'pending' },
];

function copyOfFixture(): string {
  const file = path.join(tempDir('codex-transcript-'), 'rollout.jsonl');
  copyFileSync(FIXTURE, file);
  return file;
}

/** A rollout line as Codex writes it: `RolloutLine { timestamp, type, payload }`. */
const line = (type: string, payload: Record<string, unknown>) =>
  `${JSON.stringify({ timestamp: '2026-12-02T05:30:00.000Z', type, payload })}\n`;
const call = (name: string, args: unknown, callId: string) =>
  line('response_item', {
    type: 'function_call',
    name,
    arguments: JSON.stringify(args),
    call_id: callId,
  });
const output = (callId: string, text: string) =>
  line('response_item', { type: 'function_call_output', call_id: callId, output: text });
const assistant = (text: string) =>
  line('response_item', {
    type: 'message',
    role: 'assistant',
    content: [{ type: 'output_text', text }],
  });

describe('readCodexTranscript on a recorded session', () => {
  it('the goal, the latest plan with its statuses, the last answer, the patched file and the commands', () => {
    const read = readCodexTranscript(FIXTURE, 'session-a', null);
    expect(read?.record).toEqual({
      session: 'session-a',
      goal: GOAL,
      tasks: TASKS,
      // Trial 4, item 8: not "Noted." (the answer to "Thanks", in the resumed session, a turn that called
      // no tool) but the last answer of the turn that did the work. The hook context Codex adds as
      // developer messages is neither the goal nor the status.
      status: 'The route answers 200; its tests pass, the docs are next.',
      // The lines' times: the update_plan call's and that answer's, compared with the agent's own save.
      tasksAt: '2026-12-02T05:23:03.378Z',
      statusAt: '2026-12-02T05:23:03.588Z',
      newestTurnWorked: false,
      files: [`${PROJECT}/src/health.ts`],
      commands: [
        { command: "echo 'FAIL auth.test.ts' && exit 3", exitCode: 3, callId: 'call_fake_3' },
        { command: "echo 'health: 200'", exitCode: 0, callId: 'call_fake_4' },
      ],
    });
    expect(read?.state.offset).toBe(statSync(FIXTURE).size);
  });

  it('a half-written last line is left for the next read, which then takes it in', () => {
    const file = copyOfFixture();
    const whole = statSync(file).size;
    // A reply to a turn that called no tool, long enough to say something of the work.
    const done = 'Docs written; all tasks done, and the README now says how to call the health route.';
    const next = assistant(done);
    appendFileSync(file, next.slice(0, 50));
    const first = readCodexTranscript(file, 's', null);
    expect(first?.record.status).toBe('The route answers 200; its tests pass, the docs are next.');
    expect(first?.state.offset).toBe(whole);
    appendFileSync(file, next.slice(50));
    const second = readCodexTranscript(file, 's', first?.state ?? null);
    expect(second?.record.status).toBe(done);
    expect(second?.record.tasks).toEqual(TASKS);
    expect(second?.record.goal).toBe(GOAL);
  });

  it('reading in steps gives what one read of the whole gives, cut at every line', () => {
    const file = copyOfFixture();
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const whole = readCodexTranscript(file, 's', null);
    // Between a command and its outcome too: the command is taken in once its outcome is written.
    for (let cut = 1; cut < lines.length; cut++) {
      writeFileSync(file, `${lines.slice(0, cut).join('\n')}\n`);
      const early = readCodexTranscript(file, 's', null);
      writeFileSync(file, text);
      const later = readCodexTranscript(file, 's', early?.state ?? null);
      // Each read's commands are those it found: the two reads together found every command once.
      const commands = [...(early?.record.commands ?? []), ...(later?.record.commands ?? [])];
      expect({ ...later?.record, commands }, `cut after line ${cut}`).toEqual(whole?.record);
    }
  });

  it('a plan call Codex refused (the tool is off) changes no task', () => {
    const file = copyOfFixture();
    appendFileSync(
      file,
      call('update_plan', { plan: [{ step: 'Something else', status: 'pending' }] }, 'call_refused') +
        output('call_refused', 'unsupported call: update_plan'),
    );
    expect(readCodexTranscript(file, 's', null)?.record.tasks).toEqual(TASKS);
  });

  it('a missing file gives nothing; a foreign one gives an empty record', () => {
    const dir = tempDir('codex-transcript-');
    expect(readCodexTranscript(path.join(dir, 'missing.jsonl'), 's', null)).toBeNull();
    expect(readCodexTranscript(dir, 's', null)).toBeNull();
    const foreign = path.join(dir, 'foreign.jsonl');
    writeFileSync(foreign, 'not json\n[1,2]\n{"type":"response_item","payload":42}\n\u0000\n{"type":"event');
    expect(readCodexTranscript(foreign, 's', null)?.record).toEqual({
      session: 's',
      goal: undefined,
      tasks: undefined,
      status: undefined,
      files: [],
      commands: [],
    });
  });
});

describe('readCodexTranscript on the rollout items of other Codex versions', () => {
  it('the `shell` tool (an argument array), `exec_command_end`, `patch_apply_end` and `user_message` events', () => {
    const file = path.join(tempDir('codex-transcript-'), 'rollout.jsonl');
    writeFileSync(
      file,
      line('session_meta', { id: 'older', cwd: '/work/app', cli_version: '0.46.0' }) +
        line('response_item', {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: '<user_instructions>\nBe brief\n</user_instructions>' }],
        }) +
        line('event_msg', { type: 'user_message', message: 'Make the login page faster', images: [] }) +
        call('shell', { command: ['bash', '-lc', 'npm test'], workdir: '/work/app' }, 'c1') +
        line('event_msg', { type: 'exec_command_end', call_id: 'c1', exit_code: 1, stdout: '', stderr: '' }) +
        output('c1', JSON.stringify({ output: 'fail', metadata: { exit_code: 1 } })) +
        call(
          'apply_patch',
          { input: '*** Begin Patch\n*** Update File: src/login.ts\n@@\n-a\n+b\n*** End Patch' },
          'c2',
        ) +
        line('event_msg', {
          type: 'patch_apply_end',
          call_id: 'c2',
          success: true,
          changes: { '/work/app/src/login.ts': { update: { unified_diff: '' } } },
        }) +
        output('c2', 'Success. Updated the following files:\nM src/login.ts') +
        call('shell', { command: ['rm', '-rf', 'dist'] }, 'c3') +
        output('c3', JSON.stringify({ output: '', metadata: { exit_code: 0 } })) +
        line('event_msg', { type: 'agent_message', message: 'Login is faster; tests next.' }),
    );
    expect(readCodexTranscript(file, 'older', null)?.record).toEqual({
      session: 'older',
      goal: 'Make the login page faster',
      tasks: undefined,
      status: 'Login is faster; tests next.',
      statusAt: '2026-12-02T05:30:00.000Z',
      newestTurnWorked: true,
      files: ['/work/app/src/login.ts'],
      commands: [
        { command: 'npm test', exitCode: 1, callId: 'c1' },
        { command: 'rm -rf dist', exitCode: 0, callId: 'c3' },
      ],
    });
  });

  it('a patch given as text: the files it adds, updates and moves to, not those it deletes or moves away', () => {
    const file = path.join(tempDir('codex-transcript-'), 'rollout.jsonl');
    const patch = [
      '*** Begin Patch',
      '*** Add File: docs/new.md',
      '+hello',
      '*** Update File: src/a.ts',
      '*** Move to: src/b.ts',
      '@@',
      '-x',
      '+y',
      '*** Delete File: src/old.ts',
      '*** End Patch',
    ].join('\n');
    writeFileSync(
      file,
      line('response_item', { type: 'custom_tool_call', name: 'apply_patch', input: patch, call_id: 'p1' }) +
        line('response_item', {
          type: 'custom_tool_call_output',
          call_id: 'p1',
          output: 'Exit code: 0\nOutput:\nSuccess.',
        }) +
        line('response_item', {
          type: 'custom_tool_call',
          name: 'apply_patch',
          input: patch,
          call_id: 'p2',
        }) +
        line('response_item', {
          type: 'custom_tool_call_output',
          call_id: 'p2',
          output: 'apply_patch verification failed: no such file',
        }),
    );
    expect(readCodexTranscript(file, 's', null)?.record.files).toEqual(['docs/new.md', 'src/b.ts']);
  });
});

describe('listStateOrNull: what is remembered is used only when it has the shape written', () => {
  it('accepts a state a read wrote, and refuses damaged ones', () => {
    const state = readCodexTranscript(FIXTURE, 's', null)?.state;
    expect(listStateOrNull(JSON.parse(JSON.stringify(state)))).toEqual(state);
    for (const damaged of [
      null,
      [],
      { ...state, version: 2 },
      { ...state, offset: '12' },
      { ...state, tasks: [{ description: 'x', status: 'finished' }] },
      { ...state, commands: [{ command: 42 }] },
      { ...state, calls: [1] },
    ])
      expect(listStateOrNull(damaged)).toBeNull();
  });
});
