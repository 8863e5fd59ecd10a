import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

  it('says what to do for where the folder came from, and names the folder itself once', async () => {
    const { bare } = bareWithCommit();
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const here = await runCli(['status'], { cwd: bare, env });
    expect(here.stderr).toContain(
      `the working directory ${bare} is a git repository's own folder (a .git folder or a bare repository), not a working tree: run this in the project's folder, or pass --root`,
    );
    const inside = await runCli(['status'], { cwd: path.join(bare, 'refs'), env });
    expect(inside.stderr).toContain(`is inside ${bare}, a git repository's own folder`);
    const viaEnv = await runCli(['status'], {
      cwd: tempDir(),
      env: { ...env, CHECKPOINT_PROJECT_ROOT: bare },
    });
    expect(viaEnv.stderr).toContain('set CHECKPOINT_PROJECT_ROOT to the project');
    // doctor's fix line too: no "Fix CHECKPOINT_PROJECT_ROOT" to someone who never set it.
    const doctor = await runCli(['doctor'], { cwd: bare, env: { ...env, HOME: tempDir('home-') } });
    expect(doctor.stdout).toContain("fix: Run this in the project's folder, or pass --root with it.");
  });

  // Review of 2026-12-06: a worktree kept inside a bare repository is a working tree (a common layout).
  it('a worktree kept inside a bare repository is a project like any other', async () => {
    const { bare } = bareWithCommit();
    git(bare, 'worktree', 'add', '-q', path.join(bare, 'main'), 'main');
    const worktree = path.join(bare, 'main');
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    mkdirSync(path.join(worktree, 'src'));
    for (const cwd of [worktree, path.join(worktree, 'src')]) {
      for (const args of [['save', '--goal', 'g'], ['snapshot'], ['status']]) {
        const result = await runCli(args, { cwd, env });
        expect(result.code, `${args[0]} in ${cwd}: ${result.stderr}`).toBe(0);
      }
    }
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
      expect(result.text).toContain("give projectRoot the project's folder instead");
    }
    expect(existsSync(path.join(bare, '.claude-checkpoint'))).toBe(false);
  });
});
