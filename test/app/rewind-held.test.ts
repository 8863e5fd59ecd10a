// Helper task "held" (2026-12-07): a rewind to a prompt whose turn ran `rm big.bin` (a file over the size
// cap that the pre-command snapshot held) only named the snapshot and the `restore` to run. It now brings
// the file back itself, with the rest of the rewind: in its plan, its safety snapshot, its undo and its
// rollback. Real git in temp repos, real files.
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { restoreSnapshot, takeSnapshot } from '../../src/app/rewind.js';
import { listRewind, rewindTo } from '../../src/app/rewind-menu.js';
import { fsPath } from '../../src/core/raw-path.js';
import { renderRewind } from '../../src/core/rewind-text.js';
import { projectStoreDir } from '../../src/store/store-location.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

const SESSION = 'b4c9ace5-a499-4748-b228-b65376c1eb91';

/**
 * A project with a 40 KB `big.bin` over a 0.02 MB size cap; prompt `p1`, then `rm big.bin` held by its
 * pre-command snapshot (after `beforeCommand`, if given), then a second prompt `p2`.
 */
async function turnThatRemovedBig(
  options: {
    beforeCommand?: (root: string) => void;
    env?: Record<string, string>;
    /** The file's project-relative name, in a folder the command removes whole (`rm -r data`). */
    inFolder?: string;
  } = {},
) {
  const root = createRepo({ committed: { 'src/app.ts': 'export const app = 1;\n' } });
  const content = randomBytes(40_000);
  const file = options.inFolder ?? 'big.bin';
  if (options.inFolder) mkdirSync(path.join(root, path.posix.dirname(file)));
  writeFileSync(fsPath(path.join(root, file)), content);
  const base = tempDir('checkpoint-store-');
  const deps = defaultDeps({
    env: {
      CHECKPOINT_STORE_DIR: base,
      HOME: tempDir('home-'),
      CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '0.02',
      ...options.env,
    },
  });
  const prompt = (label: string) =>
    takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', label, sessionId: SESSION });
  const p1 = await prompt('p1');
  writeTree(root, { 'src/app.ts': 'export const app = 2;\n' });
  options.beforeCommand?.(root);
  const held = await takeSnapshot(deps, {
    projectRoot: root,
    trigger: 'pre-command',
    label: options.inFolder ? `rm -r ${path.posix.dirname(file)}` : 'rm big.bin',
    sessionId: SESSION,
    holdLarge: () => [file],
  });
  expect(held.snapshot.skipped?.large).toEqual([]);
  rmSync(path.join(root, options.inFolder ? path.posix.dirname(file) : file), { recursive: true });
  await prompt('p2');
  const rewind = (dryRun: boolean, onProgress?: (done: number, total: number) => void) =>
    rewindTo(deps, {
      projectRoot: root,
      ref: p1.snapshot.id,
      mode: 'code',
      sessionId: SESSION,
      dryRun,
      onProgress,
    });
  return { root, deps, base, content, held: held.snapshot.id, rewind };
}

const big = (root: string) => path.join(root, 'big.bin');

describe('rewind brings back a file over the size cap that a pre-command snapshot of the turn held', () => {
  it('plans it, restores it byte for byte with the rest, and its undo removes it again', async () => {
    const { root, content, held, rewind, deps } = await turnThatRemovedBig();
    const planned = await rewind(true);
    expect(planned.code?.plan.create).toEqual(['big.bin']);
    expect(planned.code?.plan.overwrite).toEqual(['src/app.ts']);
    expect(planned.code?.fromPreCommand).toEqual([{ path: 'big.bin', snapshotId: held }]);
    expect(planned.code?.notHeld).toBeUndefined();
    expect(planned.code?.heldBy).toBeUndefined();
    // What changed after the prompt counts it: a rewind undoes its deletion.
    expect(planned.entry.changes).toEqual({ added: 0, modified: 1, deleted: 1 });
    expect(renderRewind(planned)).toContain(
      `\`big.bin\` (over the size cap, so not in this prompt's snapshot) would come back from pre-command snapshot ${held} of this prompt's turn`,
    );
    expect(existsSync(big(root))).toBe(false);

    const done = await rewind(false);
    expect(readFileSync(big(root)).equals(content)).toBe(true);
    expect(readFileSync(path.join(root, 'src/app.ts'), 'utf8')).toBe('export const app = 1;\n');
    expect(renderRewind(done)).toContain('came back from pre-command snapshot');

    // Rewound again, nothing is left to do: the file on disk is the one held.
    const again = await rewind(true);
    expect(again.code?.plan).toMatchObject({ create: [], overwrite: [], delete: [] });
    expect(again.entry.changes).toEqual({ added: 0, modified: 0, deleted: 0 });

    const undo = done.code?.undoSnapshotId as string;
    await restoreSnapshot(deps, { projectRoot: root, snapshotId: undo, dryRun: false });
    expect(existsSync(big(root))).toBe(false);
    expect(readFileSync(path.join(root, 'src/app.ts'), 'utf8')).toBe('export const app = 2;\n');
  });

  it('the list counts its deletion after the prompt (so the picker offers the code), and nothing once it is back', async () => {
    const { root, deps, content } = await turnThatRemovedBig();
    const counts = async () =>
      (await listRewind(deps, { projectRoot: root, sessionId: SESSION })).entries.map((entry) => [
        entry.prompt,
        entry.changes,
      ]);
    expect(await counts()).toEqual([
      ['p2', { added: 0, modified: 0, deleted: 0 }],
      ['p1', { added: 0, modified: 1, deleted: 1 }],
    ]);
    writeFileSync(big(root), content);
    expect(await counts()).toEqual([
      ['p2', { added: 0, modified: 0, deleted: 0 }],
      ['p1', { added: 0, modified: 1, deleted: 0 }],
    ]);
  });

  it('a big.bin written over since (over the cap): kept aside by the safety snapshot, and the undo gives it back', async () => {
    const { root, content, rewind, deps } = await turnThatRemovedBig();
    const since = randomBytes(50_000);
    writeFileSync(big(root), since);
    const planned = await rewind(true);
    expect(planned.code?.plan.overwrite).toEqual(['big.bin', 'src/app.ts']);
    expect(planned.code?.plan.keptAside).toEqual([expect.objectContaining({ path: 'big.bin' })]);
    const done = await rewind(false);
    expect(readFileSync(big(root)).equals(content)).toBe(true);
    await restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: done.code?.undoSnapshotId as string,
      dryRun: false,
    });
    expect(readFileSync(big(root)).equals(since)).toBe(true);
  });

  it('a big.bin written over since, past what a restore keeps aside: that path is refused and named, the file left as it is', async () => {
    const { root, rewind } = await turnThatRemovedBig({ env: { CHECKPOINT_KEEP_ASIDE_MAX_MB: '0.01' } });
    const since = randomBytes(50_000);
    writeFileSync(big(root), since);
    const planned = await rewind(true);
    expect(planned.code?.plan.refused).toEqual([
      expect.objectContaining({ path: 'big.bin', reason: expect.stringContaining('keeps aside') }),
    ]);
    expect(planned.code?.fromPreCommand).toBeUndefined();
    await rewind(false);
    expect(readFileSync(big(root)).equals(since)).toBe(true);
    expect(readFileSync(path.join(root, 'src/app.ts'), 'utf8')).toBe('export const app = 1;\n');
  });

  it('unchanged on disk (the command never ran): nothing to restore of it, and the undo leaves it', async () => {
    const { root, content, rewind, deps } = await turnThatRemovedBig();
    writeFileSync(big(root), content);
    const planned = await rewind(true);
    expect(planned.code?.plan).toMatchObject({ create: [], overwrite: ['src/app.ts'], keptAside: [] });
    // Not said to come back: it is not written.
    expect(planned.code?.fromPreCommand).toBeUndefined();
    expect(renderRewind(planned)).not.toContain('big.bin');
    const done = await rewind(false);
    await restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: done.code?.undoSnapshotId as string,
      dryRun: false,
    });
    expect(readFileSync(big(root)).equals(content)).toBe(true);
  });

  it('changed during the turn before the command (another size): not brought back, the snapshot is named', async () => {
    const { root, held, rewind } = await turnThatRemovedBig({
      beforeCommand: (dir) => appendFileSync(path.join(dir, 'big.bin'), 'more'),
    });
    const planned = await rewind(true);
    expect(planned.code?.plan.create).toEqual([]);
    expect(planned.code?.fromPreCommand).toBeUndefined();
    expect(planned.code?.heldBy).toEqual([{ path: 'big.bin', snapshotId: held }]);
    expect(renderRewind(planned)).toContain(
      `\`big.bin\` is in pre-command snapshot ${held} of this prompt's turn, as it was by then`,
    );
    // Run in a subfolder: the restore it names takes the path from there, as the CLI takes a typed path.
    expect(renderRewind(planned, root, { projectRoot: root, cwd: path.join(root, 'sub') })).toContain(
      `restore --root ${root} ${held} -- ../big.bin\``,
    );
    await rewind(false);
    expect(existsSync(big(root))).toBe(false);
  });

  it('rewritten during the turn with other bytes of the same size, by a command not naming it: not brought back, named', async () => {
    // Review of the held change, finding 1: only the size was compared, and the later bytes came back
    // "as it was". The prompt's snapshot records the file's stamp (mtime in ns, inode) beside its size.
    const { root, held, rewind } = await turnThatRemovedBig({
      beforeCommand: (dir) => writeFileSync(path.join(dir, 'big.bin'), randomBytes(40_000)),
    });
    const planned = await rewind(true);
    expect(planned.code?.plan.create).toEqual([]);
    expect(planned.code?.fromPreCommand).toBeUndefined();
    expect(planned.code?.heldBy).toEqual([{ path: 'big.bin', snapshotId: held }]);
    expect(renderRewind(planned)).not.toContain('held the same file');
    await rewind(false);
    expect(existsSync(big(root))).toBe(false);
  });

  it('a file whose name is not valid UTF-8, in a folder the command removed: brought back byte for byte', async () => {
    // Finding 2: its name went to git as an argument, which cannot carry the byte; nothing was said.
    const name = 'data/\udcff.bin';
    const { root, held, content, rewind } = await turnThatRemovedBig({ inFolder: name });
    const planned = await rewind(true);
    expect(planned.code?.plan.create).toEqual([name]);
    expect(planned.code?.fromPreCommand).toEqual([{ path: name, snapshotId: held }]);
    await rewind(false);
    expect(readFileSync(fsPath(path.join(root, name))).equals(content)).toBe(true);
  });

  it('a new big.bin written since (another size, over the cap): counted as modified, not deleted, where the plan overwrites it', async () => {
    // Finding 3: the list said `-1` for a file on disk, which the plan overwrites.
    const { root, deps, rewind } = await turnThatRemovedBig();
    writeFileSync(big(root), randomBytes(45_000));
    const listed = await listRewind(deps, { projectRoot: root, sessionId: SESSION });
    expect(listed.entries.map((entry) => entry.changes)).toEqual([
      { added: 0, modified: 0, deleted: 0 },
      { added: 0, modified: 2, deleted: 0 },
    ]);
    const planned = await rewind(true);
    expect(planned.code?.plan.overwrite).toEqual(['big.bin', 'src/app.ts']);
    expect(planned.entry.changes).toEqual({ added: 0, modified: 2, deleted: 0 });
  });

  it('a rewind that fails midway puts the tree back, big.bin gone again; the next one brings it back', async () => {
    const { root, content, rewind } = await turnThatRemovedBig();
    const failed = rewind(false, (done) => {
      if (done === 2) throw new Error('no space left on device');
    });
    await expect(failed).rejects.toThrow(/no space left on device/);
    expect(existsSync(big(root))).toBe(false);
    expect(readFileSync(path.join(root, 'src/app.ts'), 'utf8')).toBe('export const app = 2;\n');
    await rewind(false);
    expect(readFileSync(big(root)).equals(content)).toBe(true);
  });

  it('one killed midway (its journal left): the next rewind finishes it and names the state before the first as its undo', async () => {
    const { root, base, content, rewind, deps } = await turnThatRemovedBig();
    const before = await takeSnapshot(deps, { projectRoot: root, trigger: 'pre-restore' });
    const journal = path.join(projectStoreDir(base, root), 'restore-journal.json');
    writeFileSync(journal, JSON.stringify({ target: 'x', undo: before.snapshot.id, paths: [], dirs: ['.'] }));
    // A temp file the killed restore left beside the file it was writing.
    writeFileSync(path.join(root, '.claude-checkpoint-restore-big.bin.tmp'), 'half');
    const done = await rewind(false);
    expect(done.code?.undoSnapshotId).toBe(before.snapshot.id);
    expect(done.code?.interrupted).toMatchObject({ undo: before.snapshot.id });
    expect(readFileSync(big(root)).equals(content)).toBe(true);
    expect(existsSync(journal)).toBe(false);
    expect(existsSync(path.join(root, '.claude-checkpoint-restore-big.bin.tmp'))).toBe(false);
  });
});
