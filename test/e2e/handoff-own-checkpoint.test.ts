import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/cli.js';
import { writeTree } from '../helpers/fixtures.js';
import { bareRemote, cli, machine } from '../helpers/handoff.js';

beforeAll(assertBuilt);

const goalOf = (file: string) =>
  (JSON.parse(readFileSync(file, 'utf8')) as { goal: { primary: string } }).goal.primary;

// Trial report, 2026-12-06, items 1 and 13: a pull replaced this machine's own checkpoint, its undo
// brought the files back but not the checkpoint, a second pull wrote .prev over with the pulled one too,
// and "checkpoint written" was said of a pull that wrote none. Real clones of one remote.
describe("a pull and this machine's own checkpoint", () => {
  it('says it replaces it, keeps it with the undo snapshot, and a second pull does not touch it', async () => {
    const { bare } = bareRemote();
    const e = machine(bare, 'Erin');
    const f = machine(bare, 'Frank');
    writeTree(e.root, { 'src/app.ts': 'export const app = 5;\n' });
    expect((await cli(e, 'save', '--goal', 'E goal', '--task', 'pending:E task')).code).toBe(0);
    expect((await cli(e, 'handoff', 'push', '--name', 'ef')).code).toBe(0);

    const own = ['--goal', 'F own goal', '--task', "pending:F's task", '--decision', 'F decided X'];
    expect((await cli(f, 'save', ...own)).code).toBe(0);
    const fMain = path.join(f.root, '.claude-checkpoint');
    const fText = readFileSync(fMain, 'utf8');

    // The plan says whose checkpoint goes, and for whose.
    const plan = await cli(f, 'handoff', 'pull', '--name', 'ef', '--dry-run');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      "Checkpoint: the one here (goal: F own goal) is replaced by Erin <erin@example.com>'s (goal: E goal); the one here is kept with the undo snapshot, which brings it back.",
    );
    const planJson = JSON.parse(
      (await cli(f, 'handoff', 'pull', '--name', 'ef', '--dry-run', '--json')).stdout,
    );
    // A plan writes nothing, and says so (it said "written").
    expect(planJson.checkpoint).toBe('would be written');
    expect(goalOf(fMain)).toBe('F own goal');
    expect(planJson.changed.checkpoint).toMatchObject({
      current: { goal: 'F own goal' },
      written: { goal: 'E goal' },
    });

    const first = await cli(f, 'handoff', 'pull', '--name', 'ef', '--yes', '--json');
    expect(first.code, first.stderr).toBe(0);
    const firstUndo = JSON.parse(first.stdout).undo as string;
    expect(goalOf(fMain)).toBe('E goal');

    // The second pull: nothing to change, the checkpoint is already the pulled one.
    const second = await cli(f, 'handoff', 'pull', '--name', 'ef', '--yes');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(
      'Nothing was changed: the working tree and the checkpoint here already match',
    );
    expect(second.stdout).not.toContain('checkpoint written');
    expect(goalOf(`${fMain}.prev`)).toBe('F own goal');

    // A restore of some paths only leaves the checkpoint as it is.
    const some = await cli(f, 'restore', firstUndo, 'src/app.ts', '--dry-run');
    expect(some.code, some.stderr).toBe(0);
    expect(some.stdout).not.toContain('Checkpoint:');

    // The first pull's undo brings F's checkpoint back, byte for byte, and says so.
    const undoPlan = await cli(f, 'restore', firstUndo, '--dry-run');
    expect(undoPlan.stdout).toContain(
      'Checkpoint: the one here (goal: E goal) is replaced by the one this snapshot kept (goal: F own goal)',
    );
    const undone = await cli(f, 'restore', firstUndo, '--yes', '--json');
    expect(undone.code, undone.stderr).toBe(0);
    const undoOfUndo = JSON.parse(undone.stdout).undoSnapshotId as string;
    expect(readFileSync(fMain, 'utf8')).toBe(fText);
    expect(readFileSync(path.join(f.root, 'src/app.ts'), 'utf8')).toBe('export const app = 1;\n');
    const brief = (await cli(f, 'brief')).stdout;
    expect(brief).toContain('F own goal');
    expect(brief).toContain('F decided X');

    // Restoring the same undo again changes no checkpoint: F's is there already.
    const again = JSON.parse((await cli(f, 'restore', firstUndo, '--json', '--dry-run')).stdout);
    expect(again.plan.checkpoint).toBeUndefined();

    // And that undo can be undone: E's checkpoint is kept with its own safety snapshot, which brings it
    // and E's files back.
    const redoPlan = await cli(f, 'restore', undoOfUndo, '--dry-run');
    expect(redoPlan.stdout).toContain(
      'Checkpoint: the one here (goal: F own goal) is replaced by the one this snapshot kept (goal: E goal)',
    );
    const redone = await cli(f, 'restore', undoOfUndo, '--yes');
    expect(redone.code, redone.stderr).toBe(0);
    expect(goalOf(fMain)).toBe('E goal');
    expect(readFileSync(path.join(f.root, 'src/app.ts'), 'utf8')).toBe('export const app = 5;\n');
  }, 180_000);

  it('a pull of a handoff with no checkpoint says so and leaves this one as it is', async () => {
    const { bare } = bareRemote();
    const g = machine(bare, 'Gail');
    const f = machine(bare, 'Frank');
    writeTree(g.root, { 'src/app.ts': 'export const app = 7;\n' });
    expect((await cli(g, 'handoff', 'push', '--name', 'gg')).code).toBe(0);
    expect((await cli(f, 'save', '--goal', 'F own goal')).code).toBe(0);
    const fMain = path.join(f.root, '.claude-checkpoint');
    const before = readFileSync(fMain, 'utf8');
    const pulled = await cli(f, 'handoff', 'pull', '--name', 'gg', '--yes');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).not.toContain('checkpoint written');
    expect(pulled.stdout).toContain(
      'the handoff carries no checkpoint: the one here, if any, is left as it is',
    );
    expect(readFileSync(fMain, 'utf8')).toBe(before);
  }, 120_000);

  // Helper task left3, item 1: the undo of a pull onto a machine with no checkpoint left the pulled one
  // in place, so the project was not as it was. The safety snapshot now records that there was none.
  it('a pull onto a machine with no checkpoint: its undo removes the pulled one, and the undo of that brings it back', async () => {
    const { bare } = bareRemote();
    const e = machine(bare, 'Erin');
    const f = machine(bare, 'Frank');
    writeTree(e.root, { 'src/app.ts': 'export const app = 9;\n' });
    expect((await cli(e, 'save', '--goal', 'E goal')).code).toBe(0);
    expect((await cli(e, 'handoff', 'push', '--name', 'none-here')).code).toBe(0);
    const fMain = path.join(f.root, '.claude-checkpoint');
    const plan = await cli(f, 'handoff', 'pull', '--name', 'none-here', '--dry-run');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('there is none here, and the undo snapshot removes it');
    const pulled = await cli(f, 'handoff', 'pull', '--name', 'none-here', '--yes', '--json');
    expect(pulled.code, pulled.stderr).toBe(0);
    const undo = JSON.parse(pulled.stdout).undo as string;
    const pulledText = readFileSync(fMain, 'utf8');

    const undoPlan = await cli(f, 'restore', undo, '--dry-run', '--json');
    expect(JSON.parse(undoPlan.stdout).plan.checkpoint).toMatchObject({
      current: { goal: 'E goal' },
      written: null,
    });
    expect((await cli(f, 'restore', undo, '--dry-run')).stdout).toContain(
      'Checkpoint: the one here (goal: E goal) is removed: there was none when this snapshot was taken; the one here is kept with the undo snapshot, which brings it back.',
    );
    const undone = await cli(f, 'restore', undo, '--yes', '--json');
    expect(undone.code, undone.stderr).toBe(0);
    // The project is as it was before the pull: its files, and no checkpoint (nor a backup to load).
    expect(readFileSync(path.join(f.root, 'src/app.ts'), 'utf8')).toBe('export const app = 1;\n');
    expect(existsSync(fMain)).toBe(false);
    expect(existsSync(`${fMain}.prev`)).toBe(false);
    expect((await cli(f, 'brief')).stdout).not.toContain('E goal');
    // Restoring the same undo again changes no checkpoint: there is none already.
    const again = JSON.parse((await cli(f, 'restore', undo, '--json', '--dry-run')).stdout);
    expect(again.plan.checkpoint).toBeUndefined();

    // The undo of the undo writes the pulled checkpoint back, byte for byte.
    const redone = await cli(f, 'restore', JSON.parse(undone.stdout).undoSnapshotId as string, '--yes');
    expect(redone.code, redone.stderr).toBe(0);
    expect(readFileSync(fMain, 'utf8')).toBe(pulledText);
  }, 180_000);

  it('a pull onto a machine with no checkpoint: a checkpoint saved after it is removed by the undo too, kept with its undo snapshot', async () => {
    const { bare } = bareRemote();
    const e = machine(bare, 'Erin');
    const f = machine(bare, 'Frank');
    expect((await cli(e, 'save', '--goal', 'E goal')).code).toBe(0);
    expect((await cli(e, 'handoff', 'push', '--name', 'later')).code).toBe(0);
    const fMain = path.join(f.root, '.claude-checkpoint');
    const pulled = await cli(f, 'handoff', 'pull', '--name', 'later', '--yes', '--json');
    expect(pulled.code, pulled.stderr).toBe(0);
    // The checkpoint changes after the pull: as when it replaced one, the undo still goes back to before
    // the pull, and keeps the one here with its own safety snapshot.
    expect((await cli(f, 'save', '--goal', 'F later goal')).code).toBe(0);
    const laterText = readFileSync(fMain, 'utf8');
    const undo = JSON.parse(pulled.stdout).undo as string;
    expect((await cli(f, 'restore', undo, '--dry-run')).stdout).toContain(
      'Checkpoint: the one here (goal: F later goal) is removed',
    );
    const undone = await cli(f, 'restore', undo, '--yes', '--json');
    expect(undone.code, undone.stderr).toBe(0);
    expect(existsSync(fMain)).toBe(false);
    expect(existsSync(`${fMain}.prev`)).toBe(false);
    const redone = await cli(f, 'restore', JSON.parse(undone.stdout).undoSnapshotId as string, '--yes');
    expect(redone.code, redone.stderr).toBe(0);
    expect(readFileSync(fMain, 'utf8')).toBe(laterText);
  }, 180_000);

  // Review 6, item 1: the undo of a pull removed a damaged checkpoint file (a later save with a hand edit
  // gone wrong) while keeping only its backup's text: the save was lost for good.
  it('the undo of a pull keeps a damaged checkpoint byte for byte, and the undo of that puts it back', async () => {
    const { bare } = bareRemote();
    const a = machine(bare, 'Ann');
    const b = machine(bare, 'Bob');
    expect((await cli(a, 'save', '--goal', 'A goal')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'good')).code).toBe(0);
    const pulled = await cli(b, 'handoff', 'pull', '--name', 'good', '--yes', '--json');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect((await cli(b, 'save', '--goal', 'B goal after pull')).code).toBe(0);
    const bMain = path.join(b.root, '.claude-checkpoint');
    const damaged = readFileSync(bMain, 'utf8').replace('"B goal after pull"', '"B goal after pull');
    writeFileSync(bMain, damaged);
    const prevText = readFileSync(`${bMain}.prev`, 'utf8');
    const undo = JSON.parse(pulled.stdout).undo as string;

    const plan = await cli(b, 'restore', undo, '--dry-run');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      "Checkpoint: the one here, a damaged .claude-checkpoint (its backup's goal: A goal), is replaced by none, as when this snapshot was taken; the one here is kept as it is on disk with the undo snapshot, which brings it back.",
    );
    const undone = await cli(b, 'restore', undo, '--yes', '--json');
    expect(undone.code, undone.stderr).toBe(0);
    expect(existsSync(bMain)).toBe(false);
    expect(existsSync(`${bMain}.prev`)).toBe(false);

    const redone = await cli(b, 'restore', JSON.parse(undone.stdout).undoSnapshotId as string, '--yes');
    expect(redone.code, redone.stderr).toBe(0);
    expect(readFileSync(bMain, 'utf8')).toBe(damaged);
    expect(readFileSync(`${bMain}.prev`, 'utf8')).toBe(prevText);
  }, 180_000);

  // Review 6, item 3: a pull onto a damaged checkpoint with no backup said "there is none here" and wrote
  // over it, and its undo removed the pulled one: the user's file could not be brought back.
  it('a pull onto a damaged checkpoint says so, and its undo puts the damaged file back byte for byte', async () => {
    const { bare } = bareRemote();
    const a = machine(bare, 'Ann');
    const b = machine(bare, 'Bob');
    expect((await cli(a, 'save', '--goal', 'A goal')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'good')).code).toBe(0);
    const bMain = path.join(b.root, '.claude-checkpoint');
    const notes = '{"version":1, "goal": my notes\n';
    writeFileSync(bMain, notes);

    const plan = await cli(b, 'handoff', 'pull', '--name', 'good', '--dry-run');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).not.toContain('there is none here');
    expect(plan.stdout).toContain(
      "Checkpoint: the one here, a damaged .claude-checkpoint (no usable backup), is replaced by Ann <ann@example.com>'s (goal: A goal); the one here is kept as it is on disk with the undo snapshot, which brings it back.",
    );
    const pulled = await cli(b, 'handoff', 'pull', '--name', 'good', '--yes', '--json');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(goalOf(bMain)).toBe('A goal');

    const undo = JSON.parse(pulled.stdout).undo as string;
    expect((await cli(b, 'restore', undo, '--dry-run')).stdout).toContain(
      'is replaced by the damaged .claude-checkpoint (no usable backup) this snapshot kept, byte for byte',
    );
    const undone = await cli(b, 'restore', undo, '--yes');
    expect(undone.code, undone.stderr).toBe(0);
    expect(readFileSync(bMain, 'utf8')).toBe(notes);
    expect(existsSync(`${bMain}.prev`)).toBe(false);
  }, 180_000);

  it('asks before replacing the checkpoint even when no file changes', async () => {
    const { bare } = bareRemote();
    const e = machine(bare, 'Erin');
    const f = machine(bare, 'Frank');
    expect((await cli(e, 'save', '--goal', 'E goal')).code).toBe(0);
    expect((await cli(e, 'handoff', 'push', '--name', 'same')).code).toBe(0);
    expect((await cli(f, 'save', '--goal', 'F own goal')).code).toBe(0);
    // No terminal and no --yes: not applied, exit 3, the checkpoint untouched.
    const asked = await cli(f, 'handoff', 'pull', '--name', 'same');
    expect(asked.code).toBe(3);
    expect(asked.stderr).toContain('F own goal');
    expect(goalOf(path.join(f.root, '.claude-checkpoint'))).toBe('F own goal');
  }, 120_000);
});
