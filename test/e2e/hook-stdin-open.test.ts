import { describe, expect, it } from 'vitest';
import { HOOK_ENTRY, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { recordedCommands } from '../helpers/relay.js';

// Issue 26: a hook read its stdin until EOF, so an agent that left the pipe open (silent, or after its JSON)
// held the hook until the agent's own timeout killed it, its work undone.
const commands = recordedCommands;

async function project() {
  const root = createRepo({ committed: { 'a.ts': 'a' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  await runCli(['save', '--goal', 'Open stdin'], { cwd: root, env });
  return { root, env };
}

describe.each([
  ['the plugin entry (hook.cjs)', SHIPPED_HOOK_ENTRY],
  ['the plain entry (hook.js)', HOOK_ENTRY],
])('a hook whose agent keeps stdin open, through %s', (_, entry) => {
  it('stops reading at the end of its one JSON object and does its job', async () => {
    const { root, env } = await project();
    const input = JSON.stringify({
      cwd: root,
      tool_name: 'Bash',
      // Braces and quotes inside strings do not end the object early.
      tool_input: { command: 'echo "}{" \\\\ done' },
      tool_response: { exit_code: 0 },
    });
    const result = await runNodeScript(entry, ['PostToolUse'], {
      cwd: root,
      env,
      input,
      keepStdinOpen: true,
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(commands(root)).toEqual(['echo "}{" \\\\ done']);
  });

  // Half an object is used as far as it is whole, and the hook says so: a pre-command hook must not take
  // a command it could not read for no command (pre-command-over-limit.test.ts).
  it.each([
    ['nothing', '', ''],
    ['half an object', '{"cwd": "/nowhere", "tool_name": "Ba', 'before its JSON object did'],
  ])(
    'given %s on a pipe left open, gives up within its budget, recording nothing',
    async (_, input, said) => {
      const { root, env } = await project();
      const result = await runNodeScript(entry, ['PostToolUse'], {
        cwd: root,
        env,
        input,
        keepStdinOpen: true,
      });
      expect(result.code).toBe(0);
      if (said) expect(result.stderr).toContain(said);
      else expect(result.stderr).toBe('');
      expect(commands(root)).toEqual([]);
    },
  );
});
