import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/hooks/agents.js';
import { bashOutcome } from '../../src/hooks/input.js';
import { tempDir } from '../helpers/fixtures.js';

// Payloads as Gemini CLI 0.61.0 sends them (captured from a real session with a hook that logged stdin).
const base = {
  session_id: 's',
  transcript_path: '/t.jsonl',
  cwd: '/p',
  timestamp: '2026-12-01T07:40:27.872Z',
};
const afterShell = (llmContent: string) => ({
  ...base,
  hook_event_name: 'AfterTool',
  tool_name: 'run_shell_command',
  tool_input: { command: 'npm test', description: 'Run the tests' },
  tool_response: { llmContent, returnDisplay: 'x' },
});

describe('the Gemini CLI adapter', () => {
  const gemini = ADAPTERS.gemini;

  it.each([
    ['SessionStart', { ...base, source: 'resume' }, 'SessionStart'],
    ['BeforeAgent', { ...base, prompt: 'go' }, 'UserPromptSubmit'],
    ['PreCompress', { ...base, trigger: 'manual' }, 'PreCompact'],
    ['PreCompress', { ...base, trigger: 'auto' }, null],
    ['AfterTool', { ...base, tool_name: 'write_file', tool_input: {} }, null],
    ['SessionEnd', { ...base, reason: 'exit' }, 'SessionEnd'],
    ['AfterAgent', { ...base, prompt: 'go', prompt_response: 'Done.', stop_hook_active: false }, 'Stop'],
  ])('maps %s (%j) to %s', (native, input, event) => {
    expect(gemini.toEvent(native, input)?.event ?? null).toBe(event);
  });

  it("takes the context SessionStart put before a prompt off it (a resumed session's prompt, as `-p --resume` sends it)", () => {
    const prompt =
      '<hook_context>Session checkpoint restored.\n\n# Resume\n</hook_context>\n\nStep 2 second\nmore';
    expect(gemini.toEvent('BeforeAgent', { ...base, prompt })?.input.prompt).toBe('Step 2 second\nmore');
    expect(gemini.toEvent('BeforeAgent', { ...base, prompt: '<b>bold</b> go' })?.input.prompt).toBe(
      '<b>bold</b> go',
    );
  });

  it("hands AfterAgent's answer over as the turn's last assistant message", () => {
    const mapped = gemini.toEvent('AfterAgent', { ...base, prompt: 'go', prompt_response: 'Route added.' });
    expect(mapped?.input.last_assistant_message).toBe('Route added.');
    expect(mapped?.input.transcript_path).toBe('/t.jsonl');
  });

  it('recovers a shell command and its exit code from the text result', () => {
    const failed = gemini.toEvent(
      'AfterTool',
      afterShell(
        '<untrusted_context>\nOutput: 2 failing\nExit Code: 3\nProcess Group PGID: 16739\n</untrusted_context>',
      ),
    );
    expect(failed?.event).toBe('PostToolUse');
    expect(bashOutcome(failed?.input ?? {})).toEqual({
      command: 'npm test',
      exitCode: 3,
      note: 'Run the tests; output: 2 failing',
    });
    const passed = gemini.toEvent(
      'AfterTool',
      afterShell('<untrusted_context>\nOutput: ok\n</untrusted_context>'),
    );
    expect(bashOutcome(passed?.input ?? {})).toEqual({
      command: 'npm test',
      exitCode: 0,
      note: 'Run the tests',
    });
  });

  // Trial 4 of issue 26, item 3: the output of `cat check.sh` said "exit 1", and the command was recorded
  // as failed; only Gemini CLI's own trailer after the output counts.
  it.each([
    [
      'a script that says exit 1, printed',
      'Output: #!/bin/sh\n[ -f x ] || exit 1\necho ok\nProcess Group PGID: 7',
      0,
    ],
    [
      'a build that says "exited with code 0", then failed',
      'Output: tsc exited with code 0\n3 tests failed\nExit Code: 2\nProcess Group PGID: 9',
      2,
    ],
    ['an output line "Exit Code: 5", then success', 'Output: Exit Code: 5\nProcess Group PGID: 9', 0],
    [
      'a failure with its signal and background pids',
      'Output: (empty)\nError: boom\nExit Code: 137\nSignal: 9\nBackground PIDs: 12, 13\nProcess Group PGID: 9',
      137,
    ],
    [
      'the wrapped form',
      '<untrusted_context>\nOutput: exit 4\nProcess Group PGID: 9\n</untrusted_context>',
      0,
    ],
  ])("the exit code of %s is the trailer's only", (_name, llmContent, exitCode) => {
    const mapped = gemini.toEvent('AfterTool', afterShell(llmContent));
    expect(bashOutcome(mapped?.input ?? {}).exitCode).toBe(exitCode);
  });

  it('a command that did not run to its end (cancelled, moved to the background) has no outcome', () => {
    for (const llmContent of [
      'Command was cancelled by user before it could complete. There was no output before it was cancelled.',
      'Command moved to background (PID: 12). Output hidden. Press Ctrl+B to view.',
    ])
      expect(bashOutcome(gemini.toEvent('AfterTool', afterShell(llmContent))?.input ?? {})).toEqual({
        command: 'npm test',
        note: 'Run the tests',
      });
  });

  it('answers with hookSpecificOutput for the native event, and nothing when there is nothing to say', () => {
    expect(JSON.parse(gemini.render('SessionStart', { context: 'brief', notes: [] }) ?? '')).toEqual({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'brief' },
    });
    expect(gemini.render('BeforeAgent', { notes: [] })).toBeUndefined();
    expect(gemini.briefOnNextPrompt).toBe(true);
    expect(ADAPTERS.claude.briefOnNextPrompt).toBe(false);
  });
});

describe('the Codex adapter', () => {
  const codex = ADAPTERS.codex;
  // As Codex 0.169.0 writes them: PostToolUse has the output text only; the transcript has the exit code.
  const transcriptLines = (callId: string, exitCode: number) => [
    JSON.stringify({
      type: 'response_item',
      payload: { type: 'function_call', name: 'exec_command', call_id: callId },
    }),
    JSON.stringify({
      type: 'event_msg',
      payload: {
        type: 'item_completed',
        item: { type: 'CommandExecution', id: callId, status: 'failed', exit_code: exitCode },
      },
    }),
  ];

  it("finds a command's exit code in the transcript Codex names", () => {
    const transcript = path.join(tempDir(), 'rollout.jsonl');
    writeFileSync(transcript, [...transcriptLines('call_1', 0), ...transcriptLines('call_2', 3)].join('\n'));
    const post = (id: string) =>
      codex.toEvent('PostToolUse', {
        transcript_path: transcript,
        tool_name: 'Bash',
        tool_use_id: id,
        tool_input: { command: 'npm test' },
        tool_response: 'FAIL auth\n',
      });
    expect(bashOutcome(post('call_2')?.input ?? {})).toEqual({
      command: 'npm test',
      exitCode: 3,
      note: 'output: FAIL auth',
    });
    expect(bashOutcome(post('call_1')?.input ?? {})).toEqual({ command: 'npm test', exitCode: 0 });
    // Not in the transcript (or no transcript): the outcome is unknown, not a guess.
    expect(bashOutcome(post('call_9')?.input ?? {}).exitCode).toBeUndefined();
  });

  it("names the prompt by its turn id, which the rollout file names too (a conversation rewind's cut)", () => {
    const prompt = {
      session_id: 's',
      turn_id: '01a2368a-7e42-7373',
      prompt: 'Fix it',
      transcript_path: '/r',
    };
    expect(codex.toEvent('UserPromptSubmit', prompt)?.input).toMatchObject({
      prompt_id: '01a2368a-7e42-7373',
    });
    expect(
      codex.toEvent('UserPromptSubmit', { ...prompt, turn_id: undefined })?.input.prompt_id,
    ).toBeUndefined();
  });

  it('keeps its output to hookSpecificOutput alone, within its context cap', () => {
    const output = JSON.parse(codex.render('SessionStart', { context: 'x'.repeat(20_000), notes: [] }) ?? '');
    expect(Object.keys(output)).toEqual(['hookSpecificOutput']);
    expect(output.hookSpecificOutput.additionalContext.length).toBe(8_000);
    expect(codex.toEvent('PostToolUseFailure', {})).toBeNull();
  });
});

describe('the Copilot CLI adapter', () => {
  const copilot = ADAPTERS.copilot;
  // As Copilot CLI 1.0.102 sends them (PascalCase hooks, snake_case payloads), captured from a real session.
  const post = (text: string) => ({
    hook_event_name: 'PostToolUse',
    session_id: 's',
    cwd: '/p',
    tool_name: 'Bash',
    tool_input: { command: 'npm test', description: 'Run the tests' },
    tool_result: { result_type: 'success', text_result_for_llm: text },
  });

  it('reads the exit code from the result text, where a failing command is still a "success"', () => {
    const failed = copilot.toEvent('PostToolUse', post('2 failing\n<shellId: 0 completed with exit code 3>'));
    expect(bashOutcome(failed?.input ?? {})).toEqual({
      command: 'npm test',
      exitCode: 3,
      note: 'Run the tests; output: 2 failing',
    });
    const passed = copilot.toEvent('PostToolUse', post('ok\n<shellId: 1 completed with exit code 0>'));
    expect(bashOutcome(passed?.input ?? {})).toEqual({
      command: 'npm test',
      exitCode: 0,
      note: 'Run the tests',
    });
    expect(copilot.toEvent('PostToolUse', { ...post('x'), tool_name: 'view' })).toBeNull();
  });

  // Trial 4 of issue 26, item 3: an earlier "exited with code 0" in the output won over the trailer.
  it.each([
    ['tsc exited with code 0\n3 tests failed\n<shellId: 0 completed with exit code 1>', 1],
    ['echo "<shellId: 0 completed with exit code 2>"\n<shellId: 3 completed with exit code 0>', 0],
    ['exit code 5 is what the script prints\n<shellId: 1 completed with exit code 0>', 0],
  ])('only the trailer of %j counts', (text, exitCode) => {
    expect(bashOutcome(copilot.toEvent('PostToolUse', post(text))?.input ?? {}).exitCode).toBe(exitCode);
  });

  it('a trailer inside the output, with none at its end, is not an outcome', () => {
    const text = 'x <shellId: 0 completed with exit code 0> y';
    expect(bashOutcome(copilot.toEvent('PostToolUse', post(text))?.input ?? {}).exitCode).toBeUndefined();
  });

  // Its hooks reference names the shell tools `bash` and `powershell` (Windows); Claude-format payloads
  // carry Claude's names (`Bash`, and for PowerShell `PowerShell`); camelCase hooks send toolName, toolArgs
  // (an object or its JSON) and toolResult.textResultForLlm.
  it.each([
    ['PostToolUse', 'powershell', { ...post(''), tool_name: 'powershell' }, 'PowerShell'],
    ['PostToolUse', 'PowerShell', { ...post(''), tool_name: 'PowerShell' }, 'PowerShell'],
    ['PostToolUse', 'bash', { ...post(''), tool_name: 'bash' }, 'Bash'],
    [
      'postToolUse',
      'powershell',
      {
        sessionId: 's',
        timestamp: 1,
        cwd: '/p',
        toolName: 'powershell',
        toolArgs: JSON.stringify({ command: 'npm test', description: 'Run the tests' }),
        toolResult: { resultType: 'success', textResultForLlm: '' },
      },
      'PowerShell',
    ],
  ])('%s of %s: a shell command, handed on as %s with its exit code', (native, _name, payload, tool) => {
    const text = '2 failing\n<shellId: 0 completed with exit code 3>';
    const input =
      'tool_result' in payload
        ? { ...payload, tool_result: { result_type: 'success', text_result_for_llm: text } }
        : { ...payload, toolResult: { resultType: 'success', textResultForLlm: text } };
    const mapped = copilot.toEvent(native, input);
    expect(mapped?.event).toBe('PostToolUse');
    expect(mapped?.input.tool_name).toBe(tool);
    expect(bashOutcome(mapped?.input ?? {})).toEqual({
      command: 'npm test',
      exitCode: 3,
      note: 'Run the tests; output: 2 failing',
    });
  });

  it('treats a new session as a startup, and answers with a top-level additionalContext', () => {
    expect(copilot.toEvent('SessionStart', { source: 'new' })?.input.source).toBe('startup');
    expect(copilot.toEvent('SessionStart', { source: 'resume' })?.input.source).toBe('resume');
    expect(JSON.parse(copilot.render('SessionStart', { context: 'brief', notes: [] }) ?? '')).toEqual({
      additionalContext: 'brief',
    });
  });

  it('takes PreCompact as compaction, and brings the brief back with the next prompt (no session start follows)', () => {
    // As Copilot CLI 1.0.102 sent it before an automatic compaction in a real session.
    const input = {
      hook_event_name: 'PreCompact',
      session_id: 's',
      cwd: '/p',
      transcript_path: '/h/.copilot/session-state/s/events.jsonl',
      trigger: 'auto',
      custom_instructions: '',
    };
    expect(copilot.toEvent('PreCompact', input)).toEqual({ event: 'PreCompact', input });
    expect(copilot.briefOnNextPrompt).toBe(true);
  });

  it('a command started in the background has no exit code yet: it is not recorded as a success', () => {
    const started = copilot.toEvent('PostToolUse', post('<command started in background with shellId: 4>'));
    expect(bashOutcome(started?.input ?? {})).toEqual({ command: 'npm test', note: 'Run the tests' });
  });

  it('Stop (agentStop) names the events file; SessionEnd gets it from the session id, a plain name only', () => {
    // As Copilot CLI 1.0.102 sent them at the end of a `copilot -p` turn and session.
    const stop = {
      hook_event_name: 'Stop',
      session_id: 'a446280b-0a7d-4444-acdf-7b9de4e0af34',
      cwd: '/p',
      transcript_path: '/h/.copilot/session-state/a446280b-0a7d-4444-acdf-7b9de4e0af34/events.jsonl',
      stop_reason: 'end_turn',
      stop_hook_active: false,
    };
    expect(copilot.toEvent('Stop', stop)).toEqual({ event: 'Stop', input: stop });
    const end = { hook_event_name: 'SessionEnd', session_id: stop.session_id, cwd: '/p', reason: 'complete' };
    const saved = process.env.COPILOT_HOME;
    process.env.COPILOT_HOME = '/h/.copilot';
    try {
      expect(copilot.toEvent('SessionEnd', end)?.input.transcript_path).toBe(stop.transcript_path);
      for (const session_id of ['../../etc', 'a/b', '', '.hidden'])
        expect(copilot.toEvent('SessionEnd', { ...end, session_id })?.input.transcript_path).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.COPILOT_HOME;
      else process.env.COPILOT_HOME = saved;
    }
  });

  it('leaves PostToolUseFailure alone: for the shell it reports calls that never ran, without an exit code', () => {
    const refused = {
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Bash',
      tool_input: { command: 'kill -9 $$', description: 'killed' },
      error: "Command not executed. The 'kill' command must specify at least one numeric PID.",
    };
    expect(copilot.toEvent('PostToolUseFailure', refused)).toBeNull();
  });
});
