import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectStoreDir } from '../../src/store/store-location.js';
import { assertBuilt, gitLoggingShim, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// `claude-checkpoint snapshot` run in the project's folder: its loader takes the store's lock and starts
// the scan before the CLI loads (cli/early-snapshot.ts; issue 26). The built CLI, as a person runs it.
describe('claude-checkpoint snapshot with its scan started early', () => {
  it('scans once, stores what changed, and leaves the store unlocked', async () => {
    const root = realpathSync(createRepo({ committed: { 'a.txt': 'one\n' } }));
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
    writeTree(root, { 'a.txt': 'two\n', 'dir/new.txt': 'new\n' });
    const shim = gitLoggingShim(root);
    const shimEnv = {
      ...env,
      TRACE_GIT_LOG: shim.log,
      PATH: `${shim.dir}${path.delimiter}${process.env.PATH}`,
    };
    const snap = await runCli(['snapshot', '--json', '--label', 'early'], { cwd: root, env: shimEnv });
    expect(snap.code, snap.stderr).toBe(0);
    const { snapshot } = JSON.parse(snap.stdout);
    expect(snapshot).toMatchObject({ label: 'early', changes: { added: 1, modified: 1, deleted: 0 } });
    expect(shim.commands().filter((command) => / status --porcelain=v2 /.test(command))).toHaveLength(1);
    const storeDir = projectStoreDir(env.CHECKPOINT_STORE_DIR, root);
    expect(existsSync(path.join(storeDir, 'lock'))).toBe(false);
    const gitDir = path.join(storeDir, 'git');
    const commit = git(root, '--git-dir', gitDir, 'rev-parse', 'HEAD').trim();
    expect(git(root, '--git-dir', gitDir, 'show', `${commit}:dir/new.txt`)).toBe('new\n');
  });

  it('a command refused after the scan started lets go of the lock, and the next snapshot works', async () => {
    const root = realpathSync(createRepo({ committed: { 'a.txt': 'one\n' } }));
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
    writeTree(root, { 'a.txt': 'two\n' });
    const refused = await runCli(['snapshot', '--label', 'x'.repeat(5000)], { cwd: root, env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--label: must be at most');
    const storeDir = projectStoreDir(env.CHECKPOINT_STORE_DIR, root);
    expect(existsSync(path.join(storeDir, 'lock'))).toBe(false);
    expect(existsSync(path.join(storeDir, 'git', 'index.lock'))).toBe(false);
    const next = await runCli(['snapshot', '--json'], { cwd: root, env });
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout).snapshot.changes).toEqual({ added: 0, modified: 1, deleted: 0 });
  });
});
