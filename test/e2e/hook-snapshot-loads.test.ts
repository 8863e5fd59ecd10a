import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';
import { builtinsTrace } from '../helpers/loads.js';

beforeAll(assertBuilt);

// A snapshotting hook on its own (no server, no host: `CHECKPOINT_HOOK_HOST=0`, as the tests' children
// run), the plugin's entry as agents run it. Its changed files are past JavaScript's hashing budget
// (2 KB, git/hash.ts): read in the hook, they loaded node:crypto (3-14 ms on the 2-core machine; issue
// 26); git's update-index reads them now, and the content is taken when it is done.
describe('a snapshotting hook in its own process', () => {
  it.each([
    ['UserPromptSubmit', (root: string) => ({ cwd: root, prompt: 'next step', session_id: 's1' })],
    [
      'PreToolUse',
      (root: string) => ({ cwd: root, tool_name: 'Bash', tool_input: { command: 'rm -rf build' } }),
    ],
  ])(
    '%s stores 8 KB of changed files without loading node:crypto or node:child_process',
    async (event, input) => {
      const root = createRepo({ committed: { 'a.txt': 'one\n' } });
      const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
      expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
      writeTree(
        root,
        Object.fromEntries(
          Array.from({ length: 8 }, (_, i) => [`src/f${i}.ts`, `${'x'.repeat(1000)}${i}\n`]),
        ),
      );
      const trace = builtinsTrace();
      const result = await runNodeScript(SHIPPED_HOOK_ENTRY, [event], {
        cwd: root,
        env: { ...env, NODE_OPTIONS: `--require=${trace.preload}` },
        input: JSON.stringify(input(root)),
      });
      expect(result.code, result.stderr).toBe(0);
      const builtins = trace.builtins();
      expect(builtins).not.toContain('crypto');
      // git runs on libuv's handles, as in the CLI: node:child_process (with net and the streams) was loaded
      // all the same by the bundle's modules, a tenth of the hook.
      expect(builtins).not.toContain('child_process');
      const listed = JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout);
      expect(listed.snapshots).toHaveLength(2);
      expect(listed.snapshots[0].changes).toEqual({ added: 8, modified: 0, deleted: 0 });
    },
  );
});
