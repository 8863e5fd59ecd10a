import * as fs from 'node:fs';
import {
  chmodSync,
  linkSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serializeCheckpoint } from '../../src/core/schema.js';
import { CheckpointStore } from '../../src/store/checkpoint-store.js';
import type { StoreFs } from '../../src/store/fs-seam.js';
import { tempDir } from '../helpers/fixtures.js';

const example = JSON.parse(readFileSync(new URL('../fixtures/spec-example.json', import.meta.url), 'utf8'));
const version = (goal: string) =>
  serializeCheckpoint({ ...example, goal: { ...example.goal, primary: goal } });
const goalOf = (file: string) => JSON.parse(readFileSync(file, 'utf8')).goal.primary;

describe('CheckpointStore', () => {
  it('writes the file with mode 0600 whatever the umask, and leaves no temp file', async () => {
    const root = tempDir();
    const oldUmask = process.umask(0o000);
    try {
      await new CheckpointStore(root).write(version('one'));
    } finally {
      process.umask(oldUmask);
    }
    const file = path.join(root, '.claude-checkpoint');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(root)).toEqual(['.claude-checkpoint']);
  });

  it('readCurrentText: the text a load gives, as on disk (the main file, else its valid backup), or null', async () => {
    const root = tempDir();
    const store = new CheckpointStore(root);
    expect(await store.readCurrentText()).toBeNull();
    await store.write(version('one'));
    await store.write(version('two'));
    expect(await store.readCurrentText()).toBe(version('two'));
    writeFileSync(path.join(root, '.claude-checkpoint'), '{ damaged');
    expect(await store.readCurrentText()).toBe(version('one'));
  });

  // Review 6, items 1 and 3: what a pull's safety snapshot keeps of the checkpoint, and its undo puts back.
  it('readFiles and writeFilesLocked: both files byte for byte, damaged or not (null: not there)', async () => {
    const root = tempDir();
    const store = new CheckpointStore(root);
    expect(await store.readFiles()).toEqual({ main: null, prev: null });
    await store.write(version('one'));
    await store.write(version('two'));
    const damaged = Buffer.from([0x7b, 0x20, 0xff, 0xfe, 0x0a]);
    writeFileSync(path.join(root, '.claude-checkpoint'), damaged);
    const kept = await store.readFiles();
    expect(kept.main?.equals(damaged)).toBe(true);
    expect(kept.prev?.toString()).toBe(version('one'));

    await store.withLock(() => store.writeFilesLocked({ main: null, prev: null }));
    expect(readdirSync(root).filter((name) => !name.endsWith('.lock'))).toEqual([]);
    await store.withLock(() => store.writeFilesLocked(kept));
    expect(readFileSync(path.join(root, '.claude-checkpoint')).equals(damaged)).toBe(true);
    expect(goalOf(path.join(root, '.claude-checkpoint.prev'))).toBe('one');
  });

  it('readFiles refuses a file it could not keep whole (over the read limit), rather than losing it', async () => {
    const root = tempDir();
    writeFileSync(path.join(root, '.claude-checkpoint'), Buffer.alloc(2 * 1024 * 1024, 0x20));
    await expect(new CheckpointStore(root).readFiles()).rejects.toThrow(
      /over the .*-byte limit.*move it aside/,
    );
  });

  it('keeps the previous valid file as .prev', async () => {
    const root = tempDir();
    const store = new CheckpointStore(root);
    await store.write(version('one'));
    await store.write(version('two'));
    await store.write(version('three'));
    expect(goalOf(store.paths.main)).toBe('three');
    expect(goalOf(store.paths.backup)).toBe('two');
    expect(statSync(store.paths.backup).mode & 0o777).toBe(0o600);
  });

  it('leaves no temp file when .prev already is the main file (a save killed between its renames)', async () => {
    const root = tempDir();
    const store = new CheckpointStore(root);
    await store.write(version('one'));
    // What a kill right after the backup's rename leaves: .prev and the main file are one file.
    linkSync(store.paths.main, store.paths.backup);
    await store.write(version('two'));
    expect(readdirSync(root).sort()).toEqual(['.claude-checkpoint', '.claude-checkpoint.prev']);
    expect(goalOf(store.paths.main)).toBe('two');
    expect(goalOf(store.paths.backup)).toBe('one');
  });

  it('never lets a corrupt file overwrite a good backup', async () => {
    const root = tempDir();
    const store = new CheckpointStore(root);
    await store.write(version('one'));
    await store.write(version('two'));
    writeFileSync(store.paths.main, '{"version": 1, "trunc');
    await store.write(version('three'));
    expect(goalOf(store.paths.backup)).toBe('one');
    expect(goalOf(store.paths.main)).toBe('three');
  });

  it('sees a file damaged between its load and the next write, even at the same size', async () => {
    const root = tempDir();
    const store = new CheckpointStore(root);
    await store.write(version('one'));
    await store.write(version('two'));
    expect((await store.load()).found).toBe(true);
    // Same length, same instant (well within one tick of the file system's clock): only the bytes differ.
    const text = readFileSync(store.paths.main, 'utf8');
    writeFileSync(store.paths.main, `${text.slice(0, -2)}x\n`);
    await store.write(version('three'));
    expect(goalOf(store.paths.backup)).toBe('one');
    expect(goalOf(store.paths.main)).toBe('three');
  });

  it('falls back to the backup when the main file is corrupt, and says so', async () => {
    const root = tempDir();
    const store = new CheckpointStore(root);
    await store.write(version('one'));
    await store.write(version('two'));
    writeFileSync(store.paths.main, '');
    const loaded = await store.load();
    expect(loaded).toMatchObject({ found: true, fromBackup: true });
    if (!loaded.found) throw new Error('unreachable');
    expect(loaded.checkpoint.goal.primary).toBe('one');
    expect(loaded.notices[0]).toMatch(
      /checkpoint file \.claude-checkpoint is unusable \(checkpoint is not valid JSON.*loaded the backup \.claude-checkpoint\.prev/,
    );
  });

  it('falls back to the backup when the main file is missing', async () => {
    const root = tempDir();
    const store = new CheckpointStore(root);
    await store.write(version('one'));
    await store.write(version('two'));
    fs.unlinkSync(store.paths.main);
    const loaded = await store.load();
    expect(loaded).toMatchObject({ found: true, fromBackup: true });
  });

  it('reports nothing found as a value, not an error', async () => {
    expect(await new CheckpointStore(tempDir()).load()).toMatchObject({ found: false });
  });

  it.each([
    ['truncated', (text: string) => text.slice(0, text.length / 2)],
    ['bit-flipped', (text: string) => text.replace('"version": 1', '"version": 1x')],
    ['oversized', () => `{"pad": "${'x'.repeat(2 * 1024 * 1024)}"}`],
    ['wrong types', (text: string) => text.replace('"nextSteps": [', '"nextSteps": 5, "x": [')],
  ])('explains a %s file with no backup instead of crashing', async (_name, damage) => {
    const root = tempDir();
    writeFileSync(path.join(root, '.claude-checkpoint'), damage(version('one')));
    await expect(new CheckpointStore(root).load()).rejects.toThrow(
      /is unusable .* and there is no backup: fix it by hand/,
    );
  });

  it('refuses a file from a newer version, on load and on save, without touching it', async () => {
    const root = tempDir();
    const future = version('future').replace('"version": 1', '"version": 9');
    const store = new CheckpointStore(root);
    writeFileSync(store.paths.main, future);
    await expect(store.load()).rejects.toThrow(/schema version 9/);
    await expect(store.write(version('now'))).rejects.toThrow(
      /refusing to overwrite a checkpoint written by a newer version/,
    );
    expect(readFileSync(store.paths.main, 'utf8')).toBe(future);
  });

  it('refuses to write through or read a symlinked checkpoint or backup', async () => {
    const root = tempDir();
    const elsewhere = path.join(tempDir(), 'target.json');
    writeFileSync(elsewhere, 'untouched');
    const store = new CheckpointStore(root);
    symlinkSync(elsewhere, store.paths.main);
    await expect(store.write(version('x'))).rejects.toThrow(/it is a symbolic link/);
    await expect(store.load()).rejects.toThrow(/symbolic link/);
    expect(readFileSync(elsewhere, 'utf8')).toBe('untouched');

    const other = tempDir();
    const otherStore = new CheckpointStore(other);
    await otherStore.write(version('one'));
    symlinkSync(elsewhere, otherStore.paths.backup);
    await expect(otherStore.write(version('two'))).rejects.toThrow(/symbolic link/);
    expect(readFileSync(elsewhere, 'utf8')).toBe('untouched');
    expect(lstatSync(otherStore.paths.backup).isSymbolicLink()).toBe(true);
  });

  it.each([
    ['disk full', 'ENOSPC'],
    ['permission denied', 'EACCES'],
  ])(
    'on %s: a clear error, the previous checkpoint and backup intact, no temp file left',
    async (_name, code) => {
      const root = tempDir();
      const good = new CheckpointStore(root);
      await good.write(version('one'));
      await good.write(version('two'));
      // The checkpoint's own temp files fail to be written (the lock's come before them and are fine).
      const doomed = new Set<number>();
      const failing: StoreFs = {
        ...fs,
        openSync: ((file: fs.PathLike, flags: number, mode?: number) => {
          const fd = fs.openSync(file, flags, mode);
          if (/\.claude-checkpoint(\.prev)?\.tmp-/.test(String(file))) doomed.add(fd);
          return fd;
        }) as StoreFs['openSync'],
        writeFileSync: ((target: number | fs.PathLike, data: string | NodeJS.ArrayBufferView) => {
          if (typeof target === 'number' && doomed.has(target)) {
            throw Object.assign(new Error(`${code}: simulated`), { code });
          }
          fs.writeFileSync(target, data);
        }) as StoreFs['writeFileSync'],
      };
      await expect(new CheckpointStore(root, failing).write(version('three'))).rejects.toThrow(
        new RegExp(`could not write .*\\.claude-checkpoint.*${code}`),
      );
      expect(goalOf(good.paths.main)).toBe('two');
      // The backup too: still the save before, a file of its own (adversarial trial, 2026-12-06: the
      // backup was taken before the new content was written, so a failed save lost `one` and left `.prev`
      // a second name of the main file, which an in-place edit of one would change in both).
      expect(goalOf(good.paths.backup)).toBe('one');
      expect(lstatSync(good.paths.backup).ino).not.toBe(lstatSync(good.paths.main).ino);
      expect(readdirSync(root).sort()).toEqual(['.claude-checkpoint', '.claude-checkpoint.prev']);
    },
  );

  it('explains a folder it cannot write to', async () => {
    if (process.getuid?.() === 0) return; // root ignores permission bits; the fs-seam test above covers EACCES
    const root = tempDir();
    chmodSync(root, 0o500);
    try {
      await expect(new CheckpointStore(root).write(version('x'))).rejects.toThrow(/EACCES/);
    } finally {
      chmodSync(root, 0o700);
    }
  });
});
