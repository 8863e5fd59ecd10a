import { describe, expect, it } from 'vitest';
import { remoteUrl } from '../../src/git/handoff-remote.js';
import { createRepo, git } from '../helpers/fixtures.js';

describe('remoteUrl: what names a remote in the record of seen handoffs', () => {
  it.each([
    ['https://alice:s3cret-token@example.com/team/project.git', 'https://example.com/team/project.git'],
    ['ssh://git@example.com/team/project.git', 'ssh://example.com/team/project.git'],
    ['git@example.com:team/project.git', 'git@example.com:team/project.git'],
    ['short:project.git', 'https://example.com/team/project.git'],
  ])('%s is kept as %s (insteadOf applied, no user or password)', async (url, kept) => {
    const root = createRepo();
    git(root, 'config', 'url.https://example.com/team/.insteadOf', 'short:');
    git(root, 'remote', 'add', 'origin', url);
    expect(await remoteUrl(root, 'origin')).toBe(kept);
  });
});
