import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { storeGit } from '../../src/store/store-git.js';
import { projectStoreDir } from '../../src/store/store-location.js';
import { gitsOwnConfig, initStore, type SetupStep } from '../../src/store/store-setup.js';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const STEPS: SetupStep[] = ['init', 'head', 'config', 'info', 'borrow-index', 'borrow-head', 'ready'];

class Killed extends Error {}

/** A project repository and its store's folders, as SnapshotStore makes them before initStore. */
function projectAndStore() {
  const root = createRepo({ committed: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' } });
  writeTree(root, { 'dirty.txt': 'dirty\n' });
  const base = tempDir('setup-kill-store-');
  const storeDir = projectStoreDir(base, root);
  const gitDir = path.join(storeDir, 'git');
  mkdirSync(gitDir, { recursive: true, mode: 0o700 });
  return { root, base, storeDir, gitDir, git: storeGit(gitDir, root) };
}

/** Everything in the store is owner-only, finished or not (issue 26). */
function expectPrivateIndex(gitDir: string): void {
  const index = path.join(gitDir, 'index');
  if (existsSync(index)) expect(statSync(index).mode & 0o777).toBe(0o600);
}

describe('store set-up interrupted at each step (issue 26: a kill left snapshots failing for good)', () => {
  it.each(STEPS.map((step) => [step]))(
    'a kill before "%s", then once more during the repair: the next call finishes the set-up',
    async (killedAt) => {
      const { root, base, storeDir, gitDir, git: storeGitRun } = projectAndStore();
      const killAt = (step: SetupStep) => (reached: SetupStep) => {
        if (reached === step) throw new Killed(step);
      };
      await expect(initStore(root, storeDir, gitDir, storeGitRun, killAt(killedAt))).rejects.toThrow(Killed);
      expectPrivateIndex(gitDir);
      // A kill during the repair too, at each step up to the same one (a step the repair skips, as it
      // finds that step done, lets that call finish).
      for (const again of STEPS.slice(0, STEPS.indexOf(killedAt) + 1))
        await initStore(root, storeDir, gitDir, storeGitRun, killAt(again)).catch((error: unknown) => {
          if (!(error instanceof Killed)) throw error;
        });
      expectPrivateIndex(gitDir);

      expect(await initStore(root, storeDir, gitDir, storeGitRun)).toBe('sha1');
      expect(readFileSync(path.join(gitDir, 'claude-checkpoint-ready'), 'utf8')).toBe(`${root}\n`);
      const config = readFileSync(path.join(gitDir, 'config'), 'utf8');
      expect(config.match(/^\[core\]/gim)).toHaveLength(2); // git's own, then ours
      expect(git(root, '--git-dir', gitDir, 'config', '--get', 'core.bare').trim()).toBe('false');
      expectPrivateIndex(gitDir);

      const env = { CHECKPOINT_STORE_DIR: base };
      const first = await runCli(['snapshot', '--json'], { cwd: root, env });
      expect(first.code, first.stderr).toBe(0);
      writeTree(root, { 'dirty.txt': 'changed\n' });
      const second = await runCli(['snapshot', '--json'], { cwd: root, env });
      expect(second.code, second.stderr).toBe(0);
      const diff = await runCli(['diff', JSON.parse(first.stdout).snapshot.id], { cwd: root, env });
      expect(diff.code, diff.stderr).toBe(0);
      expect(diff.stdout).toContain('dirty.txt');
    },
  );

  it('a store an earlier version began to set up (our [core] appended, no marker) is repaired', async () => {
    const { root, storeDir, gitDir, git: storeGitRun } = projectAndStore();
    await initStore(root, storeDir, gitDir, storeGitRun);
    const own = gitsOwnConfig(readFileSync(path.join(gitDir, 'config'), 'utf8'));
    // What an earlier version left: git's config and its settings appended, without our line.
    writeFileSync(
      path.join(gitDir, 'config'),
      `${own}[core]\n\tbare = false\n\tfilemode = true\n[gc]\n\tauto = 0\n`,
    );
    rmSync(path.join(gitDir, 'claude-checkpoint-ready'));
    expect(await initStore(root, storeDir, gitDir, storeGitRun)).toBe('sha1');
    expect(readFileSync(path.join(gitDir, 'config'), 'utf8').match(/^\[core\]/gim)).toHaveLength(2);
    expect(git(root, '--git-dir', gitDir, 'config', '--get', 'gc.auto').trim()).toBe('0');
  });
});
