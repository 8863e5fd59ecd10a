import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/run.js';
import { createRepo } from '../helpers/fixtures.js';

// Adversarial trial (issue 26): git names a path as it is, and a path past PATH_MAX is 4 KB: a failure's
// message quotes a clipped name, and never a warning when git gave a reason of its own.
describe('a git failure in one readable line', () => {
  it('a 4 KB name in git’s message is clipped in the middle', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const name = `${'d'.repeat(2200)}/${'e'.repeat(2200)}`;
    const failure = await runGit(['rev-parse', name], { cwd: root }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    const message = (failure as Error).message;
    expect(message).toMatch(/^git rev-parse failed in .* \(exit 128\): fatal: /);
    expect(message).toContain('…');
    expect(message.length).toBeLessThan(600);
  });
});

// A review: `handoff pull --checkout` failed with git's first line alone ("The following untracked
// working tree files would be overwritten by checkout:"), naming no file.
describe('a git failure that lists paths keeps them', () => {
  it('a checkout refused over untracked files names them', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    await runGit(['checkout', '-q', '-b', 'other'], { cwd: root });
    await runGit(['rm', '-q', 'a.txt'], { cwd: root });
    await runGit(['-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-q', '-m', 'gone'], { cwd: root });
    writeFileSync(path.join(root, 'a.txt'), 'mine\n');
    const failure = await runGit(['checkout', '-q', '-'], { cwd: root }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/would be overwritten by checkout: a\.txt$/);
  });
});
