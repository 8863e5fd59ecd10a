import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

function projectGitDir(storeBase: string): string {
  const [project] = readdirSync(path.join(storeBase, 'projects'));
  return path.join(storeBase, 'projects', project ?? '', 'git');
}

describe('a store whose set-up was interrupted (issue 26)', () => {
  it('the next snapshot finishes the set-up instead of failing for good, and doctor says so meanwhile', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('setup-store-'), NO_COLOR: '1' };
    const run = (...args: string[]) => runCli(args, { cwd: root, env });
    const first = await run('snapshot', '--json');
    expect(first.code, first.stderr).toBe(0);
    const gitDir = projectGitDir(env.CHECKPOINT_STORE_DIR);
    // As a kill after the settings were written and before the ready marker would leave it.
    rmSync(path.join(gitDir, 'claude-checkpoint-ready'));

    const doctor = await run('doctor', '--json');
    const check = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === 'snapshot store');
    expect(check.level).toBe('warn');
    expect(check.detail).toMatch(/set-up never finished/);
    expect(check.fix).toMatch(/next snapshot/);

    for (const content of ['one\n', 'two\n']) {
      writeTree(root, { 'd.txt': content });
      const again = await run('snapshot', '--json');
      expect(again.code, again.stderr).toBe(0);
    }
    const config = readFileSync(path.join(gitDir, 'config'), 'utf8');
    expect(config.match(/^\[core\]/gim)).toHaveLength(2); // git's own, then ours: never a third
    expect(readFileSync(path.join(gitDir, 'claude-checkpoint-ready'), 'utf8')).toBe(`${root}\n`);
    expect(statSync(path.join(gitDir, 'index')).mode & 0o777).toBe(0o600);
    // The first snapshot is still there, and master still follows the snapshots.
    const list = JSON.parse((await run('list', '--json')).stdout);
    expect(list.snapshots).toHaveLength(3);
    const after = await run('doctor', '--json');
    const ok = JSON.parse(after.stdout).checks.find((c: { name: string }) => c.name === 'snapshot store');
    expect(ok.level).toBe('ok');
  });
});
