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
