import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';
import { connect } from '../helpers/mcp.js';

beforeAll(assertBuilt);

// biome-ignore lint/suspicious/noExplicitAny: the file as JSON
const stored = (root: string): Record<string, any> =>
  JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));

const NAMES = Array.from({ length: 3000 }, (_, i) => `src/generated/part-${String(i).padStart(4, '0')}.ts`);

/** A project with ~3,000 new untracked files: far more than the 64 KB checkpoint can list. */
function bigUntrackedProject(): string {
  const root = createRepo({ committed: { 'main.ts': 'v1\n' } });
  writeTree(root, { 'main.ts': 'v2\n', ...Object.fromEntries(NAMES.map((name) => [name, `${name}\n`])) });
  return root;
}

describe('the 64 KB cap keeps what the agent gave in this save (issue 26: it dropped every command first)', () => {
  it('CLI: save then save --merge keep their commands and noted files; what was dropped is said truly; drift follows the dropped files', async () => {
    const root = bigUntrackedProject();
    const env = { CHECKPOINT_STORE_DIR: tempDir('cap-store-') };
    const first = await runCli(
      ['save', '--goal', 'g1', '--command', 'npm test', '--file', 'main.ts::the entry point', '--json'],
      { cwd: root, env },
    );
    expect(first.code, first.stderr).toBe(0);
    const firstOut = JSON.parse(first.stdout);
    expect(firstOut.counts.recentCommands).toBe(1);
    const merged = await runCli(['save', '--merge', '--goal', 'g2', '--command', 'npm run b', '--json'], {
      cwd: root,
      env,
    });
    expect(merged.code, merged.stderr).toBe(0);
    const out = JSON.parse(merged.stdout);
    expect(out.counts.recentCommands).toBe(2);
    const checkpoint = stored(root);
    expect(checkpoint.recentCommands.map((c: { command: string }) => c.command)).toEqual([
      'npm test',
      'npm run b',
    ]);
    expect(checkpoint.modifiedFiles[0]).toMatchObject({ path: 'main.ts', note: 'the entry point' });
    expect(checkpoint.meta.truncated).toBe(true);
    const warning = out.warnings.join('\n');
    expect(warning).toMatch(/Dropped to fit the 64 KB cap: \d+ file entries found only by git's scan/);
    expect(warning).not.toMatch(/command\(s\)|older entries/i);
    // In words, not as the file's field (new-user trial 2026-12-07).
    expect(warning).toContain('; the checkpoint is marked as cut short.');
    expect(warning).not.toContain('meta.truncated');
    const dropped = Number(/(\d+) file entries found only/.exec(warning)?.[1]);
    expect(checkpoint.modifiedFiles.length + dropped).toBe(NAMES.length + 1);

    // Drift still follows a file the cap left out: edited after the save, it alone is flagged.
    const listed = new Set(checkpoint.modifiedFiles.map((file: { path: string }) => file.path));
    const unlisted = NAMES.find((name) => !listed.has(name)) as string;
    writeTree(root, { [unlisted]: 'edited after the save\n' });
    const loaded = await runCli(['load', '--json'], { cwd: root, env });
    expect(JSON.parse(loaded.stdout).drift.changedSince).toEqual([unlisted]);
  });

  it('MCP: save_session_checkpoint keeps its recentCommands', async () => {
    const root = bigUntrackedProject();
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('cap-store-') } } });
    const saved = await call('save_session_checkpoint', {
      projectRoot: root,
      goal: 'g1',
      recentCommands: [{ command: 'npm test', exitCode: 0 }],
    });
    expect(saved.isError, saved.text).toBeFalsy();
    expect(saved.text).toContain('1 command(s)');
    expect(stored(root).recentCommands).toMatchObject([{ command: 'npm test' }]);
  });
});
