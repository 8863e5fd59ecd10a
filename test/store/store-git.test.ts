import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { storeGit } from '../../src/store/store-git.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// Crash tests, 2026-12-07: a snapshot killed right after it forked `git update-index` left that git to
// start after the next call had checked the store for leftovers; the next call's own update-index met
// its index.lock ("File exists") and failed.
describe('the store’s git', () => {
  it('tries once more once a git of a killed call lets go of the index lock', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const gitDir = path.join(tempDir('checkpoint-store-'), 'git');
    execFileSync('git', ['init', '-q', '--bare', gitDir]);
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    const lock = path.join(gitDir, 'index.lock');
    writeFileSync(lock, '');
    setTimeout(() => rmSync(lock, { force: true }), 300);
    const git = storeGit(gitDir, root);
    await git(['update-index', '-z', '--add', '--stdin'], { input: 'a.txt\0' });
    expect((await git(['ls-files', '--stage'])).stdout).toMatch(/\ta\.txt$/m);
  });

  it('gives git’s own error when the lock stays', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const gitDir = path.join(tempDir('checkpoint-store-'), 'git');
    execFileSync('git', ['init', '-q', '--bare', gitDir]);
    writeFileSync(path.join(gitDir, 'index.lock'), '');
    const git = storeGit(gitDir, root);
    await expect(git(['update-index', '-z', '--add', '--stdin'], { input: 'a.txt\0' })).rejects.toThrow(
      /index\.lock': File exists/,
    );
  }, 20_000);
});
