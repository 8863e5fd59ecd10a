import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { journalId, serializeJournalRecord } from '../../src/core/journal.js';
import { recordedCommands } from '../../src/core/merge.js';
import { serializeCheckpoint } from '../../src/core/schema.js';
import { CheckpointStore } from '../../src/store/checkpoint-store.js';
import { JOURNAL_MAX_RECORDS } from '../../src/store/command-journal.js';
import type { StoreFs } from '../../src/store/fs-seam.js';
import { assertBuilt } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const WORKER = fileURLToPath(new URL('../helpers/journal-worker.mjs', import.meta.url));
const example = JSON.parse(readFileSync(new URL('../fixtures/spec-example.json', import.meta.url), 'utf8'));
const start = (root: string) =>
  new CheckpointStore(root).write(serializeCheckpoint({ ...example, recentCommands: [] }));
const commandsIn = (root: string): string[] =>
  JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).recentCommands.map(
    (command: { command: string }) => command.command,
  );

let ids = 0;
/** Adds a hook's record to the journal, as recordCommands does when the lock is busy. */
function journal(store: CheckpointStore, ...commands: string[]): void {
  const recorded = recordedCommands(
    commands.map((command) => ({ command, exitCode: 0 })),
    new Date(),
  );
  store.addToJournal(
    journalId(new Date(), `${process.pid}-${(++ids).toString(16)}`),
    serializeJournalRecord(recorded),
  );
}

/** The journal worker on `root`; `release` ends its stdin (a holder lets go of the lock then). */
function startWorker(args: string[]) {
  const child = spawn(process.execPath, [WORKER, DIST, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const started = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const done = new Promise<{ code: number | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code }));
  });
  return { started, done, release: () => child.stdin.end() };
}

beforeAll(assertBuilt);

/** A file system that notes each fsync and rename, in order. */
function watchSyncsAndRenames(): { steps: string[]; watchedFs: StoreFs } {
  const steps: string[] = [];
  const watchedFs: StoreFs = {
    ...fs,
    fsyncSync: ((fd: number) => {
      steps.push('fsync');
      fs.fsyncSync(fd);
    }) as StoreFs['fsyncSync'],
    renameSync: ((from: fs.PathLike, to: fs.PathLike) => {
      steps.push('rename');
      fs.renameSync(from, to);
    }) as StoreFs['renameSync'],
  };
  return { steps, watchedFs };
}

describe('the command journal', () => {
  it('takes records while the lock is held, and its holder merges them as it lets go: no one waits', async () => {
    const root = tempDir();
    await start(root);
    const holder = new CheckpointStore(root);
    const hook = new CheckpointStore(root);
    await holder.withLock(async () => {
      journal(hook, 'make a');
      journal(hook, 'make b', 'make c');
      expect(await hook.mergeJournalNow()).toBe(false);
      expect(commandsIn(root)).toEqual([]);
    });
    expect(commandsIn(root)).toEqual(['make a', 'make b', 'make c']);
    expect(readdirSync(root).sort()).toEqual(['.claude-checkpoint', '.claude-checkpoint.prev']);
  });

  it('is shown by a load without the lock, which writes nothing', async () => {
    const root = tempDir();
    await start(root);
    const store = new CheckpointStore(root);
    journal(store, 'make a');
    const before = readFileSync(store.paths.main, 'utf8');
    const loaded = await store.load();
    expect(loaded.found && loaded.checkpoint.recentCommands.map((c) => c.command)).toEqual(['make a']);
    expect(readFileSync(store.paths.main, 'utf8')).toBe(before);
    expect(readdirSync(store.paths.journal)).toHaveLength(1);
  });

  it('merges a record written as the holder let go, after its last merge (the holder sees to it)', async () => {
    const root = tempDir();
    await start(root);
    const hook = new CheckpointStore(root);
    let merges = 0;
    // The holder's last merge clears the journal and then finds a record that came meanwhile, from a hook
    // that found the lock busy and left.
    const holderFs: StoreFs = {
      ...fs,
      rmdirSync: ((dir: fs.PathLike) => {
        merges += 1;
        if (merges === 2) {
          journal(hook, 'make late');
          expect(existsSync(path.join(root, '.claude-checkpoint.lock'))).toBe(true);
        }
        fs.rmdirSync(dir);
      }) as StoreFs['rmdirSync'],
    };
    const holder = new CheckpointStore(root, holderFs);
    journal(hook, 'make early');
    await holder.withLock(async () => {
      journal(hook, 'make meanwhile');
    });
    expect(merges).toBeGreaterThanOrEqual(2);
    expect(commandsIn(root)).toEqual(['make early', 'make meanwhile', 'make late']);
    expect(existsSync(holder.paths.journal)).toBe(false);
  });

  it('records a command once when a merge dies between writing the checkpoint and clearing the journal', async () => {
    const root = tempDir();
    await start(root);
    const store = new CheckpointStore(root);
    journal(store, 'make a');
    journal(store, 'make b');
    const crashed = await startWorker([root, 'crash-after-write']).done;
    expect(crashed.code).toBe(9);
    // The merge was written, the journal not cleared, and the dead process's lock left behind.
    expect(commandsIn(root)).toEqual(['make a', 'make b']);
    expect(readdirSync(store.paths.journal)).toHaveLength(2);
    expect(existsSync(store.paths.lock)).toBe(true);
    const loaded = await store.load();
    expect(loaded.found && loaded.checkpoint.recentCommands.map((c) => c.command)).toEqual([
      'make a',
      'make b',
    ]);

    journal(store, 'make c');
    await store.withLock(async () => undefined);
    expect(commandsIn(root)).toEqual(['make a', 'make b', 'make c']);
    expect(existsSync(store.paths.journal)).toBe(false);
  });

  it('waits for the first save when there is no checkpoint yet, which merges it as it lets go', async () => {
    const root = tempDir();
    const store = new CheckpointStore(root);
    journal(store, 'make a');
    expect(await store.mergeJournalNow()).toBe(true);
    expect(readdirSync(store.paths.journal)).toHaveLength(1);
    await start(root);
    expect(commandsIn(root)).toEqual(['make a']);
    expect(existsSync(store.paths.journal)).toBe(false);
  });

  // Review of 2026-12-07: a hook's own write of the record its dead server wrote replaced the server's,
  // whose record never expires, with a copy that may (after ten minutes unmerged).
  /** A file system without hard links: link() fails with EPERM, as on FAT or some network mounts. */
  const noHardLinks = {
    ...fs,
    linkSync: () => {
      throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' });
    },
  } as unknown as StoreFs;

  it.each([
    ['', undefined],
    [' on a file system without hard links', noHardLinks],
  ])('keeps a record in place when a hook writes it again under its id%s, and says so', (_, seam) => {
    const root = tempDir();
    const store = new CheckpointStore(root, seam);
    const id = journalId(new Date(), 'abc123');
    const server = serializeJournalRecord(recordedCommands([{ command: 'make a', exitCode: 0 }], new Date()));
    expect(store.addToJournal(id, server)).toBe(true);
    const again = serializeJournalRecord({
      ...recordedCommands([{ command: 'make a', exitCode: 0 }], new Date()),
      mayRepeat: true,
    });
    expect(store.addToJournal(id, again, true)).toBe(false);
    expect(readFileSync(path.join(store.paths.journal, `${id}.json`), 'utf8')).toBe(server);
    expect(readdirSync(store.paths.journal)).toEqual([`${id}.json`]);
    // Where no record is in place, the hook's copy is written, and no temp file is left.
    const other = journalId(new Date(), 'def456');
    expect(store.addToJournal(other, again, true)).toBe(true);
    expect(readFileSync(path.join(store.paths.journal, `${other}.json`), 'utf8')).toBe(again);
    expect(readdirSync(store.paths.journal).sort()).toEqual([`${id}.json`, `${other}.json`].sort());
  });

  it('keeps its files private: a 0700 folder of 0600 files, whatever the umask', async () => {
    const root = tempDir();
    const store = new CheckpointStore(root);
    const oldUmask = process.umask(0o000);
    try {
      journal(store, 'make a');
    } finally {
      process.umask(oldUmask);
    }
    expect(statSync(store.paths.journal).mode & 0o777).toBe(0o700);
    const [name] = readdirSync(store.paths.journal);
    expect(statSync(path.join(store.paths.journal, name ?? '')).mode & 0o777).toBe(0o600);
  });

  it('removes what cannot be a record, and leaves a newer version its own', async () => {
    const root = tempDir();
    await start(root);
    const store = new CheckpointStore(root);
    journal(store, 'make a');
    const newer = `${journalId(new Date(), '1-a')}.json`;
    writeFileSync(path.join(store.paths.journal, 'garbage.json'), 'not a record');
    writeFileSync(path.join(store.paths.journal, newer), '{"v":2}\n');
    writeFileSync(path.join(store.paths.journal, 'notes.txt'), 'not ours');
    await store.withLock(async () => undefined);
    expect(commandsIn(root)).toEqual(['make a']);
    expect(readdirSync(store.paths.journal).sort()).toEqual([newer, 'notes.txt'].sort());
  });

  it('refuses a link in its folder’s place: never written through, read or cleared', async () => {
    const root = tempDir();
    await start(root);
    const elsewhere = tempDir();
    const theirs = path.join(elsewhere, `${journalId(new Date(), '1-a')}.json`);
    writeFileSync(theirs, serializeJournalRecord(recordedCommands([{ command: 'planted' }], new Date())));
    const store = new CheckpointStore(root);
    symlinkSync(elsewhere, store.paths.journal);
    expect(() => journal(store, 'make a')).toThrow(/not a folder/);
    await store.withLock(async () => undefined);
    const loaded = await store.load();
    expect(loaded.found && loaded.checkpoint.recentCommands).toEqual([]);
    expect(commandsIn(root)).toEqual([]);
    expect(readdirSync(elsewhere)).toEqual([path.basename(theirs)]);
  });

  // Regression (issue 26): the relay answers a Bash hook once its record is in place, said to be synced.
  it('syncs a record to disk before it is renamed into place', async () => {
    const root = tempDir();
    await start(root);
    const { steps, watchedFs } = watchSyncsAndRenames();
    journal(new CheckpointStore(root, watchedFs), 'make');
    expect(steps).toEqual(['fsync', 'rename']);
  });

  // The relay answers a Bash hook there, where every read shows the record: the sync of a small file
  // took 3 ms a hook on a busy machine.
  it('tells its caller once the record is whole and in place, before its sync', async () => {
    const root = tempDir();
    await start(root);
    const { steps, watchedFs } = watchSyncsAndRenames();
    const store = new CheckpointStore(root, watchedFs);
    const id = journalId(new Date(), 'told-1');
    const text = serializeJournalRecord(recordedCommands([{ command: 'make', exitCode: 0 }], new Date()));
    store.addToJournal(id, text, false, () => {
      const inPlace = readFileSync(path.join(store.paths.journal, `${id}.json`), 'utf8');
      steps.push(`told: ${readdirSync(store.paths.journal).join()} ${inPlace === text}`);
    });
    expect(steps).toEqual(['rename', `told: ${id}.json true`, 'fsync']);
    expect(commandsIn(root)).toEqual([]);
  });

  it(`takes no more than ${JOURNAL_MAX_RECORDS} records`, async () => {
    const root = tempDir();
    const store = new CheckpointStore(root);
    mkdirSync(store.paths.journal, { mode: 0o700 });
    for (let i = 0; i < JOURNAL_MAX_RECORDS; i++)
      writeFileSync(path.join(store.paths.journal, `${i}.json`), '');
    expect(() => journal(store, 'make a')).toThrow(/journal .* is full/);
  });

  it('is merged by the other process holding the lock, as it lets go', async () => {
    const root = tempDir();
    await start(root);
    const holder = startWorker([root, 'hold']);
    await holder.started;
    const store = new CheckpointStore(root);
    journal(store, 'make a');
    expect(await store.mergeJournalNow()).toBe(false);
    holder.release();
    expect((await holder.done).code).toBe(0);
    expect(commandsIn(root)).toEqual(['make a']);
    expect(existsSync(store.paths.journal)).toBe(false);
  });

  // Regression (issue 26, the new-user trial of 2026-12-07): a server killed between writing a record's
  // temp file and renaming it left `tmp-…` in the journal for good, its command never shown or merged.
  it('takes the record a killed writer left whole in its temp file, and removes one it left half written', async () => {
    const root = tempDir();
    await start(root);
    const store = new CheckpointStore(root);
    const whole = await startWorker([root, 'killed-before-rename', 'echo kill-1']).done;
    const half = await startWorker([root, 'killed-mid-write', 'echo half']).done;
    expect([whole.code, half.code]).toEqual([null, null]);
    expect(readdirSync(store.paths.journal).filter((name) => name.startsWith('tmp-'))).toHaveLength(2);

    const loaded = await store.load();
    expect(loaded.found && loaded.checkpoint.recentCommands.map((c) => c.command)).toEqual(['echo kill-1']);
    journal(store, 'make b');
    await store.withLock(async () => undefined);
    expect(commandsIn(root)).toEqual(['echo kill-1', 'make b']);
    expect(existsSync(store.paths.journal)).toBe(false);
  });

  it('leaves a live writer its temp file: never read half written, nor removed under it', async () => {
    const root = tempDir();
    await start(root);
    const store = new CheckpointStore(root);
    const writer = startWorker([root, 'live-before-rename', 'make live']);
    await writer.started;
    journal(store, 'make a');
    await store.withLock(async () => undefined);
    expect(commandsIn(root)).toEqual(['make a']);
    expect(readdirSync(store.paths.journal)).toHaveLength(1);
    writer.release();
    expect((await writer.done).code).toBe(0);
    await store.withLock(async () => undefined);
    expect(commandsIn(root)).toEqual(['make a', 'make live']);
    expect(existsSync(store.paths.journal)).toBe(false);
  });

  it('takes a killed writer’s temp file named as before (tmp-<id>, the pid in the id)', async () => {
    const root = tempDir();
    await start(root);
    const store = new CheckpointStore(root);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const record = serializeJournalRecord(
      recordedCommands([{ command: 'echo old', exitCode: 0 }], new Date()),
    );
    mkdirSync(store.paths.journal, { mode: 0o700 });
    writeFileSync(path.join(store.paths.journal, `tmp-${journalId(new Date(), `${dead}-1`)}`), record);
    await store.withLock(async () => undefined);
    expect(commandsIn(root)).toEqual(['echo old']);
    expect(existsSync(store.paths.journal)).toBe(false);
  });
});
