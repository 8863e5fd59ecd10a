import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/cli.js';
import { bareRemote, cli, forgeHandoffMeta, machine, withTasksDamaged } from '../helpers/handoff.js';

beforeAll(assertBuilt);

/** The checkpoint file with `goal.tasks` made a string, as a hand edit gone wrong leaves it. */
function damage(root: string): string {
  const file = path.join(root, '.claude-checkpoint');
  const checkpoint = JSON.parse(readFileSync(file, 'utf8')) as { goal: Record<string, unknown> };
  checkpoint.goal.tasks = 'oops';
  const text = `${JSON.stringify(checkpoint, null, 2)}\n`;
  writeFileSync(file, text);
  return text;
}

const handoffRefs = (bare: string) =>
  execFileSync('git', ['for-each-ref', 'refs/claude-checkpoint'], { cwd: bare, encoding: 'utf8' });

// Bad-input trial: a hand-damaged checkpoint was pushed as it was, "Pushed handoff …" and exit 0, and the
// handoff could then not be pulled anywhere, with an error that read as if the puller's own file were damaged.
describe('a damaged checkpoint and handoff push', () => {
  it('with no usable backup: refused, naming the file and the field, and nothing is pushed', async () => {
    const { bare } = bareRemote();
    const a = machine(bare, 'Alice');
    expect((await cli(a, 'save', '--goal', 'Only save')).code).toBe(0);
    const damaged = damage(a.root);

    const pushed = await cli(a, 'handoff', 'push', '--name', 'qa2');
    expect(pushed.code).not.toBe(0);
    expect(pushed.stdout).not.toContain('Pushed handoff');
    expect(pushed.stderr).toContain('nothing was pushed');
    expect(pushed.stderr).toContain('.claude-checkpoint is unusable');
    expect(pushed.stderr).toContain('checkpoint field goal.tasks is invalid: expected array');
    expect(handoffRefs(bare)).toBe('');
    expect(readFileSync(path.join(a.root, '.claude-checkpoint'), 'utf8')).toBe(damaged);
  });

  it('a checkpoint that is a symbolic link: refused as load refuses it, saying nothing was pushed (review)', async () => {
    const { bare } = bareRemote();
    const a = machine(bare, 'Alice');
    expect((await cli(a, 'save', '--goal', 'Only save')).code).toBe(0);
    const file = path.join(a.root, '.claude-checkpoint');
    renameSync(file, path.join(a.root, 'real.json'));
    rmSync(`${file}.prev`, { force: true });
    symlinkSync('real.json', file);

    const pushed = await cli(a, 'handoff', 'push', '--name', 'n1');
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain('nothing was pushed');
    expect(pushed.stderr).toContain('symbolic link');
    expect(handoffRefs(bare)).toBe('');
  });

  it('with a valid backup: sends the backup a load uses, says so, and the handoff pulls', async () => {
    const { bare } = bareRemote();
    const a = machine(bare, 'Alice');
    const b = machine(bare, 'Bob');
    expect((await cli(a, 'save', '--goal', 'Older goal')).code).toBe(0);
    expect((await cli(a, 'save', '--goal', 'Newer goal')).code).toBe(0);
    damage(a.root);

    const pushed = await cli(a, 'handoff', 'push', '--name', 'qa2');
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain(
      'The checkpoint file .claude-checkpoint is unusable (checkpoint field goal.tasks is invalid: expected array): the handoff carries its backup .claude-checkpoint.prev instead',
    );
    const json = await cli(a, 'handoff', 'push', '--name', 'qa2', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).checkpoint).toBe('backup');

    const pulled = await cli(b, 'handoff', 'pull', '--name', 'qa2', '--yes');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toContain('Older goal');
    const written = JSON.parse(readFileSync(path.join(b.root, '.claude-checkpoint'), 'utf8'));
    expect(written.goal.primary).toBe('Older goal');
  });

  it("a secret in the backup it sends is found at the backup's own line, and nothing is pushed", async () => {
    const { bare } = bareRemote();
    const a = machine(bare, 'Alice');
    expect((await cli(a, 'save', '--goal', 'Older goal')).code).toBe(0);
    expect((await cli(a, 'save', '--goal', 'Newer goal')).code).toBe(0);
    // Written by hand (a save would have redacted it): what the gate must still catch.
    const prev = path.join(a.root, '.claude-checkpoint.prev');
    const key = `AKIA${'QYLPMN5HHHFPZAM2'}`;
    const backup = JSON.parse(readFileSync(prev, 'utf8'));
    backup.decisions = [`use ${key} for now`];
    writeFileSync(prev, `${JSON.stringify(backup, null, 2)}\n`);
    damage(a.root);
    const line =
      readFileSync(prev, 'utf8')
        .split('\n')
        .findIndex((text) => text.includes('for now')) + 1;

    const pushed = await cli(a, 'handoff', 'push', '--name', 'qa2', '--json');
    expect(pushed.code).toBe(1);
    expect(pushed.stdout + pushed.stderr).not.toContain(key);
    expect(JSON.parse(pushed.stdout).secrets).toContainEqual(
      expect.objectContaining({ file: '.claude-checkpoint.prev', line }),
    );
    expect(handoffRefs(bare)).toBe('');
  });
});

describe('a handoff whose checkpoint is damaged (pushed by an earlier version, or crafted)', () => {
  it('pull says it is the handoff’s, naming the handoff and the field, and leaves the checkpoint here alone', async () => {
    const { bare } = bareRemote();
    const a = machine(bare, 'Alice');
    const b = machine(bare, 'Bob');
    expect((await cli(a, 'save', '--goal', 'Pushed goal')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'qa2')).code).toBe(0);
    // The damaged checkpoint an earlier version's push sent as it was.
    const forged = forgeHandoffMeta(bare, 'qa2', withTasksDamaged);

    expect((await cli(b, 'save', '--goal', 'Bob’s own goal')).code).toBe(0);
    const own = path.join(b.root, '.claude-checkpoint');
    const ownText = readFileSync(own, 'utf8');
    for (const mode of ['--dry-run', '--yes']) {
      const pulled = await cli(b, 'handoff', 'pull', '--name', 'qa2', mode);
      expect(pulled.code, mode).toBe(1);
      expect(pulled.stderr, mode).toContain(
        `handoff 'qa2' on remote 'origin' (commit ${forged.slice(0, 12)}) carries a damaged checkpoint: checkpoint field goal.tasks is invalid: expected array; nothing was changed, and the checkpoint here is untouched`,
      );
      expect(readFileSync(own, 'utf8'), mode).toBe(ownText);
    }
  });
});
