import {
  closeSync,
  constants,
  fchmodSync,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { CheckpointError, describeError } from '../core/errors.js';
import { errorCode, type StoreFs } from './fs-seam.js';
import { uniqueSuffix } from './temp-name.js';

export const FILE_MODE = 0o600;
/** A new file only, never through a link. */
const EXCLUSIVE_WRITE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** The prefix of temp files next to `target`, so stale ones can be recognised and cleaned up. */
export function tempPrefix(target: string): string {
  return `${path.basename(target)}.tmp-`;
}

/**
 * Writes `data` to `target` so that readers only ever see the old or the new content: temp file in the
 * same folder (created exclusively, never through a symlink), fsync, chmod 0600, rename, fsync the folder.
 * Security: refuses when `target` is a symlink rather than replacing what it points at.
 */
export async function writeFileAtomic(
  fs: StoreFs,
  target: string,
  data: string | Uint8Array,
  options: { durable?: boolean } = {},
): Promise<void> {
  // Not durable: still atomic (readers see old or new), but without fsync, for caches that can be rebuilt.
  const durable = options.durable ?? true;
  await refuseSymlink(fs, target);
  const temp = path.join(path.dirname(target), `${tempPrefix(target)}${uniqueSuffix()}`);
  try {
    const handle = await fs.open(temp, EXCLUSIVE_WRITE, FILE_MODE);
    try {
      await handle.writeFile(data);
      await handle.chmod(FILE_MODE); // whatever the umask
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, target);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    if (error instanceof CheckpointError) throw error;
    throw new CheckpointError('IO_FAILED', `could not write ${target}: ${describeError(error)}`, {
      cause: error,
    });
  }
  if (durable) await syncDirectory(fs, path.dirname(target));
}

/**
 * writeFileAtomic without durability, synchronously: for the store's own small files that every snapshot
 * writes (its state, its refs), where a handful of syscalls cost several times less than as many round
 * trips through the thread pool. The same guarantees otherwise: readers see the old or the new content,
 * the temp file is created exclusively and never through a link, and a link at `target` is refused.
 */
export function writeFileAtomicSync(
  target: string,
  data: string | Uint8Array,
  options: { mode?: number; tempName?: string } = {},
): void {
  if (lstatSync(target, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw new CheckpointError('UNSAFE_PATH', `refusing to use ${target}: it is a symbolic link`);
  }
  const mode = options.mode ?? FILE_MODE;
  const temp = path.join(path.dirname(target), options.tempName ?? `${tempPrefix(target)}${uniqueSuffix()}`);
  try {
    const fd = openSync(temp, EXCLUSIVE_WRITE, mode);
    try {
      writeFileSync(fd, data);
      fchmodSync(fd, mode); // whatever the umask
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // never created
    }
    throw new CheckpointError('IO_FAILED', `could not write ${target}: ${describeError(error)}`, {
      cause: error,
    });
  }
}

/** Makes a rename durable; some platforms cannot open folders, which only costs durability, not safety. */
async function syncDirectory(fs: StoreFs, directory: string): Promise<void> {
  try {
    const handle = await fs.open(directory, constants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}

export async function refuseSymlink(fs: StoreFs, target: string): Promise<void> {
  try {
    const stats = await fs.lstat(target);
    if (stats.isSymbolicLink()) {
      throw new CheckpointError(
        'UNSAFE_PATH',
        `refusing to use ${target}: it is a symbolic link. Remove the link; the checkpoint is always a plain file.`,
      );
    }
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw error;
  }
}
