import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { projectStatus } from '../../src/app/project-status.js';
import { saveCheckpoint } from '../../src/app/save.js';
import { isIgnoredByGit } from '../../src/git/repo.js';
import { createRepo, git, workerStateHome } from '../helpers/fixtures.js';

const deps = defaultDeps({ env: { XDG_STATE_HOME: workerStateHome() } });

// Issue 26: with a checkpoint file, `status` reads whether git ignores it from the load's `git status`
// instead of running `git check-ignore`; its answer must be check-ignore's in every case.
describe('status: is the checkpoint git-ignored', () => {
  it.each([
    ['ignored by .gitignore', '.claude-checkpoint*\n', () => undefined],
    ['not ignored (status lists it as untracked)', 'dist\n', () => undefined],
    [
      'ignored by a pattern but tracked, unchanged since committed (status does not list it)',
      '.claude-checkpoint*\n',
      (root: string) => {
        git(root, 'add', '-f', '.');
        git(root, 'commit', '-q', '-m', 'checkpoint');
      },
    ],
    [
      'tracked and changed since committed (status lists it)',
      '.claude-checkpoint*\n',
      async (root: string, project: string) => {
        git(root, 'add', '-f', '.');
        git(root, 'commit', '-q', '-m', 'checkpoint');
        await saveCheckpoint(deps, { projectRoot: project, goal: 'again' });
      },
    ],
  ])('%s, at the top and in a subfolder', async (_case, ignore, change) => {
    for (const sub of ['', 'packages/app']) {
      const root = createRepo({ committed: { 'a.ts': 'a' }, ignore });
      const project = path.join(root, sub);
      mkdirSync(project, { recursive: true });
      await saveCheckpoint(deps, { projectRoot: project, goal: 'g' });
      await change(root, project);
      const report = await projectStatus(deps, { projectRoot: project });
      expect(report.checkpoint.found, sub).toBe(true);
      expect(report.checkpointIgnored, sub).toBe(await isIgnoredByGit(project, '.claude-checkpoint'));
    }
  });
});
