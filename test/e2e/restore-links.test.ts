import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

interface Plan {
  overwrite: string[];
  links?: Array<{ path: string; reason: string }>;
}

describe('a restore says what it cannot bring back through links (trial 4, item 5)', () => {
  it('a symbolic link out of the project and a hard-linked file: named with the reason in the plan and the result, text and JSON', async () => {
    const outside = tempDir('checkpoint-outside-');
    mkdirSync(path.join(outside, 'shared'));
    writeFileSync(path.join(outside, 'conf.json'), 'orig\n');
    writeFileSync(path.join(outside, 'shared', 'x.ts'), 'orig\n');
    writeFileSync(path.join(outside, 'hard.txt'), 'h\n');
    const root = createRepo({ committed: { 'a.txt': 'a\n', 'inner.txt': 'in\n' } });
    symlinkSync(path.join(outside, 'conf.json'), path.join(root, 'conf.json'));
    symlinkSync(path.join(outside, 'shared'), path.join(root, 'shared'));
    symlinkSync('inner.txt', path.join(root, 'inside-link'));
    linkSync(path.join(outside, 'hard.txt'), path.join(root, 'hard.txt'));
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'links');
    const store = tempDir('checkpoint-store-');
    const cli = (...args: string[]) =>
      runCli([...args, '--root', root], { cwd: root, env: { CHECKPOINT_STORE_DIR: store } });
    expect((await cli('snapshot')).code).toBe(0);
    writeFileSync(path.join(root, 'conf.json'), 'EDITED\n');
    writeFileSync(path.join(root, 'shared', 'x.ts'), 'EDITED\n');
    writeFileSync(path.join(root, 'hard.txt'), 'EDITED\n');
    writeFileSync(path.join(root, 'a.txt'), 'b\n');

    const planned = JSON.parse((await cli('restore', 'latest', '--dry-run', '--json')).stdout) as {
      plan: Plan;
    };
    expect(planned.plan.links?.map((entry) => entry.path).sort()).toEqual([
      'conf.json',
      'hard.txt',
      'shared',
    ]);
    const dry = await cli('restore', 'latest', '--dry-run');
    expect(dry.stdout).toContain('Not brought back through links (3):');
    expect(dry.stdout).toMatch(/conf\.json: a symbolic link to .*outside the project.*not undone/);
    expect(dry.stdout).toMatch(/hard\.txt: a hard link \(1 other link\(s\).*restored here as a new file/);

    const applied = await cli('restore', 'latest', '--yes', '--json');
    expect(applied.code).toBe(0);
    const result = JSON.parse(applied.stdout) as { plan: Plan };
    expect(result.plan.links?.map((entry) => entry.path).sort()).toEqual(['conf.json', 'hard.txt', 'shared']);
    // As documented: the project's copy comes back, the other link keeps the edit.
    expect(readFileSync(path.join(root, 'hard.txt'), 'utf8')).toBe('h\n');
    expect(readFileSync(path.join(outside, 'hard.txt'), 'utf8')).toBe('EDITED\n');
    expect(readFileSync(path.join(outside, 'conf.json'), 'utf8')).toBe('EDITED\n');
  });
});
