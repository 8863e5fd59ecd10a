import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';
import { connect } from '../helpers/mcp.js';

beforeAll(assertBuilt);

// A git repository's own folder (a bare repository, a `.git` folder or one inside it) is no project: a
// snapshot there holds git's refs, config and objects, and a restore rolled them back and deleted the
// objects written since (adversarial trial, 2026-12-06). Every command and tool refuses it, before it
// writes anything.

/** A bare repository with one commit pushed, and the clone that pushed it. */
function bareWithCommit(): { bare: string; clone: string } {
  const dir = tempDir('git-dir-root-');
  const bare = path.join(dir, 'b.git');
  git(dir, 'init', '-q', '--bare', bare);
  const clone = createRepo({ committed: { 'f.txt': 'one\n' } });
  git(clone, 'push', '-q', bare, 'HEAD:refs/heads/main');
  return { bare, clone };
}

/** What a restore could roll back: the refs, the config and every object file. */
function gitState(gitDir: string): string {
  return [git(gitDir, 'for-each-ref'), readFileSync(path.join(gitDir, 'config'), 'utf8')].join('\n');
}

describe('a git repository’s own folder as the project', () => {
  it('the CLI refuses a bare repository, a .git folder and a folder inside one, writing nothing', async () => {
    const { bare, clone } = bareWithCommit();
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    for (const folder of [
      bare,
      path.join(bare, 'refs'),
      path.join(clone, '.git'),
      path.join(clone, '.git', 'objects'),
    ]) {
      const gitDir = folder.includes(`${path.sep}.git`) ? path.join(clone, '.git') : bare;
      const before = gitState(gitDir);
      for (const args of [
        ['snapshot'],
        ['save', '--goal', 'g'],
        ['restore', 'latest', '--yes'],
        ['status'],
      ]) {
        const result = await runCli(args, { cwd: folder, env });
        expect(result.code, `${args.join(' ')} in ${folder}: ${result.stdout}`).toBe(2);
        expect(result.stderr).toMatch(/a git repository's own folder .* not a working tree/);
      }
      expect(existsSync(path.join(folder, '.claude-checkpoint'))).toBe(false);
      expect(gitState(gitDir)).toBe(before);
    }
  });

  it('--root naming one is refused the same way, and the project beside it still works', async () => {
    const { bare, clone } = bareWithCommit();
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const refused = await runCli(['snapshot', '--root', bare], { cwd: clone, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--root');
    writeFileSync(path.join(clone, 'f.txt'), 'two\n');
    expect((await runCli(['snapshot'], { cwd: clone, env })).code).toBe(0);
  });

  it('the MCP tools answer with an error naming projectRoot', async () => {
    const { bare } = bareWithCommit();
    const { call } = await connect();
    for (const [tool, args] of [
      ['save_session_checkpoint', { goal: 'g' }],
      ['load_session_checkpoint', {}],
      ['snapshot_files', {}],
    ] as const) {
      const result = await call(tool, { ...args, projectRoot: bare });
      expect(result.isError, `${tool}: ${result.text}`).toBe(true);
      expect(result.text).toMatch(/projectRoot .*a git repository's own folder/);
    }
    expect(existsSync(path.join(bare, '.claude-checkpoint'))).toBe(false);
  });
});
