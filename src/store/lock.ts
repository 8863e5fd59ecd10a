import { constants } from 'node:fs';
import { CheckpointError } from '../core/errors.js';
import { errorCode, type StoreFs } from './fs-seam.js';

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
  /** Give up after this long. */
  timeoutMs?: number;
  /** A lock older than this is taken to be left by a crashed process. */
  staleMs?: number;
}

interface LockOwner {
  pid: number;
  at: number;
}

/**
 * A lock across processes (two agent sessions, a hook and the server, the CLI): a file created with
 * O_EXCL holding the owner's pid. Locks left by dead processes, or older than `staleMs`, are taken over.
 */
export async function withFileLock<T>(
  fs: StoreFs,
  lockPath: string,
  task: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let delayMs = 5;
  for (;;) {
    if (await tryAcquire(fs, lockPath)) break;
    const stale = await staleContent(fs, lockPath, staleMs);
    if (stale !== null) {
      // Remove it only if it is still the file we judged stale: another process may have taken it over
      // since, and its fresh lock differs (pid and time). The window left is a few microseconds wide.
      const now = await fs.readFile(lockPath, 'utf8').catch(() => null);
      if (now === stale) await fs.unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) {
      throw new CheckpointError(
        'LOCKED',
        `another process holds ${lockPath} for more than ${timeoutMs} ms; if no other checkpoint tool is running, delete that file`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs + Math.random() * delayMs));
    delayMs = Math.min(delayMs * 2, 100);
  }
  try {
    return await task();
  } finally {
    await fs.unlink(lockPath).catch(() => undefined);
  }
}

async function tryAcquire(fs: StoreFs, lockPath: string): Promise<boolean> {
  try {
    const handle = await fs.open(
      lockPath,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      const owner: LockOwner = { pid: process.pid, at: Date.now() };
      await handle.writeFile(JSON.stringify(owner));
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw new CheckpointError('IO_FAILED', `could not create lock ${lockPath}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The lock file's content when its owner is gone or it is too old, else `null`. */
async function staleContent(fs: StoreFs, lockPath: string, staleMs: number): Promise<string | null> {
  let text: string;
  try {
    text = await fs.readFile(lockPath, 'utf8');
  } catch {
    return null; // released meanwhile: just retry
  }
  let owner: Partial<LockOwner> = {};
  try {
    owner = JSON.parse(text) as Partial<LockOwner>;
  } catch {
    // Half-written by an owner that is creating it right now, or left by a crash: judge by age.
    const stats = await fs.lstat(lockPath).catch(() => null);
    return stats !== null && Date.now() - stats.mtimeMs > staleMs ? text : null;
  }
  if (typeof owner.at === 'number' && Date.now() - owner.at > staleMs) return text;
  if (typeof owner.pid === 'number' && !isProcessAlive(owner.pid)) return text;
  return null;
}

/** Whether a process with this pid exists (EPERM means it does, as another user's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}
