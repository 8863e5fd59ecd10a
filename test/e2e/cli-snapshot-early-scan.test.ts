import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, gitLoggingShim, runCli } from '../helpers/cli.js';
import { DIRECT_SPAWN_HERE } from '../helpers/direct-spawn.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { storeGitDir } from '../helpers/store.js';

beforeAll(assertBuilt);

// Issue 26: a person's `claude-checkpoint snapshot` had its scan of the store start only once the command
// had loaded and taken the store's lock; the loader now starts it first, under a name of its own for the store's index
// (src/cli/early-snapshot.ts), and the command takes it over. One scan, the right content.
describe('claude-checkpoint snapshot, its scan started by the loader', () => {
  it.skipIf(!DIRECT_SPAWN_HERE)('scans the store once, and the snapshot holds what is on disk', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a1\n', 'b.txt': 'b1\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('early-scan-cli-') };
    expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
    writeFileSync(path.join(root, 'a.txt'), 'a2\n');
    writeFileSync(path.join(root, 'new.txt'), 'new\n');
    const shim = gitLoggingShim(root, 'GIT_INDEX_FILE');
    const result = await runCli(['snapshot', '--label', 'after the edit'], {
      cwd: root,
      env: { ...env, TRACE_GIT_LOG: shim.log, PATH: `${shim.dir}${path.delimiter}${process.env.PATH ?? ''}` },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('files +1 ~1 -0 since the previous one');
    const gitDir = storeGitDir(env.CHECKPOINT_STORE_DIR);
    const scans = shim.commands().filter((line) => line.includes(gitDir) && / status /.test(line));
    expect(scans).toHaveLength(1);
    // The loader's, under its own name for the store's index (the command's own scan reads the index itself),
    // which the command put in the index's place.
    expect(scans[0]).toMatch(/ GIT_INDEX_FILE=\S+\/index\.early-\d+$/);
    expect(readdirSync(gitDir).filter((name) => name.startsWith('index.early-'))).toEqual([]);
    const show = (file: string) =>
      spawnSync('git', ['--git-dir', gitDir, 'show', `HEAD:${file}`], { encoding: 'utf8' }).stdout;
    expect(show('a.txt')).toBe('a2\n');
    expect(show('new.txt')).toBe('new\n');
  });
});
