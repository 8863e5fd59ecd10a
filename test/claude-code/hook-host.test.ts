import { existsSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fnv1a64, isListening } from '../../src/store/relay-socket.js';
import { pluginSessionSetup, runClaude } from '../helpers/claude-code.js';
import type { FakeModel, Plan } from '../helpers/fake-model.js';
import { hostPids } from '../helpers/relay.js';

/**
 * A real Claude Code session with the plugin's hooks but not its MCP server (`--strict-mcp-config`), as
 * for someone who turned the server off: the hooks start a hook host and hand it their events.
 */

const plan: Plan = (prompt) =>
  prompt === 'Run the tests'
    ? [
        { tool: 'Bash', input: { command: 'echo all green', description: 'Run the tests' } },
        { text: 'Green.' },
      ]
    : [{ text: 'Noted.' }];

let model: FakeModel;
let home: string;
let project: string;
let store: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ({ model, home, project, env } = await pluginSessionSetup(plan, { 'src/app.ts': 'v1\n' }));
  store = env.CHECKPOINT_STORE_DIR ?? '';
  env = { ...env, CHECKPOINT_HOOK_HOST: '1', CHECKPOINT_HOOK_HOST_IDLE_SECONDS: '20' };
});

afterAll(async () => {
  await model?.close();
  for (const pid of hostPids(project)) process.kill(pid, 'SIGTERM');
});

describe('a real Claude Code session without our MCP server', () => {
  it('the first hooks start a hook host, the Bash hook goes through it, and Claude Code waits for neither', async () => {
    const log = path.join(home, 'session.log');
    const run = await runClaude(
      ['-p', 'Run the tests', '--allowedTools', 'Bash', '--strict-mcp-config', '--debug-file', log],
      { cwd: project, env },
    );
    expect(run.code, run.stderr).toBe(0);
    const debug = readFileSync(log, 'utf8');
    // No MCP server of ours in this session: Claude Code started none.
    expect(debug).not.toMatch(/MCP server "plugin:session-checkpoint:claude-checkpoint"/);
    // The prompt hook, which started the host, was done long before the host ends (20 idle seconds).
    const prompt =
      /Hooks: UserPromptSubmit \[node \S*hook\.cjs UserPromptSubmit\].* finished with status 0 \((\d+)ms\)/.exec(
        debug,
      );
    expect(prompt, 'the prompt hook in the debug log').not.toBeNull();
    expect(Number(prompt?.[1])).toBeLessThan(10_000);

    const checkpoint = path.join(project, '.claude-checkpoint');
    const socket = path.join(store, 'run', `${fnv1a64(project)}.sock`);
    for (let waited = 0; waited < 15_000; waited += 100) {
      if (existsSync(checkpoint) && JSON.parse(readFileSync(checkpoint, 'utf8')).recentCommands.length > 0)
        break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(JSON.parse(readFileSync(checkpoint, 'utf8')).recentCommands).toEqual([
      expect.objectContaining({ command: 'echo all green' }),
    ]);
    // The host is up after the session and listening; the session start's, which waits 3 s for a
    // server before it listens, then finds it and ends.
    for (let waited = 0; hostPids(project).length !== 1 && waited < 10_000; waited += 100)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hostPids(project)).toHaveLength(1);
    expect(await isListening(socket, net)).toBe(true);
    // The prompt hook ran itself (it left its event's code cache); the Bash hook, handed to the host,
    // loaded no bundle and left none.
    const caches = readdirSync(path.join(store, 'cache'));
    expect(caches.some((name) => name.startsWith('hook-UserPromptSubmit-'))).toBe(true);
    expect(caches.some((name) => name.startsWith('hook-PostToolUse'))).toBe(false);
  });
});
