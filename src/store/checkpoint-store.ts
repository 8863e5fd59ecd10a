import { isUtf8 } from 'node:buffer';
import path from 'node:path';
import { parseCheckpointPlainly } from '../core/checkpoint-fast-read.js';
import { CheckpointError, describeError, isCheckpointError } from '../core/errors.js';
import type { JournalRecord } from '../core/journal.js';
import { LIMITS } from '../core/limits.js';
import { describeOverLimits, fieldsOverLimits, type OverLimit } from '../core/over-limits.js';
import { CHECKPOINT_FILE } from '../core/paths.js';
import type { Checkpoint } from '../core/schema.js';
import { notUtf8 } from '../core/utf8-input.js';
import { prepareFileWrite, refuseSymlink, writeFileAtomic } from './atomic-write.js';
import {
  addJournalRecord,
  clearJournal,
  countJournalFiles,
  hasJournal,
  type JournalFile,
  readJournal,
} from './command-journal.js';
import { errorCode, nodeFs, type StoreFs } from './fs-seam.js';
import { withFileLock } from './lock.js';
import { ParsedFileMemo } from './parsed-memo.js';
import { uniqueSuffix } from './temp-name.js';

/** How many damaged files a project keeps beside its checkpoint before a write asks for some to go. */
const MAX_DAMAGED_COPIES = 20;

export interface CheckpointPaths {
  main: string;
  backup: string;
  lock: string;
  /** The command journal: records that wait for the lock (core/journal.ts). */
  journal: string;
  /** Where a write keeps an unusable main file it replaces (a bad hand edit), so it is never lost. */
  damaged: string;
}

export function checkpointPaths(root: string): CheckpointPaths {
  const main = path.join(root, CHECKPOINT_FILE);
  return {
    main,
    backup: `${main}.prev`,
    lock: `${main}.lock`,
    journal: `${main}.journal`,
    damaged: `${main}.damaged`,
  };
}

/** What reading one file gave: its checkpoint, nothing, or why it cannot be used. */
type FileRead =
  | { kind: 'ok'; checkpoint: Checkpoint; text: string; notUtf8?: string }
  | { kind: 'missing' }
  | { kind: 'bad'; error: CheckpointError };

/** The checkpoint file and its backup as they are on disk, byte for byte, usable or not (null: not there). */
export interface CheckpointFiles {
  main: Buffer | null;
  prev: Buffer | null;
}

export type LoadResult =
  | { found: false; path: string }
  | { found: true; path: string; checkpoint: Checkpoint; fromBackup: boolean; notices: string[] };

/**
 * Checkpoints parsed lately: a save reads the checkpoint at its start and again just before replacing it,
 * and a server reads it on every save and load; unchanged bytes are not parsed again.
 */
const parsedCheckpoints = new ParsedFileMemo<Checkpoint | null>();

/**
 * The `.claude-checkpoint` file and its `.prev` backup. Reads fall back to the backup when the main file
 * is missing or corrupt; writes keep the last valid file as the backup and never replace a good backup
 * with a corrupt file.
 */
export class CheckpointStore {
  readonly paths: CheckpointPaths;
  /** While this store holds the lock, loads show the file alone: the journal is merged as the lock is taken and let go. */
  private isHoldingLock = false;

  constructor(
    readonly root: string,
    private readonly fs: StoreFs = nodeFs,
  ) {
    this.paths = checkpointPaths(root);
  }

  /** Whether there may be a checkpoint to load: the file or its backup is there (one lstat each, no read). */
  async mayExist(): Promise<boolean> {
    const present = (file: string) => this.fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined;
    return present(this.paths.main) || present(this.paths.backup);
  }

  /**
   * The checkpoint, from the backup if the file is unusable. Without the lock, with the journal's waiting
   * records in it, as the lock's next holder will write them (nothing is written here).
   */
  async load(): Promise<LoadResult> {
    let loaded: LoadResult;
    let files: JournalFile[];
    for (let attempt = 0; ; attempt++) {
      const before = this.fileIdentity();
      loaded = await this.loadFile();
      if (!loaded.found || this.isHoldingLock) return loaded;
      files = readJournal(this.fs, this.paths.journal)?.files ?? [];
      // A merge writes the file, then clears the records it merged: one that ran between the two reads
      // left them in neither (a relayed Bash hook, answered once its record is journaled, is merged right
      // after). Every write renames a new file into place, so its identity tells.
      if (this.fileIdentity() === before || attempt >= 3) break;
    }
    if (files.length === 0) return loaded;
    const journal = await import('../core/journal.js');
    const merged = journal.applyJournal(loaded.checkpoint, takeRecords(journal, files).records, new Date());
    return merged.changed ? { ...loaded, checkpoint: merged.checkpoint } : loaded;
  }

  /** The checkpoint file's inode, time and size; '' when there is none. */
  private fileIdentity(): string {
    const stats = this.fs.lstatSync(this.paths.main, { throwIfNoEntry: false });
    return stats ? `${stats.ino}:${stats.mtimeMs}:${stats.size}` : '';
  }

  private async loadFile(): Promise<LoadResult> {
    const chosen = await this.chooseFile();
    if (chosen === null) return { found: false, path: this.paths.main };
    const { checkpoint } = chosen.read;
    if (chosen.mainProblem === null) {
      return {
        found: true,
        path: this.paths.main,
        checkpoint,
        fromBackup: false,
        notices: [
          ...notUtf8Notice(chosen.read.notUtf8, this.paths.main),
          ...overLimitNotice(checkpoint, this.paths.main),
          ...this.damagedNotice(),
        ],
      };
    }
    return {
      found: true,
      path: this.paths.main,
      checkpoint,
      fromBackup: true,
      notices: [
        `${chosen.mainProblem}; loaded the backup ${path.basename(this.paths.backup)} from ${checkpoint.updatedAt}.`,
        ...notUtf8Notice(chosen.read.notUtf8, this.paths.backup),
        ...overLimitNotice(checkpoint, this.paths.backup),
        ...this.damagedNotice(),
      ],
    };
  }

  /**
   * The file a load reads: the main file, else its valid backup with why the main file is not used
   * (`mainProblem`); null when there is neither. Throws when the main file is damaged and the backup
   * cannot stand in for it.
   */
  private async chooseFile(): Promise<{
    read: { checkpoint: Checkpoint; text: string; notUtf8?: string };
    mainProblem: string | null;
  } | null> {
    const main = await this.readOne(this.paths.main);
    if (main.kind === 'ok') return { read: main, mainProblem: null };
    // A newer tool's file is not damage: falling back would hide newer state behind older.
    if (main.kind === 'bad' && main.error.code !== 'CORRUPT') throw main.error;

    const backup = await this.readOne(this.paths.backup);
    if (backup.kind === 'ok') {
      const mainProblem =
        main.kind === 'missing'
          ? 'The checkpoint file is missing (a save was interrupted?)'
          : `The checkpoint file ${path.basename(this.paths.main)} is unusable (${main.error.message})`;
      return { read: backup, mainProblem };
    }
    if (main.kind === 'missing') {
      if (backup.kind === 'bad' && backup.error.code !== 'CORRUPT') throw backup.error;
      return null;
    }
    const noBackup =
      backup.kind === 'bad'
        ? `its backup ${path.basename(this.paths.backup)} is unusable too (${backup.error.message})`
        : 'there is no backup';
    throw new CheckpointError(
      'CORRUPT',
      `${this.paths.main} is unusable (${main.error.message}) and ${noBackup}: fix it by hand, or delete it and save a new checkpoint`,
    );
  }

  /**
   * The text of the checkpoint a load gives, as it is on disk, and why it is the backup's (null: it is
   * the main file's); null when there is no checkpoint. Throws as a load does when neither file is
   * usable. For a caller that sends it on as it is (a handoff's push).
   */
  async readLoadedText(): Promise<{ text: string; mainProblem: string | null } | null> {
    const chosen = await this.chooseFile();
    return chosen === null ? null : { text: chosen.read.text, mainProblem: chosen.mainProblem };
  }

  /**
   * The text of the checkpoint a load gives (the main file, else its valid backup), as it is on disk, or
   * null when there is none. For a caller that replaces it and keeps it, holding the lock.
   */
  async readCurrentText(): Promise<string | null> {
    for (const file of [this.paths.main, this.paths.backup]) {
      const read = await this.readOne(file);
      if (read.kind === 'ok') return read.text;
      // A newer tool's file is not damage: never replaced by what is behind it (see loadFile).
      if (read.kind === 'bad' && read.error.code !== 'CORRUPT') throw read.error;
    }
    return null;
  }

  /**
   * The checkpoint file and its backup byte for byte, usable or not, for a caller that replaces or removes
   * them and keeps them (a pull's safety snapshot), holding the lock: a damaged file is kept too.
   */
  async readFiles(): Promise<CheckpointFiles> {
    return { main: this.readBytes(this.paths.main), prev: this.readBytes(this.paths.backup) };
  }

  /**
   * Puts both files back as `files` holds them, byte for byte (null: removes it), for a caller that holds
   * the lock and has kept the ones here (the undo of a pull). The backup first: a write cut short leaves
   * the checkpoint as it was.
   */
  async writeFilesLocked(files: CheckpointFiles): Promise<void> {
    this.removeStaleTempFiles();
    for (const [file, bytes] of [
      [this.paths.backup, files.prev],
      [this.paths.main, files.main],
    ] as const) {
      if (bytes !== null) {
        writeFileAtomic(this.fs, file, bytes);
        continue;
      }
      try {
        this.fs.unlinkSync(file);
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
      }
    }
  }

  /**
   * Writes `text` (an already validated, serialized checkpoint) as the new main file. The current main
   * file becomes the backup only if it is valid. Serialized across processes by a lock file.
   */
  async write(text: string): Promise<void> {
    await this.withLock(() => this.writeLocked(text));
  }

  /**
   * Runs `task` holding the cross-process lock, for read-modify-write sequences such as merge saves.
   * The command journal is merged as the lock is taken and as it is let go, and records that came while
   * it was let go are seen to after (see mergeArrivals).
   */
  async withLock<T>(task: () => Promise<T>, options: { waitMs?: number } = {}): Promise<T> {
    const { result } = await withFileLock(this.paths.lock, () => this.holding(task), options);
    await this.mergeArrivals();
    return result;
  }

  /**
   * Adds a record (core/journal.ts: its id and its text, redacted) to the command journal, for when the
   * lock is busy: no lock, no wait. Throws when the journal cannot take it (full, or not a folder of ours).
   * False when `keepExisting` found a record under `id` already; `onWritten` is told once the record is
   * whole and in place, before its sync (see addJournalRecord).
   */
  addToJournal(id: string, text: string, keepExisting = false, onWritten?: () => void): boolean {
    return addJournalRecord(this.fs, this.paths.journal, id, text, keepExisting, onWritten);
  }

  /** How many records wait in the command journal (with temp files being written): one readdir. */
  waitingInJournal(): number {
    return countJournalFiles(this.fs, this.paths.journal);
  }

  /**
   * Merges the journal if the lock is free; false when another process holds it, which merges the
   * journal as it lets go (records written before that process let go) or after (records written while
   * it did). Either way, a record written before this call is merged without anyone waiting for it.
   */
  async mergeJournalNow(): Promise<boolean> {
    if ((await this.mergeOnce()) === null) return false;
    await this.mergeArrivals();
    return true;
  }

  /**
   * After letting the lock go: records written meanwhile by processes that found it busy and left are
   * merged now, if the lock is free, or by the process holding it, which took it after they wrote and
   * merged as it did. One failed readdir when there are none, the usual case.
   */
  private async mergeArrivals(): Promise<void> {
    for (let round = 0; round < 20 && hasJournal(this.fs, this.paths.journal); round++) {
      const merged = await this.mergeOnce();
      // Busy: the holder merges them. None merged: no checkpoint yet (the first save merges them).
      if (!merged) return;
    }
  }

  /** Takes the lock if it is free, merges the journal, lets go: the records merged, `null` when busy. */
  private async mergeOnce(): Promise<number | null> {
    try {
      const held = await withFileLock(this.paths.lock, () => this.holding(async () => undefined), {
        waitMs: 0,
      });
      return held.merged;
    } catch (error) {
      if (isCheckpointError(error, 'LOCKED')) return null;
      throw error;
    }
  }

  /** Runs `task` under the lock, with the journal merged before and after it (`merged`: how many records). */
  private async holding<T>(task: () => Promise<T>): Promise<{ result: T; merged: number }> {
    this.isHoldingLock = true;
    try {
      const before = await this.mergeJournal();
      let result: T;
      try {
        result = await task();
      } catch (error) {
        await this.mergeJournal();
        throw error;
      }
      return { result, merged: before + (await this.mergeJournal()) };
    } finally {
      this.isHoldingLock = false;
    }
  }

  /**
   * Under the lock: writes the journal's records into the checkpoint, then removes them; how many it
   * took. A record the checkpoint holds already (`meta.journaled`: a merge stopped between the two) is
   * only removed. Never throws: whatever fails, the records stay for the lock's next holder.
   */
  private async mergeJournal(): Promise<number> {
    try {
      const found = readJournal(this.fs, this.paths.journal);
      if (found === null) return 0;
      const { files, removable } = found;
      const journal = await import('../core/journal.js');
      const taken = takeRecords(journal, files);
      if (files.length > 0) {
        const loaded = await this.loadFile();
        // No checkpoint yet: the records wait for the first save, which merges them as it lets go.
        if (!loaded.found) return 0;
        const merged = journal.applyJournal(loaded.checkpoint, taken.records, new Date());
        if (merged.changed) await this.writeLocked(merged.serialized, merged.checkpoint);
      }
      clearJournal(this.fs, this.paths.journal, [...taken.names, ...removable]);
      return taken.names.length;
    } catch {
      return 0;
    }
  }

  /**
   * The body of `write`, for callers that already hold the lock. `parsed` is the checkpoint `text` was
   * serialized from, if the caller has it: the next read of these bytes then needs no parse. `onInPlace`
   * is told once the new content is synced and in place, before the folder's sync (PreparedWrite).
   */
  async writeLocked(
    text: string,
    parsed?: Checkpoint,
    onInPlace?: () => void,
  ): Promise<{
    keptDamaged: string | null;
    keptDamagedBackup: string | null;
    keptOverLimits: string | null;
    keptNotUtf8: string | null;
  }> {
    this.removeStaleTempFiles();
    refuseSymlink(this.fs, this.paths.backup);
    const current = await this.readOne(this.paths.main);
    if (current.kind === 'bad' && current.error.code === 'UNSUPPORTED_VERSION') {
      throw new CheckpointError(
        'UNSUPPORTED_VERSION',
        `${current.error.message}; refusing to overwrite a checkpoint written by a newer version`,
      );
    }
    // A folder (or a FIFO) where the file goes: a rename cannot replace it, and its content is not ours.
    const where = this.fs.lstatSync(this.paths.main, { throwIfNoEntry: false });
    if (where && !where.isFile() && !where.isSymbolicLink()) {
      throw new CheckpointError(
        'IO_FAILED',
        `${this.paths.main} is ${where.isDirectory() ? 'a folder' : 'not a regular file'}, where the checkpoint file goes: nothing was written; move it aside, then save again`,
      );
    }
    // The new content on disk first, then the backup, then the rename: a save that fails (a full disk)
    // changes nothing, the backup included (adversarial trial, 2026-12-06).
    const prepared = prepareFileWrite(this.fs, this.paths.main, text);
    let keptDamaged: string | null = null;
    let keptDamagedBackup: string | null = null;
    let keptOverLimits: string | null = null;
    let keptNotUtf8: string | null = null;
    try {
      if (current.kind === 'ok') {
        // A hand edit over the limits that this write cuts (a merge carries it over cut) is kept whole as a
        // damaged file is: as the backup only, the write after this one would lose it.
        const over = fieldsOverLimits(current.checkpoint);
        if (over.length > 0 && isCutBy(over, parsed ?? (await parseWritten(text))))
          keptOverLimits = this.keepDamaged(this.paths.main);
        // Bytes that are not UTF-8 were read as U+FFFD: the file as it was is kept, once, before this write.
        else if (current.notUtf8 !== undefined) keptNotUtf8 = this.keepDamaged(this.paths.main);
        // A damaged backup (a bad hand edit, a cut file) is someone's bytes too: kept before it is replaced.
        keptDamagedBackup = (await this.isBackupDamaged()) ? this.keepDamaged(this.paths.backup) : null;
        this.keepAsBackup(current.text, current.notUtf8 !== undefined);
        parsedCheckpoints.remember(this.paths.backup, current.text, current.checkpoint);
      }
      // A damaged file never becomes the backup (a good one stays), but its bytes may be someone's hand
      // edit: they are kept beside it, not lost under the new write.
      else if (current.kind === 'bad' && current.error.code === 'CORRUPT')
        keptDamaged = this.keepDamaged(this.paths.main);
    } catch (error) {
      prepared.discard();
      throw error;
    }
    prepared.commit(onInPlace);
    if (parsed) parsedCheckpoints.remember(this.paths.main, text, parsed);
    return { keptDamaged, keptDamagedBackup, keptOverLimits, keptNotUtf8 };
  }

  /**
   * Keeps an unusable checkpoint file (`source`: the main file, or the backup a write replaces) beside it
   * under the first free name of `.damaged`, `.damaged-2`, … (a hard link made where nothing is, so no
   * copy, no rename over anything and no link followed), 0600. Never replaces an earlier copy: each may be
   * a hand edit of its own. The name it took; null when `source` is not a regular file.
   */
  private keepDamaged(source: string): string | null {
    if (!this.fs.lstatSync(source, { throwIfNoEntry: false })?.isFile()) return null;
    for (let copy = 1; copy <= MAX_DAMAGED_COPIES; copy++) {
      const target = this.damagedCopy(copy);
      try {
        try {
          this.fs.linkSync(source, target);
        } catch (error) {
          if (errorCode(error) === 'EEXIST') throw error;
          // No hard links here: a copy, made only where nothing is.
          this.fs.writeFileSync(target, this.fs.readFileSync(source) as Buffer, {
            flag: 'wx',
            mode: 0o600,
          });
        }
      } catch (error) {
        if (errorCode(error) === 'EEXIST') continue;
        throw new CheckpointError(
          'IO_FAILED',
          `could not keep the damaged ${source} as ${target}: ${describeError(error)}`,
          { cause: error },
        );
      }
      // A hand edit may have left it readable by others; the copy is as private as the checkpoint.
      const fd = this.fs.openSync(target, 'r');
      try {
        this.fs.fchmodSync(fd, 0o600);
      } finally {
        this.fs.closeSync(fd);
      }
      return path.basename(target);
    }
    throw new CheckpointError(
      'IO_FAILED',
      `${source} is unusable and ${MAX_DAMAGED_COPIES} damaged copies are already kept beside it (${path.basename(this.paths.damaged)}, ${path.basename(this.paths.damaged)}-2, …): delete the ones you no longer need, then try again`,
    );
  }

  /** Whether the backup is a regular file that cannot be used (a newer version's is not damage). */
  private async isBackupDamaged(): Promise<boolean> {
    if (!this.fs.lstatSync(this.paths.backup, { throwIfNoEntry: false })?.isFile()) return false;
    const backup = await this.readOne(this.paths.backup);
    // One read with U+FFFD in place of bytes that are not UTF-8 is not what is on disk either.
    return (
      (backup.kind === 'bad' && backup.error.code === 'CORRUPT') ||
      (backup.kind === 'ok' && backup.notUtf8 !== undefined)
    );
  }

  /** The name of the `copy`th damaged file kept beside the checkpoint: `.damaged`, `.damaged-2`, … */
  private damagedCopy(copy: number): string {
    return copy === 1 ? this.paths.damaged : `${this.paths.damaged}-${copy}`;
  }

  /**
   * The notice a load gives while damaged files are kept beside the checkpoint (see keepDamaged), naming
   * each: `.damaged` and `.damaged-2` are looked for, and each next name while the one before is there
   * (writes take the first free name, so a later copy follows one, or a gap the user made by deleting one).
   */
  private damagedNotice(): string[] {
    const kept: string[] = [];
    for (let copy = 1; copy <= MAX_DAMAGED_COPIES; copy++) {
      const file = this.damagedCopy(copy);
      const stats = this.fs.lstatSync(file, { throwIfNoEntry: false });
      if (stats?.isFile()) kept.push(path.basename(file));
      else if (!stats && copy > 1) break;
    }
    if (kept.length === 0) return [];
    const names = kept.join(', ');
    return [
      kept.length === 1
        ? `A checkpoint file that a write replaced (damaged, or cut to its limits) is kept as ${names}: copy what you need from it, then delete it.`
        : `Checkpoint files that writes replaced (damaged, or cut to their limits) are kept as ${names}: copy what you need from them, then delete them.`,
    ];
  }

  /**
   * Removes the checkpoint and its backup, for a caller that holds the lock and has kept the text a load
   * gave (the undo of a pull onto a machine that had none). The backup goes first: a removal cut short
   * leaves the checkpoint as it was, never its older backup in its place.
   */
  async removeLocked(): Promise<void> {
    this.removeStaleTempFiles();
    for (const file of [this.paths.backup, this.paths.main]) {
      try {
        this.fs.unlinkSync(file);
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
      }
    }
  }

  /**
   * Makes the current (valid) file the backup: a hard link to it, renamed over `.prev`, costs no data
   * write and no fsync of its own (the main file's write syncs the folder, making both renames durable).
   * Where hard links are not supported, the content is copied.
   */
  private keepAsBackup(currentText: string, asRead = false): void {
    // A file read with U+FFFD in place of some bytes (kept as it was beside it) is backed up as read: as
    // it was, the next write would find a backup that is not UTF-8 and keep it again.
    if (asRead) {
      writeFileAtomic(this.fs, this.paths.backup, currentText);
      return;
    }
    const temp = `${this.paths.backup}.tmp-${uniqueSuffix()}`;
    const removeTemp = () => {
      try {
        this.fs.unlinkSync(temp);
      } catch {
        // not there
      }
    };
    try {
      this.fs.linkSync(this.paths.main, temp);
      this.fs.renameSync(temp, this.paths.backup);
      // When `.prev` already is the main file (a save killed between its two renames), rename does nothing
      // and leaves the temp link behind: remove it.
      removeTemp();
    } catch {
      removeTemp();
      writeFileAtomic(this.fs, this.paths.backup, currentText);
    }
  }

  /**
   * Temp files left by a save that was killed midway. Every save writes its temp files holding the lock
   * the caller holds now, so any found here are leftovers, whatever pid their name carries (a killed
   * writer's pid may already belong to another process).
   */
  private removeStaleTempFiles(): void {
    let names: string[];
    try {
      names = this.fs.readdirSync(this.root);
    } catch {
      return;
    }
    for (const name of names) {
      if (!/^\.claude-checkpoint(?:\.prev)?\.tmp-\d+-[0-9a-f]+$/.test(name)) continue;
      try {
        this.fs.unlinkSync(path.join(this.root, name));
      } catch {
        // gone already
      }
    }
  }

  private readBytes(file: string): Buffer | null {
    const stats = this.fs.lstatSync(file, { throwIfNoEntry: false });
    if (stats === undefined) return null;
    if (!stats.isFile()) {
      throw new CheckpointError(
        'UNSAFE_PATH',
        `${file} is not a regular file, so it cannot be kept to be brought back: move it aside and try again`,
      );
    }
    if (stats.size > LIMITS.readBytes) {
      throw new CheckpointError(
        'CORRUPT',
        `${file} is ${stats.size} bytes, over the ${LIMITS.readBytes}-byte limit of what can be kept to be brought back: move it aside and try again`,
      );
    }
    return this.fs.readFileSync(file) as Buffer;
  }

  private async readOne(file: string): Promise<FileRead> {
    try {
      const stats = this.fs.lstatSync(file);
      if (stats.isSymbolicLink()) {
        return {
          kind: 'bad',
          error: new CheckpointError('UNSAFE_PATH', `refusing to read ${file}: it is a symbolic link`),
        };
      }
      if (!stats.isFile()) {
        // The file is named by whoever reports this ("<file> is unusable (…)"), not twice.
        const what = stats.isDirectory() ? 'it is a folder, not a regular file' : 'it is not a regular file';
        return { kind: 'bad', error: new CheckpointError('CORRUPT', what) };
      }
      if (stats.size > LIMITS.readBytes) {
        return {
          kind: 'bad',
          error: new CheckpointError(
            'CORRUPT',
            `file is ${stats.size} bytes, far over the ${LIMITS.fileBytes}-byte cap`,
          ),
        };
      }
      const bytes = this.fs.readFileSync(file) as Buffer;
      // UTF-8, named by no argument: `toString('utf8')` compiles Buffer's table of encodings in each status.
      const text = bytes.toString();
      // Bytes that are not UTF-8 (one Latin-1 character typed by hand) decode to U+FFFD. The checkpoint is
      // still read, so that one such byte does not send a load, and an automatic save, back to the older
      // backup; the load says so, and the next save keeps the file as it was (see writeLocked). A file
      // that is not a checkpoint even so (UTF-16 text) is damaged, and named as not UTF-8.
      const badBytes = isUtf8(bytes) ? undefined : (notUtf8(bytes) ?? undefined);
      try {
        // zod loads only for a file the plain check refuses, to decide and say what is wrong with it.
        const checkpoint =
          parsedCheckpoints.parse(file, text, parseCheckpointPlainly) ??
          (await import('../core/schema.js')).parseCheckpoint(text);
        return { kind: 'ok', checkpoint, text, ...(badBytes !== undefined ? { notUtf8: badBytes } : {}) };
      } catch (error) {
        if (badBytes === undefined || !isCheckpointError(error) || error.code !== 'CORRUPT') throw error;
        return { kind: 'bad', error: new CheckpointError('CORRUPT', `it is not UTF-8 text: ${badBytes}`) };
      }
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return { kind: 'missing' };
      if (isCheckpointError(error)) return { kind: 'bad', error };
      throw new CheckpointError('IO_FAILED', `could not read ${file}: ${describeError(error)}`, {
        cause: error,
      });
    }
  }
}

/** The records among the journal's files, and the names a merge of them removes (newer versions' stay). */
function takeRecords(
  journal: typeof import('../core/journal.js'),
  files: readonly JournalFile[],
): { records: JournalRecord[]; names: string[] } {
  const records: JournalRecord[] = [];
  const names: string[] = [];
  for (const file of files) {
    const record = journal.parseJournalRecord(file.id, file.text);
    if (record === 'newer') continue;
    // A killed writer's temp file: its writer's hook may have written the record again (JournalRecord.mayRepeat).
    if (record) records.push(file.isLeftByDeadWriter ? { ...record, mayRepeat: true } : record);
    names.push(file.name);
  }
  return { records, names };
}

/** Whether `written` no longer holds all of these fields over their limits (the file's it replaces): it cut some. */
function isCutBy(over: readonly OverLimit[], written: Checkpoint): boolean {
  const still = new Set(fieldsOverLimits(written).map(({ field, got }) => `${field} ${got}`));
  return over.some(({ field, got }) => !still.has(`${field} ${got}`));
}

async function parseWritten(text: string): Promise<Checkpoint> {
  return parseCheckpointPlainly(text) ?? (await import('../core/schema.js')).parseCheckpoint(text);
}

const OVER_LIMITS = 'holds fields over their limits (a hand edit?)';

const NOT_ALL_UTF8 = 'is not all UTF-8 text';

/** Whether `notice` is a load's notice of bytes that are not UTF-8 (see notUtf8Notice). */
export function isNotUtf8Notice(notice: string): boolean {
  return notice.includes(NOT_ALL_UTF8);
}

/** What a load says of a file read with U+FFFD in place of bytes that are not UTF-8, and what a save does. */
function notUtf8Notice(notUtf8: string | undefined, file: string): string[] {
  if (notUtf8 === undefined) return [];
  return [
    `${path.basename(file)} ${NOT_ALL_UTF8} (${notUtf8}): it was read with U+FFFD in place of such bytes. A save keeps the file as it is beside it, as ${CHECKPOINT_FILE}.damaged (or -2, -3, …).`,
  ];
}

/** What a load says of a file with fields over their limits (a hand edit): which, and what a save does. */
function overLimitNotice(checkpoint: Checkpoint, file: string): string[] {
  const over = fieldsOverLimits(checkpoint);
  if (over.length === 0) return [];
  return [
    `${path.basename(file)} ${OVER_LIMITS}: ${describeOverLimits(over)}. A save cuts them to their limits and keeps the file as it is beside it, as ${CHECKPOINT_FILE}.damaged (or -2, -3, …).`,
  ];
}

/** Whether `notice` is a load's notice of fields over their limits (see overLimitNotice). */
export function isOverLimitNotice(notice: string): boolean {
  return notice.includes(OVER_LIMITS);
}
