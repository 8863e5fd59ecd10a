import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { openCodePlugin } from '../../src/app/opencode-plugin.js';
import { assertBuilt, HOOK_ENTRY, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';
import { hostPids, relayOnlyHook, startRelayServer } from '../helpers/relay.js';

beforeAll(assertBuilt);

// What the agents' hooks record, as a new-user trial found it (trial 4 of issue 26, items 3 and 4, and
// the OpenCode sub-agent's prompt): the built hooks as the agents run them, in real git projects.

async function project(options: { saved?: boolean; env?: Record<string, string> } = {}) {
  const root = createRepo({ committed: { 'a.ts': 'a\n' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), ...options.env };
  if (options.saved !== false) await runCli(['save', '--goal', 'Hooks'], { cwd: root, env });
  const hook = (event: string, agent: string, payload: Record<string, unknown>, entry = SHIPPED_HOOK_ENTRY) =>
    runNodeScript(entry, [event, '--agent', agent], {
      cwd: root,
      env,
      input: JSON.stringify({ session_id: 'S1', cwd: root, hook_event_name: event, ...payload }),
    });
  const commands = async () => {
    const shown = await runCli(['load', '--format', 'full', '--json'], { cwd: root, env });
    expect(shown.code, shown.stderr).toBe(0);
    return (JSON.parse(shown.stdout).checkpoint.recentCommands as Array<Record<string, unknown>>).map(
      ({ command, exitCode }) => ({ command, exitCode }),
    );
  };
  const prompts = async () => {
    const listed = await runCli(['list', '--json'], { cwd: root, env });
    expect(listed.code, listed.stderr).toBe(0);
    return (JSON.parse(listed.stdout).snapshots as Array<{ trigger: string; label?: string }>).filter(
      (snapshot) => snapshot.trigger === 'prompt',
    );
  };
  return { root, env, hook, commands, prompts };
}

const geminiShell = (command: string, llmContent: string) => ({
  tool_name: 'run_shell_command',
  tool_input: { command },
  tool_response: { llmContent, returnDisplay: '' },
});

describe("item 3: a shell command's exit code is the agent's trailer's, nothing in the output", () => {
  it.each([
    {
      name: '`cat` of a script that says "exit 1" succeeded',
      command: 'cat check.sh',
      text: 'Output: #!/bin/sh\n[ -f x ] || exit 1\necho ok\nProcess Group PGID: 7',
      exitCode: 0,
    },
    {
      name: 'a command killed by a signal failed, as a shell says it (128 + the signal)',
      command: 'sleep 100',
      text: 'Output: (empty)\nSignal: 9\nProcess Group PGID: 8',
      exitCode: 137,
    },
  ])('Gemini CLI: $name', async ({ command, text, exitCode }) => {
    const { hook, commands } = await project();
    const result = await hook('AfterTool', 'gemini', geminiShell(command, text));
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(await commands()).toContainEqual({ command, exitCode });
  });

  it('Copilot CLI: "exited with code 0" in the output does not hide the failure its trailer reports', async () => {
    const { hook, commands } = await project();
    const result = await hook('PostToolUse', 'copilot', {
      tool_name: 'bash',
      tool_input: { command: 'npm run check' },
      tool_result: {
        result_type: 'success',
        text_result_for_llm:
          'tsc exited with code 0\n3 tests failed\n<shellId: 0 completed with exit code 1>',
      },
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(await commands()).toContainEqual({ command: 'npm run check', exitCode: 1 });
  });

  it("Gemini CLI: the turn's end reads the same call from the chat file, and adds no second, contradicting entry", async () => {
    const { root, hook, commands } = await project();
    const output = 'Output: tsc exited with code 0\n2 errors\nExit Code: 2\nProcess Group PGID: 9';
    const chat = path.join(tempDir('gemini-chat-'), 'session-S1.jsonl');
    const call = {
      id: 'run_shell_command__call_1',
      name: 'run_shell_command',
      args: { command: 'npm run build' },
      result: [
        {
          functionResponse: {
            id: 'run_shell_command__call_1',
            name: 'run_shell_command',
            response: { output: `<untrusted_context>\n${output}\n</untrusted_context>` },
          },
        },
      ],
      status: 'success',
    };
    writeFileSync(
      chat,
      [
        { sessionId: 'S1', projectHash: 'h', startTime: '2026-12-07T08:00:00.000Z', kind: 'main' },
        { id: 'u1', timestamp: '2026-12-07T08:00:01.000Z', type: 'user', content: [{ text: 'Build it' }] },
        { id: 'g1', timestamp: '2026-12-07T08:00:02.000Z', type: 'gemini', content: '', toolCalls: [call] },
        { id: 'g2', timestamp: '2026-12-07T08:00:03.000Z', type: 'gemini', content: 'The build fails.' },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n')
        .concat('\n'),
    );
    const after = await hook('AfterTool', 'gemini', {
      ...geminiShell('npm run build', output),
      transcript_path: chat,
    });
    expect(after).toMatchObject({ code: 0, stderr: '' });
    const end = await hook('AfterAgent', 'gemini', {
      transcript_path: chat,
      prompt: 'Build it',
      prompt_response: 'The build fails.',
    });
    expect(end).toMatchObject({ code: 0, stderr: '' });
    expect((await commands()).filter((entry) => entry.command === 'npm run build')).toEqual([
      { command: 'npm run build', exitCode: 2 },
    ]);
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).not.toContain('"exitCode": 0');
  });
});

const codexCommand = (id: string, command = 'npm run lint') => ({
  turn_id: 'T9',
  tool_name: 'Bash',
  tool_use_id: id,
  tool_input: { command },
  tool_response: 'clean',
});

describe("item 3's sibling: the turn's end reads the call a hook recorded, by its id", () => {
  it('Codex: a command recorded before its exit code was in the rollout gets it at Stop, as one entry', async () => {
    const { root, hook, commands } = await project();
    const rollout = path.join(tempDir('codex-sessions-'), 'rollout.jsonl');
    // The hook runs before Codex has written the command's end: no exit code is found.
    writeFileSync(rollout, '');
    const command = "echo 'FAIL auth.test.ts' && exit 3";
    const post = await hook('PostToolUse', 'codex', {
      transcript_path: rollout,
      tool_name: 'Bash',
      tool_use_id: 'call_fake_3',
      tool_input: { command },
      tool_response: 'FAIL auth.test.ts',
    });
    expect(post).toMatchObject({ code: 0, stderr: '' });
    expect(await commands()).toContainEqual({ command, exitCode: undefined });
    const recorded = readFileSync(
      new URL('../fixtures/transcripts/codex-rollout.jsonl', import.meta.url),
      'utf8',
    );
    writeFileSync(rollout, recorded.replaceAll('/tmp/checkpoint-repo-nhtbwG', root));
    await hook('Stop', 'codex', { transcript_path: rollout, last_assistant_message: 'Done.' });
    expect((await commands()).filter((entry) => entry.command === command)).toEqual([
      { command, exitCode: 3 },
    ]);
  });
});

describe('item 4: the same hook delivered twice (both scopes set up, an agent that retries) records once', () => {
  it.each([
    ['alone, into an existing checkpoint', { saved: true }],
    ["alone, the project's first command", { saved: false }],
  ])('a shell call, two hook processes at once, %s', async (_name, options) => {
    const { hook, commands } = await project(options);
    const payload = codexCommand('call_dup1');
    const results = await Promise.all([
      hook('PostToolUse', 'codex', payload),
      hook('PostToolUse', 'codex', payload),
    ]);
    for (const result of results) expect(result).toMatchObject({ code: 0, stderr: '' });
    expect((await commands()).filter((entry) => entry.command === 'npm run lint')).toHaveLength(1);
    // A second call of the same command is a second command.
    await hook('PostToolUse', 'codex', codexCommand('call_dup2'));
    expect((await commands()).filter((entry) => entry.command === 'npm run lint')).toHaveLength(2);
  });

  it('a shell call, two hook processes at once, through the running MCP server', async () => {
    const { root, env, hook, commands } = await project();
    await startRelayServer(root, env);
    const relayed = relayOnlyHook();
    const payload = codexCommand('call_relay');
    const results = await Promise.all([
      hook('PostToolUse', 'codex', payload, relayed),
      hook('PostToolUse', 'codex', payload, relayed),
    ]);
    for (const result of results) expect(result).toMatchObject({ code: 0, stderr: '' });
    expect((await commands()).filter((entry) => entry.command === 'npm run lint')).toHaveLength(1);
  });

  it('a shell call, two hook processes at once, through a hook host', async () => {
    const { root, hook, commands } = await project({
      env: { CHECKPOINT_HOOK_HOST: '1', CHECKPOINT_HOOK_HOST_IDLE_SECONDS: '2' },
    });
    onTestFinished(() => {
      for (const pid of hostPids(root)) process.kill(pid, 'SIGKILL');
    });
    const payload = codexCommand('call_host');
    for (let round = 0; round < 2; round++) {
      const results = await Promise.all([
        hook('PostToolUse', 'codex', payload),
        hook('PostToolUse', 'codex', payload),
      ]);
      for (const result of results) expect(result).toMatchObject({ code: 0, stderr: '' });
    }
    expect((await commands()).filter((entry) => entry.command === 'npm run lint')).toHaveLength(1);
  });

  it('a prompt with the same turn id, two hook processes at once: one prompt, so latest~1 is the one before', async () => {
    const { hook, prompts } = await project();
    await hook('UserPromptSubmit', 'codex', { turn_id: 'T1', prompt: 'first' });
    const payload = { turn_id: 'T2', prompt: 'second' };
    const results = await Promise.all([
      hook('UserPromptSubmit', 'codex', payload),
      hook('UserPromptSubmit', 'codex', payload),
    ]);
    for (const result of results) expect(result).toMatchObject({ code: 0, stderr: '' });
    expect((await prompts()).map((snapshot) => snapshot.label)).toEqual(['second', 'first']);
    // A prompt of another turn with the same words is another prompt; so is a message sent into the
    // running turn, with its id.
    await hook('UserPromptSubmit', 'codex', { turn_id: 'T3', prompt: 'second' });
    await hook('UserPromptSubmit', 'codex', { turn_id: 'T3', prompt: 'and the docs too' });
    expect(await prompts()).toHaveLength(4);
  });
});

/**
 * The plugin `setup opencode` writes, loaded as OpenCode loads it, with OpenCode's plugin client reduced
 * to what the plugin asks of it (a session and its parent): OpenCode itself is not installed here.
 */
async function loadOpenCodePlugin(
  sessions: Record<string, { parentID?: string }>,
  directory: string,
  env: Record<string, string>,
  messages: unknown[] = [],
) {
  const file = path.join(tempDir('opencode-plugin-'), 'claude-checkpoint.mjs');
  writeFileSync(file, openCodePlugin(HOOK_ENTRY));
  const saved = { ...process.env };
  Object.assign(process.env, env, { CHECKPOINT_HOOK_HOST: '0' });
  onTestFinished(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });
  const { ClaudeCheckpoint } = await import(file);
  const client = {
    session: {
      get: async ({ path: { id } }: { path: { id: string } }) => ({ data: { id, ...sessions[id] } }),
      messages: async () => ({ data: messages }),
      todo: async () => ({ data: [] }),
    },
  };
  return ClaudeCheckpoint({ directory, client });
}

describe("OpenCode: chat.message of a sub-agent's session (the task tool's)", () => {
  it("is not the person's prompt: no prompt snapshot, and rewind's latest prompt stays theirs", async () => {
    const { root, env, prompts } = await project();
    const plugin = await loadOpenCodePlugin({ main: {}, child: { parentID: 'main' } }, root, env);
    const message = (sessionID: string, id: string, text: string) =>
      plugin['chat.message'](
        { sessionID, messageID: id },
        { message: { id }, parts: [{ type: 'text', text }] },
      );
    await message('main', 'msg_1', 'Fix the tests');
    await message('child', 'msg_2', 'Find where the tests are set up');
    expect((await prompts()).map((snapshot) => snapshot.label)).toEqual(['Fix the tests']);
    // The same message delivered again is the same prompt.
    await message('main', 'msg_1', 'Fix the tests');
    expect(await prompts()).toHaveLength(1);
  });
});

describe("item 5: the files Codex and OpenCode wrote are the turn's files touched, not someone else's changes", () => {
  /** The recorded Codex rollout (its apply_patch adds src/health.ts), rewritten to `root`. */
  const codexRolloutIn = (root: string) => {
    const rollout = path.join(tempDir('codex-sessions-'), 'rollout.jsonl');
    const recorded = readFileSync(
      new URL('../fixtures/transcripts/codex-rollout.jsonl', import.meta.url),
      'utf8',
    );
    writeFileSync(rollout, recorded.replaceAll('/tmp/checkpoint-repo-nhtbwG', root));
    return rollout;
  };
  const briefOf = async (root: string, env: Record<string, string>) => {
    const brief = await runCli(['brief'], { cwd: root, env });
    expect(brief.code, brief.stderr).toBe(0);
    return brief.stdout;
  };

  it('Codex: an apply_patch of the turn is listed at its Stop; a later change by someone else stays flagged', async () => {
    const { root, env, hook } = await project();
    const rollout = codexRolloutIn(root);
    // What the rollout's apply_patch adds.
    writeTree(root, { 'src/health.ts': 'export const health = () => 200;\n' });
    const stop = await hook('Stop', 'codex', { transcript_path: rollout, last_assistant_message: 'Done.' });
    expect(stop).toMatchObject({ code: 0, stderr: '' });
    const brief = await briefOf(root, env);
    expect(brief).toMatch(/## Files touched \(1\)\n- src\/health\.ts/);
    expect(brief).not.toContain('Changed after the checkpoint');
    // Someone edits it after the turn: the next turn's end did not write it, and says so.
    writeTree(root, { 'src/health.ts': 'export const health = () => 201;\n' });
    await hook('Stop', 'codex', { transcript_path: rollout, last_assistant_message: 'Done.' });
    expect(await briefOf(root, env)).toMatch(
      /Changed after the checkpoint, re-read before editing: `src\/health\.ts`/,
    );
  });

  it('Codex: a file the agent edits again in a later turn is its own, not flagged (review of issue 26)', async () => {
    const { root, env, hook } = await project();
    const rollout = codexRolloutIn(root);
    writeTree(root, { 'src/health.ts': 'export const health = () => 200;\n' });
    await hook('Stop', 'codex', { transcript_path: rollout, last_assistant_message: 'Done.' });
    // A second turn patches the same file.
    const turn = { turn_id: 'turn-2' };
    const line = (type: string, payload: Record<string, unknown>) =>
      `${JSON.stringify({ timestamp: '2026-12-02T05:30:00.000Z', type, payload })}\n`;
    appendFileSync(
      rollout,
      line('response_item', {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'Return 204 instead' }],
        internal_chat_message_metadata_passthrough: turn,
      }) +
        line('response_item', {
          type: 'custom_tool_call',
          status: 'completed',
          call_id: 'call_2',
          name: 'apply_patch',
          input: '*** Begin Patch\n*** Update File: src/health.ts\n@@\n-200\n+204\n*** End Patch\n',
        }) +
        line('event_msg', {
          type: 'item_completed',
          ...turn,
          item: {
            type: 'FileChange',
            id: 'call_2',
            changes: { [path.join(root, 'src/health.ts')]: { type: 'update', unified_diff: '-200\n+204\n' } },
            status: 'completed',
          },
        }) +
        line('response_item', {
          type: 'custom_tool_call_output',
          call_id: 'call_2',
          output: 'Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM src/health.ts\n',
        }) +
        line('response_item', {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Now returns 204.' }],
        }),
    );
    writeTree(root, { 'src/health.ts': 'export const health = () => 204;\n' });
    await hook('Stop', 'codex', { transcript_path: rollout, last_assistant_message: 'Now returns 204.' });
    const brief = await briefOf(root, env);
    expect(brief).toContain('- src/health.ts');
    expect(brief).not.toContain('Changed after the checkpoint');
  });

  it("OpenCode: a file edited again in a later turn is the agent's; then changed by someone else, flagged", async () => {
    const { root, env } = await project();
    const tool = (callID: string, name: string, input: Record<string, unknown>) => ({
      type: 'tool',
      tool: name,
      callID,
      state: { status: 'completed', input },
    });
    const turn = (prompt: string, callID: string, name: string, reply: string) => [
      { info: { role: 'user' }, parts: [{ type: 'text', text: prompt }] },
      {
        info: { role: 'assistant' },
        parts: [
          tool(callID, name, { filePath: path.join(root, 'src/cache.ts') }),
          { type: 'text', text: reply },
        ],
      },
    ];
    const messages: unknown[] = turn('Add a cache', 'c1', 'write', 'The cache is in.');
    const plugin = await loadOpenCodePlugin({ main: {} }, root, env, messages);
    const idle = () => plugin.event({ event: { type: 'session.idle', properties: { sessionID: 'main' } } });
    writeTree(root, { 'src/cache.ts': 'export const cache = new Map();\n' });
    await idle();
    messages.push(...turn('Make it weak', 'c2', 'edit', 'The cache is a WeakMap now.'));
    writeTree(root, { 'src/cache.ts': 'export const cache = new WeakMap();\n' });
    await idle();
    expect(await briefOf(root, env)).not.toContain('Changed after the checkpoint');
    // Someone else changes it: the next turn's end did not write it.
    messages.push({ info: { role: 'user' }, parts: [{ type: 'text', text: 'Thanks' }] });
    writeTree(root, { 'src/cache.ts': 'export const cache = new Set();\n' });
    await idle();
    expect(await briefOf(root, env)).toMatch(
      /Changed after the checkpoint, re-read before editing: `src\/cache\.ts`/,
    );
  });

  it('OpenCode: the write and the edit of a turn are listed at session.idle; a shell call is read once', async () => {
    const { root, env, commands } = await project();
    const tool = (callID: string, name: string, input: Record<string, unknown>, exit?: number) => ({
      type: 'tool',
      tool: name,
      callID,
      state: { status: 'completed', input, ...(exit === undefined ? {} : { metadata: { exit } }) },
    });
    const messages = [
      { info: { role: 'user' }, parts: [{ type: 'text', text: 'Add a cache' }] },
      {
        info: { role: 'assistant' },
        parts: [
          tool('c1', 'write', { filePath: path.join(root, 'src/cache.ts') }),
          tool('c2', 'edit', { filePath: path.join(root, 'a.ts') }),
          tool('c3', 'bash', { command: 'npm test' }, 0),
          { type: 'text', text: 'The cache is in, and the tests pass.' },
        ],
      },
    ];
    const plugin = await loadOpenCodePlugin({ main: {} }, root, env, messages);
    writeTree(root, { 'src/cache.ts': 'export const cache = new Map();\n', 'a.ts': 'a edited\n' });
    await plugin.event({ event: { type: 'session.idle', properties: { sessionID: 'main' } } });
    const brief = await briefOf(root, env);
    expect(brief).toMatch(/## Files touched \(2\)/);
    expect(brief).toContain('- src/cache.ts');
    expect(brief).not.toContain('Changed after the checkpoint');
    expect(await commands()).toContainEqual({ command: 'npm test', exitCode: 0 });
    // A save that replaces the list: the call read at the last turn's end is not put back.
    await runCli(['save', '--goal', 'Hooks again'], { cwd: root, env });
    await plugin.event({ event: { type: 'session.idle', properties: { sessionID: 'main' } } });
    expect(await commands()).not.toContainEqual({ command: 'npm test', exitCode: 0 });
  });
});
