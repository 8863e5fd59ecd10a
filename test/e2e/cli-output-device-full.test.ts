import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI, childEnv, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const SERVER = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

/** Runs a built entry point (the CLI unless named) with its stdout on /dev/full, where every write fails with ENOSPC. */
function runIntoFullDevice(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  input?: string,
  script = CLI,
) {
  const fd = openSync('/dev/full', 'w');
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd,
      env: childEnv(env),
      stdio: [input === undefined ? 'ignore' : 'pipe', fd, 'pipe'],
    });
    child.stdin?.end(input);
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  }).finally(() => closeSync(fd));
}

// Adversarial trial (issue 26): `claude-checkpoint list >/dev/full` dumped the bundle's source and a stack trace.
describe.skipIf(!existsSync('/dev/full'))('output to a full device (ENOSPC)', () => {
  it.each([
    [['list']],
    [['--help']],
    [['--version']],
    [['status']],
    [['diff', 'latest', '--json']],
    [['snapshot', '--json']],
    [['list', '--help']],
  ])('%j: one line naming the error, exit 1', async (args) => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    const result = await runIntoFullDevice(args, root, env);
    expect(result.stderr).toBe(
      'claude-checkpoint: could not write to stdout: no space left on device (ENOSPC)\n',
    );
    expect(result.code).toBe(1);
  });

  it('the work is still done: a snapshot whose report could not be written is taken', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const result = await runIntoFullDevice(['snapshot', '--label', 'full'], root, env);
    expect(result.code).toBe(1);
    const listed = JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout);
    expect(listed.snapshots.map((snapshot: { label?: string }) => snapshot.label)).toContain('full');
  });

  it('the MCP server: one line on stderr, exit 1', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    };
    const result = await runIntoFullDevice([], root, {}, `${JSON.stringify(initialize)}\n`, SERVER);
    expect(result.stderr).toBe(
      'claude-checkpoint: could not write to stdout: no space left on device (ENOSPC)\n',
    );
    expect(result.code).toBe(1);
  });
});
