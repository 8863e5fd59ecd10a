import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, gitLoggingShim, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { DIRECT_SPAWN_HERE } from '../helpers/direct-spawn.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { storeGitDir } from '../helpers/store.js';

beforeAll(assertBuilt);

// Hosts off, the prompt and pre-command hooks take their snapshot in their own process: the front
// (hook-front.ts) now starts the store's scan before the hooks' bundle loads, as `claude-checkpoint
// snapshot`'s loader does, and the snapshot takes it over. One scan, the right content.
describe('a hook that takes its snapshot itself, its scan started by the front', () => {
  const events = [
    ['UserPromptSubmit', (root: string) => ({ cwd: root, prompt: 'go on' })],
    [
      'PreToolUse',
      (root: string) => ({ cwd: root, tool_name: 'Bash', tool_input: { command: 'git reset --hard' } }),
    ],
  ] as const;
  it.skipIf(!DIRECT_SPAWN_HERE).each(events)(
    '%s: scans the store once, and the snapshot holds what is on disk',
    async (event, input) => {
      const root = createRepo({ committed: { 'a.txt': 'a1\n', 'b.txt': 'b1\n' } });
      const env = {
        CHECKPOINT_STORE_DIR: tempDir('early-scan-hook-'),
        CHECKPOINT_HOOK_RELAY: '0',
        CHECKPOINT_HOOK_HOST: '0',
        HOME: tempDir('home-'),
      };
      expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
      writeFileSync(path.join(root, 'a.txt'), 'a2\n');
      writeFileSync(path.join(root, 'new.txt'), 'new\n');
      rmSync(path.join(root, 'b.txt'));
      const shim = gitLoggingShim(root, 'GIT_INDEX_FILE');
      const result = await runNodeScript(SHIPPED_HOOK_ENTRY, [event], {
        cwd: root,
        env: {
          ...env,
          TRACE_GIT_LOG: shim.log,
          PATH: `${shim.dir}${path.delimiter}${process.env.PATH ?? ''}`,
        },
        input: JSON.stringify(input(root)),
      });
      expect(result.code, result.stderr).toBe(0);
      const gitDir = storeGitDir(env.CHECKPOINT_STORE_DIR);
      const scans = shim.commands().filter((line) => line.includes(gitDir) && / status /.test(line));
      expect(scans).toHaveLength(1);
      expect(scans[0]).toMatch(/ GIT_INDEX_FILE=\S+\/index\.early-\d+$/);
      expect(readdirSync(gitDir).filter((name) => name.startsWith('index.early-'))).toEqual([]);
      const git = (...args: string[]) =>
        spawnSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' }).stdout;
      expect(git('show', 'HEAD:a.txt')).toBe('a2\n');
      expect(git('show', 'HEAD:new.txt')).toBe('new\n');
      expect(git('ls-tree', '--name-only', 'HEAD')).not.toContain('b.txt');
    },
  );
});
