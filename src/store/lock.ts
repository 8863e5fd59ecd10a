import { closeSync, constants, linkSync, lstatSync, openSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import { errorCode, readTextOrNull, removeQuietly } from './fs-seam.js';
import { judgeLockOwner, localProbe, ownerRecord, type ProcessProbe } from './lock-owner.js';
import { uniqueSuffix } from './temp-name.js';

/** Runs tasks one at a time per key, in call order: parallel tool calls cannot interleave a read-modify-write. */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

export interface FileLockOptions {
  /** Give up after one live owner has held the lock this long while we waited. */
  timeoutMs?: number;
  /**
   * Give up after this long in all, however often the lock changes hands meanwhile. 0 tries once (a
   * dead owner's lock is still taken over).
   */
  waitMs?: number;
  /** Where the owner cannot be checked (another machine or pid namespace), a lock older than this is dead. */
  staleMs?: number;
  /** How this machine answers questions about pids; tests pass their own. */
  probe?: ProcessProbe;
  /** Told once the lock is held: whether it was taken at the first try (no one held it then). */
  onTaken?: (atFirstTry: boolean) => void;
}

/** What the lock's temp files are called, so leftovers of killed processes can be recognised. */
export function lockTempPrefix(lockPath: string): string {
  return `${path.basename(lockPath)}.tmp-`;
}

/**
 * A lock across processes (agent sessions, hooks, the server, the CLI). The owner record is written
 * whole to a temp file, then hard-linked to the lock's name: link() fails with EEXIST when the lock is
 * taken and otherwise makes it appear with its full content, so no kill can leave a lock without a
 * readable owner. A lock whose owner is dead (by pid and start time, or from before a reboot) is taken
 * over at once; see judgeLockOwner for the rules.
 *
 * Its file calls are synchronous: a handful of calls on small files, which every save, hook and snapshot
 * makes before anything else, cost several times less than as many round trips through the thread pool.
 */
export async function withFileLock<T>(
  lockPath: string,
  task: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const probe = options.probe ?? localProbe();
  const giveUpAt = options.waitMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.waitMs;
  let deadline = Date.now() + timeoutMs;
  let holder: string | null = null;
  let delayMs = 2;
  for (let tries = 1; ; tries++) {
    if (tryAcquire(lockPath)) {
      options.onTaken?.(tries === 1);
      break;
    }
    refuseNonLock(lockPath);
    // The wait counts per owner: a lock that changes hands is making progress, however many are queued
    // on a busy machine (issue 26: four processes of 50 saves each gave up under load).
    const record = readTextOrNull(lockPath);
    if (record !== holder) {
      holder = record;
      deadline = Date.now() + timeoutMs;
    }
    const dead = deadOwnerRecord(lockPath, probe, staleMs);
    if (dead !== null) {
      // Remove it only if it is still the record we judged: another process may have taken the lock over
      // since, and its record differs (pid, time, start). The window left is a few microseconds wide.
      if (readTextOrNull(lockPath) === dead) removeQuietly(lockPath);
      continue;
    }
    const now = Date.now();
    if (now > deadline || now >= giveUpAt) {
      const held = now > deadline ? `for more than ${timeoutMs} ms` : `(waited ${options.waitMs} ms)`;
      throw new CheckpointError(
        'LOCKED',
        `another process holds ${lockPath} ${held}; if no other checkpoint tool is running, delete that file`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs + Math.random() * delayMs));
    delayMs = Math.min(delayMs * 2, 50);
  }
  try {
    removeDeadTempFiles(lockPath, probe);
    return await task();
  } finally {
    removeQuietly(lockPath);
  }
}

/**
 * A lock is a plain file: a link (dangling or not), a folder or anything else in its place is no owner's
 * lock and will never be released, so waiting on it would only end in a wrong "another process holds"
 * (adversarial trial, 2026-12-06). Say what is there instead.
 */
function refuseNonLock(lockPath: string): void {
  const stats = lstatSync(lockPath, { throwIfNoEntry: false });
  if (stats === undefined || stats.isFile()) return;
  const what = stats.isSymbolicLink()
    ? 'a symbolic link'
    : stats.isDirectory()
      ? 'a folder'
      : 'not a plain file';
  throw new CheckpointError(
    'UNSAFE_PATH',
    `${lockPath} is ${what}, not a lock file: no checkpoint tool made it; remove it and try again`,
  );
}

function tryAcquire(lockPath: string): boolean {
  const temp = path.join(path.dirname(lockPath), `${lockTempPrefix(lockPath)}${uniqueSuffix()}`);
  const record = JSON.stringify(ownerRecord(Date.now()));
  try {
    createExclusive(temp, record);
    try {
      linkSync(temp, lockPath);
    } catch (error) {
      // File systems without hard links: create the lock itself exclusively. A kill between creating and
      // writing it leaves an empty lock, which judgeLockOwner takes over after GARBLED_GRACE_MS.
      if (!NO_HARD_LINKS.has(errorCode(error) ?? '')) throw error;
      createExclusive(lockPath, record);
    }
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw new CheckpointError('IO_FAILED', `could not create lock ${lockPath}: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    removeQuietly(temp);
  }
}

const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV']);

function createExclusive(file: string, text: string): void {
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** The lock file's content when its owner is gone, else `null` (also when the lock was released meanwhile). */
function deadOwnerRecord(lockPath: string, probe: ProcessProbe, staleMs: number): string | null {
  const text = readTextOrNull(lockPath);
  const stats = lstatSync(lockPath, { throwIfNoEntry: false });
  if (text === null || stats === undefined) return null;
  const now = Date.now();
  const verdict = judgeLockOwner(text, { probe, now, ageMs: now - stats.mtimeMs, staleMs });
  return verdict.held ? null : text;
}

/** Temp files of this lock whose writer was killed between writing and linking them. */
function removeDeadTempFiles(lockPath: string, probe: ProcessProbe): void {
  const dir = path.dirname(lockPath);
  const prefix = lockTempPrefix(lockPath);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1]);
    if (Number.isSafeInteger(pid) && !probe.isAlive(pid)) removeQuietly(path.join(dir, name));
  }
}
