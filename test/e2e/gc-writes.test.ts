import { statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// A gc on a full disk stopped before it deleted anything, on a write of the store's state that changed
// nothing (adversarial trial, 2026-12-06). A gc that expires no snapshot leaves the state file as it was,
// so it gets as far as pruning what it can.
describe('gc and the store’s state file', () => {
  it('a gc that expires nothing does not write the state file', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') };
    for (const content of ['b\n', 'c\n']) {
      writeTree(root, { 'a.txt': content });
      expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
    }
    const storeDir: string = JSON.parse(
      (await runCli(['list', '--json'], { cwd: root, env })).stdout,
    ).storeDir;
    const state = path.join(storeDir, 'state.json');
    const before = statSync(state);
    const gc = await runCli(['gc'], { cwd: root, env });
    expect(gc.code, gc.stderr).toBe(0);
    const after = statSync(state);
    // Written atomically, a state file is a new file: the same inode and time mean it was not written.
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    expect(JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout).total).toBe(2);
  });
});
