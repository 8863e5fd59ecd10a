import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createRepo, git, tempDir, workerStateHome, writeTree } from '../helpers/fixtures.js';
import { bareRemote, machine } from '../helpers/handoff.js';

const SERVER = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

beforeAll(() => {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run "npm run build" first (npm test does)`);
});

interface Called {
  tool: string;
  isError: boolean;
  structured: Record<string, unknown> | undefined;
}

/**
 * The built server over stdio, with a client that lists the tools first, as Claude Code and every real
 * client do: only then does the SDK check each structuredContent against the tool's outputSchema (a
 * mismatch makes callTool throw, after the tool has done its work).
 */
async function spawnServer(cwd: string, env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      XDG_STATE_HOME: workerStateHome(),
      ...env,
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'output-schemas', version: '1.0.0' });
  await client.connect(transport);
  onTestFinished(() => client.close());
  const { tools } = await client.listTools();
  const calls: Called[] = [];
  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<Called> => {
    const result = await client.callTool({ name: tool, arguments: args }).catch((error: Error) => {
      throw new Error(`${tool} ${JSON.stringify(args)}: ${error.message}`);
    });
    const called = {
      tool,
      isError: result.isError === true,
      structured: result.structuredContent as Record<string, unknown> | undefined,
    };
    calls.push(called);
    return called;
  };
  return { tools: tools.map((tool) => tool.name), call, calls };
}

describe('every tool of the server, through a real client over stdio, keeps to its outputSchema', () => {
  it('checkpoint and rewind tools: success, nothing to do, dry run, partial results and errors', async () => {
    const root = createRepo({
      committed: { 'a.ts': 'one\n', 'src/b.ts': 'b\n', '.gitignore': 'big.bin\n*.log\n' },
      branch: 'feat/x',
    });
    const server = await spawnServer(root, { CHECKPOINT_STORE_DIR: tempDir('schema-store-') });
    const { call } = server;

    // Nothing saved, nothing snapshotted yet.
    expect((await call('load_session_checkpoint', { projectRoot: root })).structured).toMatchObject({
      found: false,
    });
    expect((await call('list_snapshots', { projectRoot: root })).structured).toMatchObject({ total: 0 });

    // A save with every field, one with a secret (a warning), a merge, and bad input.
    writeFileSync(path.join(root, 'a.ts'), 'two\n');
    await call('save_session_checkpoint', {
      goal: 'Ship it',
      summary: 'half done',
      tasks: [
        { description: 'one', status: 'done' },
        { description: 'two', status: 'in_progress' },
      ],
      nextSteps: ['test'],
      decisions: ['keep it small'],
      modifiedFiles: [{ path: 'a.ts', note: 'edited' }],
      recentCommands: [{ command: 'npm test', outcome: 'failed', note: 'one red' }],
      projectRoot: root,
    });
    await call('save_session_checkpoint', {
      goal: `deploy with token ghp_${'k3Jm9Qx2Lp7Wv4Rt8Yz1Bn6Cd5Fg0Hs2Aq9E'}`,
      mode: 'merge',
      nextSteps: ['push'],
      projectRoot: root,
    });
    expect(
      (await call('save_session_checkpoint', { goal: 'x'.repeat(501), projectRoot: root })).isError,
    ).toBe(true);

    // A brief with drift (a file changed after the save, one deleted), and the full format.
    writeFileSync(path.join(root, 'a.ts'), 'three\n');
    writeFileSync(path.join(root, 'new.ts'), 'new\n');
    await call('load_session_checkpoint', { projectRoot: root });
    await call('load_session_checkpoint', { projectRoot: root, format: 'full' });

    // Snapshots: created with a label, skipped files (over the size cap, a nested repository), reused.
    writeFileSync(path.join(root, 'huge.txt'), Buffer.alloc(60 * 1024 * 1024, 'x'));
    const nested = path.join(root, 'vendor', 'lib');
    mkdirSync(nested, { recursive: true });
    git(nested, 'init', '-q');
    const first = await call('snapshot_files', { projectRoot: root, label: 'before' });
    expect(first.structured).toMatchObject({ created: true });
    expect((await call('snapshot_files', { projectRoot: root })).structured).toMatchObject({
      created: false,
    });
    const firstId = (first.structured as { snapshot: { id: string } }).snapshot.id;

    writeFileSync(path.join(root, 'a.ts'), 'four\n');
    writeFileSync(path.join(root, 'debug.log'), 'ignored\n');
    const second = await call('snapshot_files', { projectRoot: root, label: 'after' });
    const secondId = (second.structured as { snapshot: { id: string } }).snapshot.id;
    await call('list_snapshots', { projectRoot: root, limit: 1 });
    await call('list_snapshots', { projectRoot: root });

    // Diffs: the file list, one path's patch, two snapshots, nothing different, an unknown id.
    await call('diff_snapshot', { projectRoot: root, snapshotId: firstId });
    await call('diff_snapshot', { projectRoot: root, snapshotId: firstId, path: 'a.ts' });
    await call('diff_snapshot', { projectRoot: root, snapshotId: firstId, against: secondId });
    await call('diff_snapshot', { projectRoot: root, snapshotId: 'latest' });
    expect((await call('diff_snapshot', { projectRoot: root, snapshotId: 'ffffffff' })).isError).toBe(true);

    // Restores: a plan, a plan with nothing to do, one path, applied after HEAD moved, an unknown id.
    await call('restore_snapshot', { projectRoot: root, snapshotId: firstId });
    await call('restore_snapshot', { projectRoot: root, snapshotId: 'latest' });
    await call('restore_snapshot', { projectRoot: root, snapshotId: firstId, paths: ['a.ts'] });
    writeFileSync(path.join(root, 'src', 'b.ts'), 'committed later\n');
    git(root, 'commit', '-q', '-am', 'later');
    const applied = await call('restore_snapshot', { projectRoot: root, snapshotId: firstId, dryRun: false });
    expect(applied.structured).toMatchObject({ dryRun: false });
    expect((applied.structured as { headMoved: unknown }).headMoved).not.toBeNull();
    expect((await call('restore_snapshot', { projectRoot: root, snapshotId: 'nope' })).isError).toBe(true);

    // A name that is not valid UTF-8 fills quotedNames.
    if (process.platform === 'linux') {
      writeFileSync(Buffer.from(path.join(root, 'caf\xe9.txt'), 'latin1'), 'x');
      await call('snapshot_files', { projectRoot: root });
      await call('diff_snapshot', { projectRoot: root, snapshotId: firstId });
    }

    const answered = new Set(server.calls.filter((c) => !c.isError).map((c) => c.tool));
    expect([...answered].sort()).toEqual(server.tools.filter((tool) => !tool.endsWith('_handoff')).sort());
  }, 120_000);

  it('handoff tools: pushed, refused for a secret, refused as changed, a plan, applied, base elsewhere, missing', async () => {
    const { bare } = bareRemote();
    const a = machine(bare, 'Alice');
    const b = machine(bare, 'Bob');
    const serverA = await spawnServer(a.root, a.env);
    const serverB = await spawnServer(b.root, b.env);

    // Nothing pushed yet: an error, not a result.
    expect((await serverB.call('pull_handoff', { projectRoot: b.root })).isError).toBe(true);

    writeTree(a.root, { 'src/app.ts': 'export const app = 2;\n', 'src/new.ts': 'new\n' });
    git(a.root, 'rm', '-q', 'src/old.ts');
    await serverA.call('save_session_checkpoint', { goal: 'Finish', projectRoot: a.root });
    const pushed = await serverA.call('push_handoff', { projectRoot: a.root });
    expect(pushed.structured).toMatchObject({ pushed: true, author: 'Alice <alice@example.com>' });
    writeTree(a.root, { 'leak.sh': `export GITHUB_TOKEN=ghp_${'k3Jm9Qx2Lp7Wv4Rt8Yz1Bn6Cd5Fg0Hs2Aq9E'}\n` });
    expect(
      (await serverA.call('push_handoff', { projectRoot: a.root, name: 'leak' })).structured,
    ).toMatchObject({
      pushed: false,
    });
    rmSync(path.join(a.root, 'leak.sh'));
    expect((await serverA.call('push_handoff', { projectRoot: a.root, remote: 'nowhere' })).isError).toBe(
      true,
    );

    expect((await serverB.call('pull_handoff', { projectRoot: b.root })).structured).toMatchObject({
      applied: false,
      baseMatches: true,
    });
    expect(
      (await serverB.call('pull_handoff', { projectRoot: b.root, dryRun: false })).structured,
    ).toMatchObject({ applied: true });
    // B pushes over it; A, who last saw its own push, is refused.
    await serverB.call('push_handoff', { projectRoot: b.root });
    expect((await serverA.call('push_handoff', { projectRoot: a.root })).isError).toBe(true);

    // A's HEAD is not the handoff's base: the result names the commit instead of applying.
    git(a.root, 'commit', '-q', '--allow-empty', '-m', 'elsewhere');
    expect(
      (await serverA.call('pull_handoff', { projectRoot: a.root, dryRun: false })).structured,
    ).toMatchObject({
      baseMatches: false,
      applied: false,
    });

    const answered = new Set(
      [...serverA.calls, ...serverB.calls].filter((c) => !c.isError).map((c) => c.tool),
    );
    for (const tool of serverA.tools.filter((name) => name.endsWith('_handoff')))
      expect(answered).toContain(tool);
  }, 120_000);
});
