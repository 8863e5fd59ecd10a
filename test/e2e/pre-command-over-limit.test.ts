import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { relayOnlyHook, startRelayServer } from '../helpers/relay.js';

beforeAll(assertBuilt);

const MB = 1024 * 1024;
/** A command whose heredoc alone is over the hook's 16 MB read, ending in what destroys work. */
const hugeCommand = () => `cat > data.txt <<'EOF'\n${'d'.repeat(17 * MB)}\nEOF\nrm -rf src`;

function project() {
  const root = createRepo({ committed: { 'src/app.ts': 'export const app = 1;\n' } });
  return { root, env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } };
}

const snapshots = async (root: string, env: Record<string, string>) =>
  JSON.parse((await runCli(['list', '--json', '--root', root], { cwd: root, env })).stdout).snapshots as {
    trigger: string;
    label?: string;
  }[];

// Each agent's pre-tool input, as its hook sends it, for one command line.
const inputs: [string, string[], (root: string, command: string) => unknown][] = [
  ['Claude Code', ['PreToolUse'], (root, command) => preToolUse(root, { command })],
  ['Codex', ['PreToolUse', '--agent', 'codex'], (root, command) => preToolUse(root, { command })],
  [
    'Gemini CLI',
    ['BeforeTool', '--agent', 'gemini'],
    (root, command) => ({
      session_id: 'g1',
      cwd: root,
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: { command },
    }),
  ],
  [
    'Copilot CLI',
    ['preToolUse', '--agent', 'copilot'],
    (root, command) => ({
      sessionId: 'aaaaaaaa-1111-4222-8333-444444444444',
      timestamp: 1796189016294,
      cwd: root,
      toolName: 'bash',
      toolArgs: JSON.stringify({ command, description: 'write the data' }),
    }),
  ],
  ['OpenCode', ['PreToolUse', '--agent', 'opencode'], (root, command) => preToolUse(root, { command })],
];

function preToolUse(root: string, toolInput: Record<string, unknown>) {
  return {
    session_id: 'sess-big',
    cwd: root,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: toolInput,
  };
}

// Helper task (issue 26): a PreToolUse input over MAX_INPUT_BYTES lost its command at the cut, and the
// hook took no snapshot before a command it could not read. It must fail safe: a snapshot too many costs
// little, one too few loses data. 17 MB through a pipe takes seconds on a loaded machine.
describe('a pre-command hook whose input is over 16 MB', { timeout: 120_000 }, () => {
  it.each(inputs)(
    '%s: a command cut at the limit gets a snapshot, labelled as cut',
    async (_agent, args, input) => {
      const { root, env } = project();
      const result = await runCli(['hook', ...args, '--root', root], {
        cwd: root,
        env,
        input: JSON.stringify(input(root, hugeCommand())),
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('');
      const [newest] = await snapshots(root, env);
      expect(newest).toMatchObject({ trigger: 'pre-command' });
      expect(newest?.label).toContain('over 16 MB');
      expect(newest?.label).not.toContain('ddd');
    },
  );

  it('the plugin entry (its gate, then the hook) takes the snapshot too', async () => {
    const { root, env } = project();
    const result = await runNodeScript(SHIPPED_HOOK_ENTRY, ['PreToolUse'], {
      cwd: root,
      env,
      input: JSON.stringify(preToolUse(root, { command: hugeCommand() })),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect((await snapshots(root, env))[0]).toMatchObject({ trigger: 'pre-command' });
  });

  it('through the running MCP server: the relay takes it', async () => {
    const { root, env } = project();
    await startRelayServer(root, env);
    // This hook.cjs has no bundle beside it: only the server can have taken the snapshot.
    const result = await runNodeScript(relayOnlyHook(), ['PreToolUse'], {
      cwd: root,
      env,
      input: JSON.stringify(preToolUse(root, { command: hugeCommand() })),
    });
    expect(result.code).toBe(0);
    expect((await snapshots(root, env))[0]).toMatchObject({ trigger: 'pre-command' });
  });

  it('a command of quotes, twice its size once escaped for the relay: the hook takes the snapshot itself', async () => {
    const { root, env } = project();
    await startRelayServer(root, env);
    const quotes = `printf '%s' '${'"'.repeat(17 * MB)}' > q.txt; rm -rf src`;
    const result = await runNodeScript(SHIPPED_HOOK_ENTRY, ['PreToolUse'], {
      cwd: root,
      env,
      input: JSON.stringify(preToolUse(root, { command: quotes })),
    });
    expect(result.code).toBe(0);
    expect((await snapshots(root, env))[0]).toMatchObject({ trigger: 'pre-command' });
  });

  it('a harmless command kept whole before a huge field is still judged as a command: no snapshot', async () => {
    const { root, env } = project();
    const input = preToolUse(root, { command: 'ls src', description: 'x'.repeat(17 * MB) });
    const result = await runCli(['hook', 'PreToolUse', '--root', root], {
      cwd: root,
      env,
      input: JSON.stringify(input),
    });
    expect(result.code).toBe(0);
    expect(await snapshots(root, env)).toEqual([]);
  });

  it('a destructive command kept whole before a huge field gets its own label', async () => {
    const { root, env } = project();
    const input = preToolUse(root, { command: 'rm -rf src', description: 'x'.repeat(17 * MB) });
    await runCli(['hook', 'PreToolUse', '--root', root], { cwd: root, env, input: JSON.stringify(input) });
    expect((await snapshots(root, env))[0]).toMatchObject({ trigger: 'pre-command', label: 'rm -rf src' });
  });
});

// The same fail-safe for an input whose JSON object never ended: the agent stopped writing it (EOF inside
// the object), or it did not end within the hook's wait (the pipe left open).
describe('a pre-command hook whose input ended inside its JSON object', { timeout: 60_000 }, () => {
  const unfinished = (root: string) =>
    `{"session_id":"s1","cwd":${JSON.stringify(root)},"tool_name":"Bash","tool_input":{"command":"rm -rf sr`;

  it('at EOF: a snapshot, and the hook says the input was unfinished', async () => {
    const { root, env } = project();
    const result = await runNodeScript(SHIPPED_HOOK_ENTRY, ['PreToolUse'], {
      cwd: root,
      env,
      input: unfinished(root),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('before its JSON object did');
    const [newest] = await snapshots(root, env);
    expect(newest).toMatchObject({ trigger: 'pre-command' });
    expect(newest?.label).not.toContain('rm -rf sr');
  });

  it('past the wait, with stdin left open: a snapshot all the same', async () => {
    const { root, env } = project();
    const result = await runNodeScript(SHIPPED_HOOK_ENTRY, ['PreToolUse'], {
      cwd: root,
      env: { ...env, CHECKPOINT_HOOK_TIMEOUT_MS: '2000' },
      input: unfinished(root),
      keepStdinOpen: true,
    });
    expect(result.code).toBe(0);
    expect((await snapshots(root, env))[0]).toMatchObject({ trigger: 'pre-command' });
  });

  it('a harmless Write call cut short is still no command', async () => {
    const { root, env } = project();
    const input = `{"session_id":"s1","cwd":${JSON.stringify(root)},"tool_name":"Write","tool_input":{"content":"x`;
    const result = await runNodeScript(SHIPPED_HOOK_ENTRY, ['PreToolUse'], { cwd: root, env, input });
    expect(result.code).toBe(0);
    expect(await snapshots(root, env)).toEqual([]);
  });
});
