import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI, runCli, runCliWithGitLog } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';
import { readTree, repoState } from '../helpers/tree.js';

beforeAll(assertBuilt);

describe('claude-checkpoint rewind commands', () => {
  it('the first snapshot sees an edit made in the same second as the index was written (racy git)', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    // Same size, right after the commit wrote the index; the snapshot then runs a second later, when the
    // store copies that index.
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const snap = await runCli(['snapshot', '--json', '--root', root], { cwd: root, env });
    const id = JSON.parse(snap.stdout).snapshot.id as string;
    writeFileSync(path.join(root, 'a.txt'), 'three, longer\n');
    const restored = await runCli(['restore', id, '--yes', '--root', root], { cwd: root, env });
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('two\n');
  });

  it('restore --yes scans the working tree once: no dry run before it (issue 26: the 25 MB restore)', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n', 'b.txt': 'b\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const snap = await runCli(['snapshot', '--json', '--root', root], { cwd: root, env });
    const id = JSON.parse(snap.stdout).snapshot.id as string;
    writeTree(root, { 'a.txt': 'two\n' });
    const { result, gitCommands } = await runCliWithGitLog(
      ['restore', id, 'a.txt', '--yes', '--json'],
      root,
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
    const outcome = JSON.parse(result.stdout);
    expect(outcome).toMatchObject({ dryRun: false, plan: { overwrite: ['a.txt'] } });
    // The safety snapshot's scan is the only one: it is also what the plan is made from.
    expect(gitCommands.filter((command) => / status --porcelain=v2 /.test(command))).toHaveLength(1);
    const listed = JSON.parse((await runCli(['list', '--json', '--root', root], { cwd: root, env })).stdout);
    expect(listed.snapshots[0]).toMatchObject({ id: outcome.undoSnapshotId, trigger: 'pre-restore' });
  });

  it('restore checks loose objects are there from their headers, packed ones with git (issue 26)', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n', 'b.txt': 'b\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    // Content the project's own objects do not hold, which the store would borrow: the store's own. Two
    // files alike but for a line, so that gc's pack (one a delta of the other) is smaller than loose
    // objects, and is kept.
    const shared = randomBytes(16 * 1024).toString('base64');
    writeTree(root, { 'a.txt': `snapshot a\n${shared}`, 'b.txt': `snapshot b\n${shared}` });
    const snap = await runCli(['snapshot', '--json', '--root', root], { cwd: root, env });
    const id = JSON.parse(snap.stdout).snapshot.id as string;
    const checks = (commands: string[]) => commands.filter((command) => command.includes('--batch-check'));

    writeTree(root, { 'a.txt': 'two\n', 'b.txt': 'c\n' });
    const loose = await runCliWithGitLog(['restore', id, '--yes'], root, env);
    expect(loose.result.code, loose.result.stderr).toBe(0);
    expect(checks(loose.gitCommands)).toEqual([]);
    expect(['a.txt', 'b.txt'].map((file) => readFileSync(path.join(root, file), 'utf8'))).toEqual([
      `snapshot a\n${shared}`,
      `snapshot b\n${shared}`,
    ]);

    expect((await runCli(['gc', '--root', root], { cwd: root, env })).code).toBe(0);
    writeTree(root, { 'a.txt': 'three\n' });
    const packed = await runCliWithGitLog(['restore', id, '--yes'], root, env);
    expect(packed.result.code, packed.result.stderr).toBe(0);
    expect(checks(packed.gitCommands)).toHaveLength(1);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe(`snapshot a\n${shared}`);
  });

  it('restore --yes with nothing to change records no safety snapshot and says so, as before', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const snap = await runCli(['snapshot', '--json', '--root', root], { cwd: root, env });
    const id = JSON.parse(snap.stdout).snapshot.id as string;
    // Another file changed: the tree differs from the snapshot, but not at the path restored.
    writeTree(root, { 'b.txt': 'new\n' });
    const json = await runCli(['restore', id, 'a.txt', '--yes', '--json', '--root', root], {
      cwd: root,
      env,
    });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ dryRun: true, undoSnapshotId: null, interrupted: null });
    const text = await runCli(['restore', id, 'a.txt', '--yes', '--root', root], { cwd: root, env });
    expect(text.stdout).toContain(`already matches snapshot ${id}: nothing to restore`);
    const listed = JSON.parse((await runCli(['list', '--json', '--root', root], { cwd: root, env })).stdout);
    expect(listed.total).toBe(1);
    expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('new\n');
  });

  it('snapshots a project when HOME is set but empty, rather than taking the project for the home folder', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const env = { HOME: '', CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const snap = await runCli(['snapshot', '--json'], { cwd: root, env });
    expect(snap.code, snap.stderr).toBe(0);
    expect(JSON.parse(snap.stdout).created).toBe(true);
  });

  it('snapshot, list, diff, restore and gc, as JSON and as text, with documented exit codes', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n', 'b.txt': 'b' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const cli = (...args: string[]) => runCli([...args, '--root', root], { cwd: tempDir(), env });
    const gitBefore = repoState(root);

    const snap = await cli('snapshot', '--label', 'first', '--json');
    expect(snap.code).toBe(0);
    const id = JSON.parse(snap.stdout).snapshot.id as string;

    writeTree(root, { 'a.txt': 'two\n', 'c.txt': 'new' });
    const listed = await cli('list', '--json');
    expect(JSON.parse(listed.stdout)).toMatchObject({ total: 1, snapshots: [{ id, label: 'first' }] });

    const diff = await cli('diff', id.slice(0, 12));
    expect(diff.stdout).toContain('M a.txt (+1 -1)');
    expect(diff.stdout).toContain('A c.txt (+1 -0)');

    const unconfirmed = await cli('restore', id);
    expect(unconfirmed.code).toBe(3);
    expect(unconfirmed.stderr).toMatch(/Overwrite \(1\):\n {2}a\.txt\nDelete \(1\):\n {2}c\.txt/);
    expect(unconfirmed.stderr).toContain('pass --yes');
    // Not a dry run, which was not asked for: it was not confirmed, and says how to (new-user trial 2026-12-06).
    expect(unconfirmed.stderr).not.toContain('Dry run');
    expect(unconfirmed.stderr).toMatch(
      /^Not confirmed: restoring snapshot \S+ would change 2 file\(s\); nothing was changed \(no terminal to confirm on: pass --yes\)\.\n/,
    );
    expect(readTree(root)['c.txt']).toBeDefined();

    const dry = await cli('restore', id, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^Dry run/);

    const applied = await cli('restore', id, '--yes');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(
      /Restored snapshot (\S+):.*\nOverwrite \(1\):\n {2}a\.txt\nDelete \(1\):\n {2}c\.txt\nTo undo: claude-checkpoint restore --root (\S+) (\S+) --yes\n`latest` is now this undo snapshot \(\3\); to restore more from \1, name it\.\n$/,
    );
    // Run from another folder: the undo carries the --root it was given.
    expect(/--root (\S+)/.exec(applied.stdout)?.[1]).toBe(root);
    expect(readTree(root)['c.txt']).toBeUndefined();
    expect(repoState(root)).toEqual(gitBefore);

    const gc = await cli('gc', '--json');
    expect(JSON.parse(gc.stdout)).toMatchObject({ removed: 0, kept: 2 });
  });

  it('exits 2 with one line on bad input, and 0 on --help', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const missing = await runCli(['restore', 'nope', '--root', root], { cwd: root, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('claude-checkpoint: there are no snapshots for this project yet\n');
    const badLimit = await runCli(['list', '--limit', 'zero', '--root', root], { cwd: root, env });
    expect(badLimit).toMatchObject({
      code: 2,
      stderr:
        "claude-checkpoint: --limit must be a whole number of at least 1, in decimal digits: got 'zero'\n",
    });
    const help = await runCli(['--help'], { cwd: root, env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes: 0 ok');
  });

  it('finishes a restore that was killed midway, and says one was interrupted', async () => {
    const root = createRepo({ committed: {} });
    const files = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [`d${i % 30}/f${i}.txt`, `original ${i}\n`.repeat(200)]),
    );
    writeTree(root, files);
    const storeDir = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: storeDir };
    const snap = await runCli(['snapshot', '--json', '--root', root], { cwd: root, env });
    const id = JSON.parse(snap.stdout).snapshot.id as string;
    const original = readTree(root);
    for (const file of Object.keys(files)) writeFileSync(path.join(root, file), 'changed\n');

    const child = spawn(process.execPath, [CLI, 'restore', id, '--yes', '--root', root], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: 'ignore',
    });
    // Restores write in path order: once the first path holds its old content again, the restore is
    // under way, and killing it then leaves the tree half restored.
    const first = path.join(root, Object.keys(files).sort()[0] as string);
    await new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        let content = '';
        try {
          content = readFileSync(first, 'utf8');
        } catch {}
        if (content.startsWith('original')) {
          clearInterval(poll);
          child.kill('SIGKILL');
          resolve();
        } else if (Date.now() - started > 30_000) {
          clearInterval(poll);
          reject(new Error('the restore never started'));
        }
      }, 1);
    });
    await new Promise((resolve) => child.on('close', resolve));
    const partial = readTree(root);
    const restoredBeforeKill = Object.keys(files).filter(
      (file) => JSON.stringify(partial[file]) === JSON.stringify(original[file]),
    );
    expect(restoredBeforeKill.length).toBeGreaterThan(0);
    expect(restoredBeforeKill.length).toBeLessThan(Object.keys(files).length);

    const leftovers = Object.keys(readTree(root)).filter((file) =>
      path.basename(file).startsWith('.claude-checkpoint-restore-'),
    );
    // Work done after the crash, before the restore is run again (adversarial trial, 2026-12-06): the
    // undo named goes back before the first attempt, so this is only in the new safety snapshot, which
    // the output must name too.
    writeFileSync(path.join(root, 'precious.txt'), 'written after the crash\n');
    const second = await runCli(['restore', id, '--yes', '--root', root], { cwd: root, env });
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(
      /an earlier restore of .* was interrupted; the state before it is snapshot \S+/,
    );
    expect(readTree(root)).toEqual(original);
    // Temp files a killed restore may leave behind are removed, whether or not this run left any.
    for (const file of leftovers) expect(existsSync(path.join(root, file))).toBe(false);
    const current = /with any edits made since the interruption, is snapshot (\S+):/.exec(second.stdout)?.[1];
    expect(current, second.stdout).toBeDefined();
    expect((await runCli(['restore', current ?? '', '--yes', '--root', root], { cwd: root, env })).code).toBe(
      0,
    );
    expect(readFileSync(path.join(root, 'precious.txt'), 'utf8')).toBe('written after the crash\n');
  }, 60_000);

  it('a restore interrupted twice: the third names the state before the FIRST attempt as the undo (issue 26)', async () => {
    const root = createRepo({ committed: {} });
    const files = Object.fromEntries(
      Array.from({ length: 1200 }, (_, i) => [`d${i % 20}/f${i}.txt`, `original ${i}\n`.repeat(100)]),
    );
    writeTree(root, files);
    const storeDir = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: storeDir };
    const snap = await runCli(['snapshot', '--json', '--root', root], { cwd: root, env });
    const id = JSON.parse(snap.stdout).snapshot.id as string;
    for (const file of Object.keys(files)) writeFileSync(path.join(root, file), 'changed\n');
    const beforeFirst = readTree(root);

    let journalPath: string | undefined;
    const journalOf = () => {
      try {
        journalPath ??= path.join(storeDir, ...findFile(storeDir, 'restore-journal.json'));
        return readFileSync(journalPath, 'utf8');
      } catch {
        return '';
      }
    };
    /** Starts a restore and kills it once `ready` says it is under way. */
    const interrupt = async (ready: () => boolean) => {
      const child = spawn(process.execPath, [CLI, 'restore', id, '--yes', '--root', root], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        stdio: 'ignore',
      });
      const closed = new Promise((resolve) => child.on('close', resolve));
      const started = Date.now();
      while (!ready()) {
        if (Date.now() - started > 60_000) throw new Error('the restore never started');
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      child.kill('SIGKILL');
      await closed;
    };
    const first = path.join(root, Object.keys(files).sort()[0] as string);
    await interrupt(() => {
      try {
        return readFileSync(first, 'utf8').startsWith('original');
      } catch {
        return false;
      }
    });
    const firstJournal = journalOf();
    expect(firstJournal).not.toBe('');
    // The second attempt is killed once it has written its own journal.
    await interrupt(() => {
      const now = journalOf();
      return now !== '' && now !== firstJournal;
    });

    const third = await runCli(['restore', id, '--yes', '--json', '--root', root], { cwd: root, env });
    expect(third.code, third.stderr).toBe(0);
    const outcome = JSON.parse(third.stdout);
    expect(outcome.interrupted.undo).toBe(JSON.parse(firstJournal).undo);
    expect(outcome.undoSnapshotId).toBe(JSON.parse(firstJournal).undo);
    const undone = await runCli(['restore', outcome.undoSnapshotId, '--yes', '--root', root], {
      cwd: root,
      env,
    });
    expect(undone.code, undone.stderr).toBe(0);
    expect(readTree(root)).toEqual(beforeFirst);
  }, 180_000);
});

/** The path segments, under `dir`, of the first file named `name` (the store's folder is per project). */
function findFile(dir: string, name: string): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === name) return [name];
    if (entry.isDirectory()) {
      try {
        return [entry.name, ...findFile(path.join(dir, entry.name), name)];
      } catch {}
    }
  }
  throw new Error(`${name} not found`);
}
