import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// The XDG Base Directory spec: a relative value is invalid and ignored. Followed, it named a folder in
// whatever folder a command started in (input audit, 2026-12-07).
describe('relative folders in the environment', () => {
  it('XDG_STATE_HOME relative is ignored: the store goes under HOME, never into the project', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const home = tempDir('home-');
    const env = { HOME: home, XDG_STATE_HOME: 'state' };
    const taken = await runCli(['snapshot'], { cwd: root, env });
    expect(taken.stderr).toBe('');
    expect(taken.code).toBe(0);
    expect(existsSync(path.join(root, 'state'))).toBe(false);
    expect(existsSync(path.join(home, '.local', 'state', 'claude-checkpoint'))).toBe(true);
  });

  it.each([
    ['XDG_CONFIG_HOME', '.config', path.join('.config', 'claude-checkpoint')],
    ['CHECKPOINT_CONFIG_DIR', 'conf', 'conf'],
    ['HOME', 'home', path.join('home', '.config', 'claude-checkpoint')],
  ])(
    '%s relative is ignored: a settings file in the project is not read as the user’s own',
    async (name, value, folder) => {
      const root = createRepo({ committed: { 'a.txt': 'a\n' } });
      mkdirSync(path.join(root, folder), { recursive: true });
      writeFileSync(path.join(root, folder, 'config.json'), '{"snapshotMaxCount": 0}');
      const env = { HOME: tempDir('home-'), [name]: value };
      const taken = await runCli(['snapshot'], { cwd: root, env });
      expect(taken.stderr).toBe('');
      expect(taken.code).toBe(0);
    },
  );
});
