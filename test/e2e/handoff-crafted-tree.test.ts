import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/cli.js';
import { writeTree } from '../helpers/fixtures.js';
import { bareRemote, cli, machine } from '../helpers/handoff.js';

beforeAll(assertBuilt);

const gitIn = (repo: string, args: string[], input?: string) =>
  execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    ...(input === undefined ? {} : { input }),
  }).trim();

/** A handoff of `name` on the remote whose tree is `entries` (mktree lines), its message the pushed one's. */
function forgeTree(bare: string, pushed: string, name: string, entries: string): void {
  const tree = gitIn(bare, ['mktree', '--missing'], entries);
  const commit = gitIn(bare, [
    'cat-file',
    'commit',
    gitIn(bare, ['rev-parse', `refs/claude-checkpoint/handoff/${pushed}`]),
  ]);
  const forged = gitIn(
    bare,
    ['hash-object', '-w', '-t', 'commit', '--stdin'],
    `${commit.replace(/^tree .*/, `tree ${tree}`)}\n`,
  );
  gitIn(bare, ['update-ref', `refs/claude-checkpoint/handoff/${name}`, forged]);
}

// Audit item 12: a submodule (gitlink) entry in a pulled handoff, where this tree has a folder.
describe('a handoff whose tree is crafted', () => {
  it('a gitlink where a folder is here: refused, the folder left whole, untracked files too', async () => {
    const { bare } = bareRemote();
    const a = machine(bare, 'Alice');
    const b = machine(bare, 'Bob');
    expect((await cli(a, 'handoff', 'push', '--name', 'tmpl')).code).toBe(0);
    const base = gitIn(bare, ['rev-parse', 'main']);
    const readme = gitIn(bare, ['rev-parse', 'main:README.md']);
    const ignore = gitIn(bare, ['rev-parse', 'main:.gitignore']);
    forgeTree(
      bare,
      'tmpl',
      'gitlink',
      `100644 blob ${ignore}\t.gitignore\n100644 blob ${readme}\tREADME.md\n160000 commit ${base}\tsrc\n`,
    );
    writeTree(b.root, { 'src/local.txt': 'mine\n' });

    const plan = await cli(b, 'handoff', 'pull', '--name', 'gitlink', '--dry-run');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).not.toMatch(/^Delete/m);
    expect(plan.stdout).toMatch(/^ {2}src: a submodule \(gitlink\)/m);
    const done = await cli(b, 'handoff', 'pull', '--name', 'gitlink', '--yes');
    expect(done.code, done.stderr).toBe(0);
    expect(readdirSync(path.join(b.root, 'src')).sort()).toEqual(['app.ts', 'local.txt', 'old.ts']);
  }, 120_000);
});
