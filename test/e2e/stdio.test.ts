import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { commitAll, createRepo, git, tempDir, workerStateHome, writeTree } from '../helpers/fixtures.js';

const SERVER = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
/** A token of the shape GitHub issues, for what must never reach stderr. */
const TOKEN = 'ghp_R8xQ2mK9vL4nP7wT1yZ3bC6dF0gH5jA2sE8u';

beforeAll(() => {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run "npm run build" first (npm test does)`);
});

async function spawnServer(options: { cwd: string; env?: Record<string, string> }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      XDG_STATE_HOME: workerStateHome(),
      ...options.env,
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(transport);
  onTestFinished(() => client.close());
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    return {
      isError: result.isError,
      text: (result.content as Array<{ text: string }>)[0]?.text ?? '',
      structured: result.structuredContent as Record<string, unknown>,
    };
  };
  return { client, call };
}

describe('dist/index.js over stdio', () => {
  it("runs the original tool's example end to end", async () => {
    const root = createRepo({
      committed: { 'src/auth/session.ts': 'v1', 'src/auth/callback.ts': 'v1' },
      branch: 'feat/github-oauth',
      dirty: {
        'src/auth/session.ts': 'v2',
        'src/auth/callback.ts': 'v2',
        'src/auth/session.spec.ts': 'spec',
      },
    });
    const { call } = await spawnServer({ cwd: root });
    const saved = await call('save_session_checkpoint', {
      goal: 'Add GitHub OAuth login with persistent sessions',
      tasks: [
        { description: 'OAuth callback route', status: 'done' },
        { description: 'Session cookie persistence', status: 'in_progress' },
        { description: 'Logout endpoint', status: 'pending' },
      ],
      modifiedFiles: [{ path: 'src/auth/session.ts', note: 'cookie options' }],
      recentCommands: [
        { command: 'GITHUB_CLIENT_SECRET=gh_live_8f2a91 npm run dev', exitCode: 0 },
        { command: 'npm test -- auth', exitCode: 1, note: '2 failing in session.spec.ts' },
      ],
    });
    expect(saved.text).toMatch(
      /\n3 task\(s\), 3 file\(s\), 2 command\(s\) on feat\/github-oauth@[0-9a-f]{9}\.\n⚠ Redacted 1 secret-looking value\(s\)\.$/,
    );

    git(root, 'add', 'src/auth/callback.ts');
    git(root, 'commit', '-q', '-m', 'callback');
    writeTree(root, { 'src/auth/session.ts': 'v3' });

    const loaded = await call('load_session_checkpoint');
    expect(loaded.structured.drift).toEqual({
      branchChanged: false,
      currentBranch: 'feat/github-oauth',
      commitsSince: 1,
      changedSince: ['src/auth/session.ts'],
      savedHeadReachable: true,
      flaggedSince: null,
    });
    expect(loaded.text).toContain(
      '- 1 new commit(s) on HEAD\n- ⚠ Changed after the checkpoint, re-read before editing: `src/auth/session.ts`',
    );
    expect(loaded.text).toContain('- src/auth/session.ts (M) — cookie options');
    expect(loaded.text).toContain('- ✓ `GITHUB_CLIENT_SECRET=«redacted» npm run dev`');
  });

  it('uses CHECKPOINT_PROJECT_ROOT over the working directory, as Claude Desktop setups do', async () => {
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    commitAll(project);
    const { call } = await spawnServer({ cwd: tempDir(), env: { CHECKPOINT_PROJECT_ROOT: project } });
    const saved = await call('save_session_checkpoint', { goal: 'g' });
    expect(saved.structured.path).toBe(`${project}/.claude-checkpoint`);
  });

  it('keeps stdout for the protocol and exits when the client goes away', async () => {
    const root = tempDir();
    const { client, call } = await spawnServer({ cwd: root });
    expect((await call('load_session_checkpoint')).structured.found).toBe(false);
    await client.close();
  });

  // The SDK's reader stopped the transport for good past 10 MB: no answer, no word, no tool ever again.
  it('answers a 10 MB argument with its field and limit, and one over 16 MB with the size limit, then goes on', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const { call } = await spawnServer({ cwd: root });
    await call('save_session_checkpoint', { goal: 'first' });
    await call('save_session_checkpoint', { goal: 'second' });
    const files = () =>
      ['.claude-checkpoint', '.claude-checkpoint.prev'].map((name) => readFileSync(path.join(root, name)));
    const before = files();

    const tenMb = await call('save_session_checkpoint', { goal: 'x'.repeat(10 * 1024 * 1024) });
    expect(tenMb.isError).toBe(true);
    expect(tenMb.text).toContain('goal: must be at most 500 characters (got 10485760)');

    const tooLarge = call('save_session_checkpoint', { goal: 'ok', summary: 'y'.repeat(17 * 1024 * 1024) });
    await expect(tooLarge).rejects.toThrow(
      /the request is \d+ bytes, over the server's limit of 16777216 bytes \(16 MB\) for one message/,
    );
    expect(files()).toEqual(before);
    expect((await call('load_session_checkpoint')).text).toContain('second');
  });

  // Bad-input trial: a line that was not JSON got no answer and no word on stderr (the SDK's reader drops
  // it), and one that was JSON but no JSON-RPC message was only passed to onerror, which ignored it.
  it('answers a line that is not JSON with -32700 and one that is not JSON-RPC with -32600, then goes on', async () => {
    const child = spawn(process.execPath, [SERVER], {
      cwd: tempDir(),
      env: { PATH: process.env.PATH ?? '', HOME: tempDir('home-'), XDG_STATE_HOME: workerStateHome() },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      child.kill();
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const replies: unknown[] = [];
    const replied = new Promise<void>((resolve) => {
      let pending = '';
      child.stdout.on('data', (chunk: Buffer) => {
        pending += chunk.toString();
        for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
          replies.push(JSON.parse(pending.slice(0, end)));
          pending = pending.slice(end + 1);
        }
        if (replies.length >= 5) resolve();
      });
    });
    child.stdin.write(
      [
        '{not json',
        '{"foo":1}',
        // A batch: an error for each of its requests, in an array (review).
        '[1,2]',
        // Never answered (review): a notification, a response of the client's that the SDK refuses (its
        // id is the server's count: an error with it would answer the client's own id 1).
        '{"jsonrpc":"2.0","method":"notifications/initialized","_trace":1}',
        '{"jsonrpc":"2.0","id":1,"result":[]}',
        '{"jsonrpc":"2.0","id":5,"method":7}',
        '',
        // A response to no request of the server's: the SDK tells only onerror, which says so on stderr,
        // without the message it quotes.
        `{"jsonrpc":"2.0","id":99,"result":{"token":"${TOKEN}"}}`,
        '{"jsonrpc":"2.0","id":1,"method":"ping"}',
        '',
      ].join('\n'),
    );
    await replied;
    const invalid = (id: number | null) => ({
      jsonrpc: '2.0',
      id,
      error: expect.objectContaining({ code: -32600, message: 'Invalid Request' }),
    });
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32700, message: 'Parse error' }) },
      invalid(null),
      [invalid(null), invalid(null)],
      invalid(5),
      { jsonrpc: '2.0', id: 1, result: {} },
    ]);
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    expect(stderr).toContain(
      'a line of 9 bytes from the client is not JSON: answered with a parse error (-32700)',
    );
    expect(stderr).toContain(
      'is JSON but not a JSON-RPC message: answered with an invalid request error (-32600)',
    );
    expect(stderr).toContain('MCP connection: Received a response for an unknown message ID');
    expect(stderr).toMatch(/is JSON but not a JSON-RPC message \(notification\): not answered/);
    // Never the line itself: it may hold anything.
    expect(stderr).not.toContain('not json');
    expect(stderr).not.toContain(TOKEN);
  });
});
