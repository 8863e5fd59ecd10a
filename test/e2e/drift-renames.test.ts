import { copyFileSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';
import { connect } from '../helpers/mcp.js';

beforeAll(assertBuilt);

const stored = (root: string) => JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));
const sorted = (paths: string[]) => [...paths].sort();

// Issue 26 (new-user trial, 2026-12-06): `git mv` is a staged rename, which `git status` reports as one
// record naming both paths; drift must see the old path gone and the new one there, as after a plain `mv`.
describe('a staged rename and drift', () => {
  it('flags both paths of a `git mv` after the save, like a plain `mv` (brief and status)', async () => {
    const root = createRepo({ committed: { 'a.js': 'a\n', 'b.js': 'b\n', 'keep.js': 'k\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect((await runCli(['save', '--goal', 'g'], { cwd: root, env })).code).toBe(0);
    git(root, 'mv', 'a.js', 'renamed.js');
    renameSync(path.join(root, 'b.js'), path.join(root, 'b2.js'));

    const brief = JSON.parse((await runCli(['brief', '--json'], { cwd: root, env })).stdout);
    expect(sorted(brief.drift.changedSince)).toEqual(['a.js', 'b.js', 'b2.js', 'renamed.js']);
    // `status` in the project folder runs the early `git status` of the CLI's loader.
    const status = JSON.parse((await runCli(['status', '--json'], { cwd: root, env })).stdout);
    expect(sorted(status.checkpoint.drift.changedSince)).toEqual(['a.js', 'b.js', 'b2.js', 'renamed.js']);
  });

  it('records both paths when a rename is staged at the save, so the old path coming back is flagged', async () => {
    const root = createRepo({ committed: { 'a.js': 'a\n', 'keep.js': 'k\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    git(root, 'mv', 'a.js', 'renamed.js');
    expect((await runCli(['save', '--goal', 'g2'], { cwd: root, env })).code).toBe(0);
    expect(stored(root).modifiedFiles).toEqual([
      { path: 'a.js', status: 'D', source: 'git' },
      expect.objectContaining({ path: 'renamed.js', status: 'A', source: 'git' }),
    ]);
    git(root, 'reset', '-q', '--hard');
    git(root, 'clean', '-fdq');
    const brief = JSON.parse((await runCli(['brief', '--json'], { cwd: root, env })).stdout);
    expect(sorted(brief.drift.changedSince)).toEqual(['a.js', 'renamed.js']);
  });

  it("the hooks' brief after compaction names both paths", async () => {
    const root = createRepo({ committed: { 'a.js': 'a\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect((await runCli(['save', '--goal', 'g'], { cwd: root, env })).code).toBe(0);
    git(root, 'mv', 'a.js', 'renamed.js');
    const input = JSON.stringify({
      session_id: 's1',
      cwd: root,
      hook_event_name: 'SessionStart',
      source: 'compact',
    });
    const result = await runCli(['hook', 'SessionStart'], { cwd: root, env, input });
    expect(result.code, result.stderr).toBe(0);
    const brief: string = JSON.parse(result.stdout).hookSpecificOutput.additionalContext;
    expect(brief).toMatch(
      /re-read before editing: `a\.js`, `renamed\.js`|re-read before editing: `renamed\.js`, `a\.js`/,
    );
  });

  it('flags every file of a folder moved with `git mv`', async () => {
    const root = createRepo({ committed: { 'src/x.js': 'x\n', 'src/deep/y.js': 'y\n', 'top.js': 't\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect((await runCli(['save', '--goal', 'g'], { cwd: root, env })).code).toBe(0);
    git(root, 'mv', 'src', 'lib');
    const brief = JSON.parse((await runCli(['brief', '--json'], { cwd: root, env })).stdout);
    expect(sorted(brief.drift.changedSince)).toEqual([
      'lib/deep/y.js',
      'lib/x.js',
      'src/deep/y.js',
      'src/x.js',
    ]);
  });

  it('flags a staged copy where the repository asks git status to find copies', async () => {
    const root = createRepo({ committed: { 'a.js': 'a\n'.repeat(20), 'b.js': 'b\n' } });
    git(root, 'config', 'status.renames', 'copies');
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect((await runCli(['save', '--goal', 'g'], { cwd: root, env })).code).toBe(0);
    git(root, 'mv', 'b.js', 'b-moved.js');
    copyFileSync(path.join(root, 'a.js'), path.join(root, 'a-copy.js'));
    git(root, 'add', 'a-copy.js');
    const brief = JSON.parse((await runCli(['brief', '--json'], { cwd: root, env })).stdout);
    expect(sorted(brief.drift.changedSince)).toEqual(['a-copy.js', 'b-moved.js', 'b.js']);
  });

  it('over MCP: the save records both paths, and the load flags both after another `git mv`', async () => {
    const root = createRepo({ committed: { 'a.js': 'a\n', 'c.js': 'c\n' } });
    const { call } = await connect();
    git(root, 'mv', 'a.js', 'renamed.js');
    const saved = await call('save_session_checkpoint', { projectRoot: root, goal: 'g' });
    expect(saved.isError, saved.text).toBeFalsy();
    expect(stored(root).modifiedFiles.map((file: { path: string }) => file.path)).toEqual([
      'a.js',
      'renamed.js',
    ]);
    git(root, 'mv', 'c.js', 'c2.js');
    const loaded = await call('load_session_checkpoint', { projectRoot: root });
    expect(loaded.isError, loaded.text).toBeFalsy();
    const drift = loaded.structured?.drift as { changedSince: string[] };
    expect(sorted(drift.changedSince)).toEqual(['c.js', 'c2.js']);
  });
});
