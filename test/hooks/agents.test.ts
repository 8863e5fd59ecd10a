import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/hooks/agents.js';
import { bashOutcome } from '../../src/hooks/input.js';

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
    ['SessionEnd', { ...base, reason: 'exit' }, null],
  ])('maps %s (%j) to %s', (native, input, event) => {
    expect(gemini.toEvent(native, input)?.event ?? null).toBe(event);
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

  it('answers with hookSpecificOutput for the native event, and nothing when there is nothing to say', () => {
    expect(JSON.parse(gemini.render('SessionStart', { context: 'brief', notes: [] }) ?? '')).toEqual({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'brief' },
    });
    expect(gemini.render('BeforeAgent', { notes: [] })).toBeUndefined();
    expect(gemini.briefOnNextPrompt).toBe(true);
    expect(ADAPTERS.claude.briefOnNextPrompt).toBe(false);
  });
});
