import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { mergeJournal } from '../helpers/relay.js';

beforeAll(assertBuilt);

function project() {
  const root = createRepo({ committed: { 'a.txt': 'one\n' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), COPILOT_HOME: tempDir('copilot-home-') };
  const hook = (args: string[], input: string) => runCli(['hook', ...args], { cwd: root, env, input });
  const recorded = () =>
    JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).recentCommands as {
      command: string;
    }[];
  return { root, hook, recorded };
}

// Adversarial trial (issue 26): a Copilot CLI postToolUse with a 60 MB textResultForLlm failed with
// "Unterminated string in JSON at position 16777216", and the command was not recorded.
// 60 MB through a pipe takes seconds on a loaded machine.
describe('a hook input over MAX_INPUT_BYTES (16 MB)', { timeout: 60_000 }, () => {
  it('Copilot CLI postToolUse: the command before the cut is recorded, and the hook names the limit', async () => {
    const { root, hook, recorded } = project();
    const payload = {
      sessionId: 'aaaaaaaa-1111-4222-8333-444444444444',
      timestamp: 1796189016294,
      cwd: root,
      toolName: 'bash',
      toolArgs: JSON.stringify({ command: 'cat big.log', description: 'Show the log' }),
      toolResult: { resultType: 'success', textResultForLlm: 'x'.repeat(60 * 1024 * 1024) },
    };
    const result = await hook(['postToolUse', '--agent', 'copilot'], JSON.stringify(payload));
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('Unterminated');
    expect(result.stderr).toContain('over the 16777216 read (MAX_INPUT_BYTES, 16 MB)');
    expect(recorded()).toEqual([expect.objectContaining({ command: 'cat big.log' })]);
  });

  it('a command cut at the limit is not recorded in part', async () => {
    const { root, hook } = project();
    const payload = {
      session_id: 'aaaaaaaa-1111-4222-8333-444444444444',
      cwd: root,
      tool_name: 'Bash',
      tool_input: { command: `echo ${'y'.repeat(20 * 1024 * 1024)}` },
      tool_response: { stdout: '', stderr: '' },
    };
    const result = await hook(['PostToolUse'], JSON.stringify(payload));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('MAX_INPUT_BYTES');
    expect(result.stderr).not.toContain('Unterminated');
    // New-user trial (issue 26): it said "no command in the hook input", of an input cut inside its command.
    expect(result.stderr).not.toContain('no command in the hook input');
    expect(result.stderr).toContain(
      'the command was cut with the hook input at its 16 MB read (MAX_INPUT_BYTES): too long to record, and never recorded in part; nothing recorded',
    );
    const checkpoint = path.join(root, '.claude-checkpoint');
    const saved = (() => {
      try {
        return readFileSync(checkpoint, 'utf8');
      } catch {
        return '';
      }
    })();
    expect(saved).not.toContain('yyyy');
  });

  it('an input that ends inside its command: says so, and records nothing of it', async () => {
    const { root, hook } = project();
    const payload = {
      session_id: 'aaaaaaaa-1111-4222-8333-444444444444',
      cwd: root,
      tool_name: 'Bash',
      tool_input: { command: `echo ${'q'.repeat(5000)}` },
      tool_response: { stdout: '', stderr: '' },
    };
    const text = JSON.stringify(payload);
    const result = await hook(['PostToolUse'], text.slice(0, text.indexOf('qqqq') + 100));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('before its JSON object did');
    expect(result.stderr).not.toContain('no command in the hook input');
    expect(result.stderr).toContain('the hook input ended before its command did; nothing recorded');
    expect(existsSync(path.join(root, '.claude-checkpoint'))).toBe(false);
  });

  // A review: the exit code an agent reports after the output was lost with it, and a default called the
  // failure a success (Gemini CLI's `Exit Code: 3` at the end of llmContent; Claude Code's `interrupted`).
  it('a command whose report was cut: recorded with no exit code, and says its outcome is unknown', async () => {
    const { root, hook, recorded } = project();
    const gemini = {
      session_id: 'g1',
      cwd: root,
      hook_event_name: 'AfterTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'npm test' },
      tool_response: { llmContent: `Output: ${'z'.repeat(17 * 1024 * 1024)}\nExit Code: 3` },
    };
    expect((await hook(['AfterTool', '--agent', 'gemini'], JSON.stringify(gemini))).code).toBe(0);
    const claude = {
      session_id: 'c1',
      cwd: root,
      tool_name: 'Bash',
      tool_input: { command: 'make e2e' },
      tool_response: { stdout: 'w'.repeat(17 * 1024 * 1024), stderr: '', interrupted: true },
    };
    expect((await hook(['PostToolUse'], JSON.stringify(claude))).code).toBe(0);
    // The second hook, on its own, journals its command: merged as the end of the turn does.
    await mergeJournal(root);
    const commands = recorded() as { command: string; exitCode?: number; note?: string }[];
    expect(commands.map(({ command }) => command)).toEqual(['npm test', 'make e2e']);
    for (const command of commands) {
      expect(command.exitCode).toBeUndefined();
      expect(command.note).toBe('outcome unknown: the hook input was over 16 MB');
    }
  });
});
