import { appendFileSync, copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeStateOrNull, readClaudeTranscript, typedPrompt } from '../../src/transcripts/claude-code.js';
import { tempDir } from '../helpers/fixtures.js';

// Recorded from real Claude Code 2.1.332 sessions driven by the scripted model (test/helpers/fake-model.ts):
// `/help`, then a prompt whose turn creates tasks, writes and edits files and runs two Bash commands
// (one exits 3), then "Thanks", `/compact` and "After". `tasks`: the default task tools (TaskCreate /
// TaskUpdate; TodoWrite is refused). `todo`: CLAUDE_CODE_ENABLE_TASKS=0 (TodoWrite; TaskCreate refused).
const fixture = (name: string) =>
  new URL(`../fixtures/transcripts/claude-code-${name}.jsonl`, import.meta.url).pathname;
const PROJECT = '/tmp/checkpoint-repo-0I9QD4';
const GOAL = "Add a health check route, token «the user's token»";

/** A copy of a fixture in a temp folder, to append to or cut. */
function copyOf(name: string): string {
  const file = path.join(tempDir('transcript-'), 'session.jsonl');
  copyFileSync(fixture(name), file);
  return file;
}

describe('readClaudeTranscript on recorded sessions', () => {
  it('TaskCreate / TaskUpdate: the goal, every task with its status, the status text, files and commands', () => {
    const read = readClaudeTranscript(fixture('tasks'), 'session-a', null);
    expect(read?.record).toEqual({
      session: 'session-a',
      goal: GOAL,
      tasks: [
        { description: 'Write the route', status: 'done' },
        { description: 'Test the route', status: 'in_progress' },
        { description: 'Document it', status: 'pending' },
      ],
      // Trial 4, item 8: the last reply of the last turn that did work, not "Noted." (the answer to
      // "Thanks", and to "After" after the compaction: turns that called no tool).
      status: 'The route works; the docs are next.',
      // When the last TaskUpdate and that reply were written: compared with the agent's own save.
      tasksAt: '2026-12-02T02:34:36.136Z',
      statusAt: '2026-12-02T02:34:37.272Z',
      newestTurnWorked: false,
      // The newest turn's prompt ("After"): a hook's last reply is dated by it.
      newestTurnAt: '2026-12-02T02:34:38.398Z',
      files: [`${PROJECT}/src/health.ts`, `${PROJECT}/src/app.ts`],
      commands: [
        { command: 'echo ok', exitCode: 0, note: 'Say ok', callId: 'toolu_fake_14' },
        { command: "echo 'bad' && exit 3", exitCode: 3, note: 'Fail', callId: 'toolu_fake_15' },
      ],
    });
    expect(read?.state.offset).toBe(statSync(fixture('tasks')).size);
  });

  it('TodoWrite: the latest list; refused task calls and a failed edit count for nothing', () => {
    const read = readClaudeTranscript(fixture('todo'), 'session-b', null);
    expect(read?.record.tasks).toEqual([
      { description: 'Write the route', status: 'done' },
      { description: 'Test the route', status: 'in_progress' },
      { description: 'Document it', status: 'pending' },
    ]);
    expect(read?.record.goal).toBe(GOAL);
    // The Edit's old string was gone (the file was already edited in the first session): not written.
    expect(read?.record.files).toEqual([`${PROJECT}/src/health.ts`]);
  });

  // Claude Code's PowerShell tool (Windows, or CLAUDE_CODE_USE_POWERSHELL_TOOL=1) takes the Bash tool's
  // input; `powershell` is a small session written in the shape of the Bash entries above.
  it('PowerShell tool calls are commands too, with their exit codes', () => {
    const read = readClaudeTranscript(fixture('powershell'), 'session-ps', null);
    expect(read?.record.commands).toEqual([
      { command: 'Get-ChildItem -Name src', exitCode: 0, note: 'List the sources', callId: 'toolu_ps_1' },
      { command: "Write-Output 'bad'; exit 3", exitCode: 3, note: 'Fail', callId: 'toolu_ps_2' },
    ]);
    expect(read?.record.status).toBe('The script fails with exit code 3.');
  });

  it('a half-written last line is left for the next read, which then takes it in', () => {
    const file = copyOf('todo');
    const whole = statSync(file).size;
    const line = JSON.stringify({
      type: 'assistant',
      isSidechain: false,
      message: {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_docs', name: 'Read', input: { file_path: 'README.md' } },
          { type: 'text', text: 'Docs written; all tasks done.' },
        ],
      },
    });
    appendFileSync(file, line.slice(0, 40));
    const first = readClaudeTranscript(file, 's', null);
    expect(first?.record.status).toBe('The route works; the docs are next.');
    expect(first?.state.offset).toBe(whole);
    appendFileSync(file, `${line.slice(40)}\n`);
    const second = readClaudeTranscript(file, 's', first?.state ?? null);
    expect(second?.record.status).toBe('Docs written; all tasks done.');
    expect(second?.record.tasks).toEqual(first?.record.tasks);
    expect(second?.record.goal).toBe(GOAL);
  });

  it('reading in steps gives what one read of the whole gives', () => {
    const file = copyOf('tasks');
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const whole = readClaudeTranscript(file, 's', null);
    // Every line boundary: between a call and its result too (a command still running at the first read).
    for (let cut = 1; cut < lines.length; cut++) {
      writeFileSync(file, `${lines.slice(0, cut).join('\n')}\n`);
      const early = readClaudeTranscript(file, 's', null);
      writeFileSync(file, text);
      const later = readClaudeTranscript(file, 's', early?.state ?? null);
      // Each read's commands are those it found: the two reads together found every command once.
      const commands = [...(early?.record.commands ?? []), ...(later?.record.commands ?? [])];
      expect({ ...later?.record, commands }, `cut after line ${cut}`).toEqual(whole?.record);
    }
  });

  it('starts over when the file at the path is another one', () => {
    const file = copyOf('tasks');
    const first = readClaudeTranscript(file, 's', null);
    copyFileSync(fixture('todo'), file);
    const other = readClaudeTranscript(file, 's', first?.state ?? null);
    expect(other?.record).toEqual(readClaudeTranscript(fixture('todo'), 's', null)?.record);
  });

  it('a missing file gives nothing; a foreign one gives an empty record', () => {
    const dir = tempDir('transcript-');
    expect(readClaudeTranscript(path.join(dir, 'missing.jsonl'), 's', null)).toBeNull();
    expect(readClaudeTranscript(dir, 's', null)).toBeNull();
    const foreign = path.join(dir, 'foreign.jsonl');
    writeFileSync(
      foreign,
      'not json\n[1,2]\n{"type":"user","message":42}\n\u0000\u0001\n{"type":"assistant"',
    );
    expect(readClaudeTranscript(foreign, 's', null)?.record).toEqual({
      session: 's',
      goal: undefined,
      tasks: undefined,
      status: undefined,
      newestTurnWorked: false,
      files: [],
      commands: [],
    });
  });

  it('reads a command whose output spans megabytes, and its exit code', () => {
    const file = copyOf('tasks');
    const use = {
      type: 'assistant',
      message: {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_big', name: 'Bash', input: { command: 'cat big.log; exit 2' } },
        ],
      },
    };
    const result = {
      type: 'user',
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_big',
            is_error: true,
            content: `Exit code 2\n${'x'.repeat(3_000_000)}`,
          },
        ],
      },
      toolUseResult: `Error: Exit code 2\n${'x'.repeat(3_000_000)}`,
    };
    appendFileSync(file, `${JSON.stringify(use)}\n${JSON.stringify(result)}\n`);
    const read = readClaudeTranscript(file, 's', null);
    expect(read?.record.commands.at(-1)).toEqual({
      command: 'cat big.log; exit 2',
      exitCode: 2,
      callId: 'toolu_big',
    });
  });
});

describe('typedPrompt: what a person typed, not what Claude Code or a hook put in', () => {
  it.each([
    ['a plain prompt', 'Fix the login bug', 'Fix the login bug'],
    ['a slash command', '/compact', undefined],
    ['a slash command with arguments', '/review the auth module', undefined],
    [
      'a command wrapper',
      '<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>',
      undefined,
    ],
    ['command output', '<local-command-stdout>Compacted</local-command-stdout>', undefined],
    [
      'a reminder before the prompt',
      '<system-reminder>\nToday is Monday\n</system-reminder>\nShip it',
      'Ship it',
    ],
    ['an interruption notice', '[Request interrupted by user for tool use]', undefined],
    ['only whitespace', ' \n ', undefined],
  ])('%s', (_name, text, expected) => {
    expect(typedPrompt(text)).toBe(expected);
  });
});

describe('claudeStateOrNull: what is remembered is used only when it has the shape written', () => {
  it('accepts a state a read wrote, and refuses damaged ones', () => {
    const state = readClaudeTranscript(fixture('tasks'), 's', null)?.state;
    expect(claudeStateOrNull(JSON.parse(JSON.stringify(state)))).toEqual(state);
    for (const damaged of [
      null,
      [],
      { ...state, version: 2 },
      { ...state, offset: '12' },
      { ...state, taskItems: [{ id: '1', description: 'x', status: 'finished' }] },
      { ...state, commands: [{ command: 42 }] },
    ])
      expect(claudeStateOrNull(damaged)).toBeNull();
  });
});
