import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const hook = (root: string, store: string, sessionId: string, prompt: string) =>
  runCli(['hook', 'UserPromptSubmit'], {
    cwd: root,
    env: { CHECKPOINT_STORE_DIR: store, CHECKPOINT_HOOK_HOST: '0', CHECKPOINT_HOOK_RELAY: '0' },
    input: JSON.stringify({ session_id: sessionId, cwd: root, hook_event_name: 'UserPromptSubmit', prompt }),
  });

describe('a restore across a commit or a branch switch says HEAD stays where it is (trial 4, item 10)', () => {
  it('restore and rewind name the branch and commit then and now; JSON carries headMoved', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const store = tempDir('checkpoint-store-');
    const cli = (...args: string[]) =>
      runCli([...args, '--root', root], { cwd: root, env: { CHECKPOINT_STORE_DIR: store } });
    const then = git(root, 'rev-parse', 'HEAD').trim();
    const branch = git(root, 'branch', '--show-current').trim();
    expect((await hook(root, store, 's1', 'first prompt')).code).toBe(0);
    writeFileSync(path.join(root, 'a.txt'), 'b\n');
    git(root, 'checkout', '-qb', 'feature');
    git(root, 'commit', '-qam', 'b');
    const now = git(root, 'rev-parse', 'HEAD').trim();

    const dry = await cli('restore', 'latest', '--dry-run');
    expect(dry.stdout).toContain(
      `the snapshot was taken on ${branch}@${then.slice(0, 9)}; the repository is now on feature@${now.slice(0, 9)}`,
    );
    const json = JSON.parse((await cli('restore', 'latest', '--dry-run', '--json')).stdout) as {
      headMoved: { snapshot: { branch: string; head: string }; current: { branch: string; head: string } };
    };
    expect(json.headMoved).toEqual({
      snapshot: { branch, head: then },
      current: { branch: 'feature', head: now },
    });

    const rewind = await cli('rewind', 'latest', '--code', '--yes');
    expect(rewind.code).toBe(0);
    expect(rewind.stdout).toContain(`the repository is now on feature@${now.slice(0, 9)}`);
    // Files only: HEAD and the branch did not move.
    expect(git(root, 'rev-parse', 'HEAD').trim()).toBe(now);
    expect(git(root, 'branch', '--show-current').trim()).toBe('feature');
  });

  it('says nothing when HEAD is where it was', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const store = tempDir('checkpoint-store-');
    const cli = (...args: string[]) =>
      runCli([...args, '--root', root], { cwd: root, env: { CHECKPOINT_STORE_DIR: store } });
    expect((await cli('snapshot')).code).toBe(0);
    writeFileSync(path.join(root, 'a.txt'), 'b\n');
    const dry = await cli('restore', 'latest', '--dry-run');
    expect(dry.stdout).toContain('Overwrite (1):');
    expect(dry.stdout).not.toContain('the repository is now on');
  });
});
