import { constants } from 'node:fs';
import path from 'node:path';
import { CheckpointError, describeError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import { errorCode, type StoreFs } from './fs-seam.js';
import { localProbe } from './lock-owner.js';

// The command journal's files (see core/journal.ts for what it is): a folder beside the checkpoint, one
// file per record. A record is written whole under a temp name and renamed into place, so a merge sees
// it whole or not at all, and a merge removes only the files it read: no writer waits for anyone, and
// nothing written after a merge read the folder can be removed by it. A temp file names its writer's pid:
// one a killed writer left is taken as the record it holds, if whole, or removed (issue 26).

/** Past this many waiting records the journal takes no more: the writer waits for the lock instead. */
export const JOURNAL_MAX_RECORDS = 500;
const RECORD_SUFFIX = '.json';
const TEMP_PREFIX = 'tmp-';
/**
 * A temp file this old belongs to a writer that was killed between writing and renaming it, whatever
 * its pid says now (pids are reused): it is removed. As long as JOURNAL_MEMORY_MS, past which its
 * record could no longer be taken once only (core/journal.ts).
 */
const DEAD_TEMP_MS = 10 * 60_000;
/** `tmp-<writer's pid>-<id>`. */
const TEMP_NAME = /^tmp-(\d{1,8})-([0-9a-z]{9}-[0-9a-f-]+)$/;
/** Before 2026-12-07, `tmp-<id>`, whose unique part (temp-name.ts) starts with the writer's pid. */
const OLD_TEMP_NAME = /^tmp-(([0-9a-z]{9})-(\d+)-[0-9a-f-]+)$/;
/** Why link() fails on a file system without hard links (as in lock.ts). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV']);
/** A new file only, never through a link. */
const EXCLUSIVE_WRITE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** One file of the journal: its record's id and text, or `null` text for a file that cannot be one. */
export interface JournalFile {
  name: string;
  id: string;
  text: string | null;
  /** A temp file its writer, killed, left: its record is taken if it is whole, and the file removed. */
  isLeftByDeadWriter?: boolean;
}

/**
 * Adds a record (its file's text) under `id`, 0600 and synced, in a 0700 folder it makes if needed.
 * `keepExisting`: a record already there under `id` stays (false is returned): a hook writing again the
 * record its server may have written must never replace the server's (core/journal.ts, mayRepeat).
 * `onWritten` (which must not throw) is told as soon as the record is whole and in place, before its sync.
 */
export function addJournalRecord(
  fs: StoreFs,
  dir: string,
  id: string,
  text: string,
  keepExisting = false,
  onWritten?: () => void,
): boolean {
  for (let attempt = 0; ; attempt++) {
    // The pid tells a merge whether the writer lives: a dead one's file is taken or removed.
    const temp = path.join(dir, `${TEMP_PREFIX}${process.pid}-${id}`);
    try {
      makeJournalFolder(fs, dir);
      const final = path.join(dir, `${id}${RECORD_SUFFIX}`);
      const fd = fs.openSync(temp, EXCLUSIVE_WRITE, 0o600);
      try {
        fs.writeFileSync(fd, text);
        if (onWritten && !keepExisting) {
          // Whole and in place for every reader, then told, then synced: the relay answers its Bash hook
          // without waiting for the disk (an fsync took 3 ms a hook on a busy machine). Only a crash of
          // the whole system could lose the record now, and that ends the session with it.
          fs.renameSync(temp, final);
          onWritten();
          syncQuietly(fs, fd);
          return true;
        }
        // Otherwise synced before it is renamed into place, as the checkpoint's own write is.
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      if (!keepExisting) {
        fs.renameSync(temp, final);
        return true;
      }
      // A link, which never replaces: the record already in place is the one that counts. Where the file
      // system has no hard links, a look then a rename: the writer of that id, the server, is gone.
      let isLinked: boolean;
      try {
        fs.linkSync(temp, final);
        isLinked = true;
      } catch (error) {
        if (errorCode(error) === 'EEXIST') isLinked = false;
        else if (NO_HARD_LINKS.has(errorCode(error) ?? '')) {
          if (fs.lstatSync(final, { throwIfNoEntry: false }) === undefined) {
            fs.renameSync(temp, final);
            return true;
          }
          isLinked = false;
        } else throw error;
      }
      try {
        fs.unlinkSync(temp);
      } catch {
        // A temp left over is a dead writer's copy of a record in place: a merge drops it.
      }
      return isLinked;
    } catch (error) {
      try {
        fs.unlinkSync(temp);
      } catch {
        // never created
      }
      // A merge removed the emptied folder between making it and writing into it: make it again.
      if (errorCode(error) === 'ENOENT' && attempt < 3) continue;
      if (error instanceof CheckpointError) throw error;
      throw new CheckpointError(
        'IO_FAILED',
        `could not write to the command journal ${dir}: ${describeError(error)}`,
        {
          cause: error,
        },
      );
    }
  }
}

/** A record in place and told is the journal's: a sync that fails (EIO) must not have it written again. */
function syncQuietly(fs: StoreFs, fd: number): void {
  try {
    fs.fsyncSync(fd);
  } catch {
    // left to the system's own write-back, as any unsynced write
  }
}

function makeJournalFolder(fs: StoreFs, dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
    return;
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
  }
  // Security: never write through a link the project may hold in its place.
  if (!fs.lstatSync(dir).isDirectory()) {
    throw new CheckpointError('UNSAFE_PATH', `refusing to use ${dir}: it is not a folder (a symbolic link?)`);
  }
  if (fs.readdirSync(dir).length >= JOURNAL_MAX_RECORDS) {
    throw new CheckpointError(
      'LOCKED',
      `the command journal ${dir} is full (${JOURNAL_MAX_RECORDS} records wait for the checkpoint's lock)`,
    );
  }
}

/** How many files the journal folder holds (records, and temp files being written): one readdir. */
export function countJournalFiles(fs: StoreFs, dir: string): number {
  try {
    return fs.readdirSync(dir).length;
  } catch {
    return 0;
  }
}

/** Whether the journal folder is there (with records, or a killed writer's temp file): one lstat. */
export function hasJournal(fs: StoreFs, dir: string): boolean {
  return fs.lstatSync(dir, { throwIfNoEntry: false }) !== undefined;
}

/**
 * The journal's files, with the temp files that killed writers left (their record may be whole: it was
 * written, synced, then renamed), and the temp files a merge removes along with the files it took (old
 * ones, whatever wrote them). `null` when there is no journal: one failed readdir, the usual case.
 */
export function readJournal(fs: StoreFs, dir: string): { files: JournalFile[]; removable: string[] } | null {
  let names: string[];
  try {
    // Mostly there is none: asked without an exception (issue 26).
    if (!fs.lstatSync(dir, { throwIfNoEntry: false })) return null;
    names = fs.readdirSync(dir);
  } catch {
    return null;
  }
  // Security: a link in the folder's place is not ours to read or clear.
  if (!fs.lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return null;
  const files: JournalFile[] = [];
  const removable: string[] = [];
  for (const name of names.sort()) {
    const file = path.join(dir, name);
    if (name.startsWith(TEMP_PREFIX)) {
      const stats = fs.lstatSync(file, { throwIfNoEntry: false });
      if (!stats) continue;
      if (Date.now() - stats.mtimeMs > DEAD_TEMP_MS) {
        removable.push(name);
        continue;
      }
      const left = leftBy(name);
      // A live writer may be mid-write: its file is its own until it renames it.
      if (!left || isWriterAlive(left.pid)) continue;
      const text = readRecordText(fs, file);
      if (text !== undefined) files.push({ name, id: left.id, text, isLeftByDeadWriter: true });
      continue;
    }
    if (!name.endsWith(RECORD_SUFFIX)) continue;
    const text = readRecordText(fs, file);
    // A file that could not be read this time stays for the next merge.
    if (text === undefined) continue;
    files.push({ name, id: name.slice(0, -RECORD_SUFFIX.length), text });
  }
  return { files, removable };
}

/** The writer's pid and the record's id a temp file's name gives. */
function leftBy(name: string): { pid: number; id: string } | null {
  const current = TEMP_NAME.exec(name);
  if (current) return { pid: Number(current[1]), id: current[2] as string };
  const old = OLD_TEMP_NAME.exec(name);
  return old ? { pid: Number(old[3]), id: old[1] as string } : null;
}

function isWriterAlive(pid: number): boolean {
  return pid === process.pid || localProbe().isAlive(pid);
}

/** The file's text; `null` for what cannot be a record (not a plain file, too big); `undefined` on a read error. */
function readRecordText(fs: StoreFs, file: string): string | null | undefined {
  try {
    const stats = fs.lstatSync(file);
    if (!stats.isFile() || stats.size > LIMITS.fileBytes) return null;
    const fd = fs.openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Removes what a merge took, then the folder if nothing else came meanwhile. */
export function clearJournal(fs: StoreFs, dir: string, names: readonly string[]): void {
  for (const name of names) {
    try {
      fs.unlinkSync(path.join(dir, name));
    } catch {
      // gone already
    }
  }
  try {
    fs.rmdirSync(dir);
  } catch {
    // a record came meanwhile, or the folder is gone
  }
}
