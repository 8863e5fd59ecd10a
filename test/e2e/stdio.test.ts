import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { commitAll, createRepo, git, tempDir, workerStateHome, writeTree } from '../helpers/fixtures.js';

const SERVER = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

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
});
