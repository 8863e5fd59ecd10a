import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const EMPTY_ROOT =
  "claude-checkpoint: --root must name the project's folder: got '' (leave --root out for the current folder)\n";

// Adversarial trial (issue 26): `snapshot --root ''` was taken as the current folder, while the MCP tools
// refuse projectRoot "".
describe("--root '' is refused, naming --root", () => {
  it.each([
    [['snapshot']],
    [['status']],
    [['list']],
    [['diff', 'latest']],
    [['save', '--goal', 'x']],
    [['restore', 'latest', '--yes']],
    [['doctor']],
    [['gc']],
    [['handoff', 'list']],
  ])('%j', async (args) => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const store = tempDir('checkpoint-store-');
    const result = await runCli([...args, '--root', ''], { cwd: root, env: { CHECKPOINT_STORE_DIR: store } });
    expect(result.stderr).toBe(EMPTY_ROOT);
    expect(result.code).toBe(2);
    expect(existsSync(path.join(root, '.claude-checkpoint'))).toBe(false);
  });

  it('a hook says so and does nothing (and exits 0, as hooks do)', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const store = tempDir('checkpoint-store-');
    const input = JSON.stringify({
      session_id: 'aaaaaaaa-1111-4222-8333-444444444444',
      cwd: root,
      tool_name: 'Bash',
      tool_input: { command: 'npm test' },
      tool_response: { stdout: '', stderr: '', exit_code: 0 },
    });
    const result = await runCli(['hook', 'PostToolUse', '--root', ''], {
      cwd: root,
      env: { CHECKPOINT_STORE_DIR: store },
      input,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("--root must name the project's folder: got ''");
    expect(existsSync(path.join(root, '.claude-checkpoint'))).toBe(false);
  });
});
