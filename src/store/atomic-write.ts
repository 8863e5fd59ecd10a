import { constants } from 'node:fs';
import path from 'node:path';
import { CheckpointError, describeError } from '../core/errors.js';
import { nodeFs, type StoreFs } from './fs-seam.js';
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
 * same folder (created exclusively, never through a symlink), chmod (0600 unless `mode` says otherwise,
 * whatever the umask), fsync, rename, fsync the folder. Not `durable`: still atomic, without the fsyncs,
 * for files that can be rebuilt. Security: refuses when `target` is a symlink rather than replacing what
 * it points at.
 */
export function writeFileAtomic(
  fs: StoreFs,
  target: string,
  data: string | Uint8Array,
  options: { durable?: boolean; mode?: number; tempName?: string } = {},
): void {
  prepareFileWrite(fs, target, data, options).commit();
}

/** A file's new content, written whole beside it and not yet in its place (see prepareFileWrite). */
export interface PreparedWrite {
  /**
   * Puts the content in place (a rename) and, when durable, syncs the folder. `onInPlace` is called
   * between the two: the content is synced and in place, so it outlives the process that wrote it.
   */
  commit: (onInPlace?: () => void) => void;
  /** Removes the temp file: the target stays as it was. */
  discard: () => void;
}

/**
 * The first half of writeFileAtomic: the content in a temp file beside `target` (created exclusively,
 * never through a link, synced when durable), so that a caller can do what must come between (keep the
 * old file as a backup) only once the new content is known to be on disk. A failure here leaves the
 * target as it was and no temp file.
 */
export function prepareFileWrite(
  fs: StoreFs,
  target: string,
  data: string | Uint8Array,
  options: { durable?: boolean; mode?: number; tempName?: string } = {},
): PreparedWrite {
  const durable = options.durable ?? true;
  const mode = options.mode ?? FILE_MODE;
  refuseSymlink(fs, target);
  const temp = path.join(path.dirname(target), options.tempName ?? `${tempPrefix(target)}${uniqueSuffix()}`);
  const discard = () => {
    try {
      fs.unlinkSync(temp);
    } catch {
      // never created, or renamed already
    }
  };
  const fail = (error: unknown): never => {
    discard();
    if (error instanceof CheckpointError) throw error;
    throw new CheckpointError('IO_FAILED', `could not write ${target}: ${describeError(error)}`, {
      cause: error,
    });
  };
  try {
    const fd = fs.openSync(temp, EXCLUSIVE_WRITE, mode);
    try {
      fs.writeFileSync(fd, data);
      fs.fchmodSync(fd, mode);
      if (durable) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    fail(error);
  }
  return {
    commit: (onInPlace) => {
      try {
        fs.renameSync(temp, target);
      } catch (error) {
        fail(error);
      }
      onInPlace?.();
      if (durable) syncDirectory(fs, path.dirname(target));
    },
    discard,
  };
}

/** writeFileAtomic without durability, for the store's own small files that every snapshot writes (its state, its refs). */
export function writeFileAtomicSync(
  target: string,
  data: string | Uint8Array,
  options: { mode?: number; tempName?: string } = {},
): void {
  writeFileAtomic(nodeFs, target, data, { ...options, durable: false });
}

/** Makes a rename durable; some platforms cannot open folders, which only costs durability, not safety. */
function syncDirectory(fs: StoreFs, directory: string): void {
  try {
    const fd = fs.openSync(directory, constants.O_RDONLY);
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // best effort
  }
}

export function refuseSymlink(fs: StoreFs, target: string): void {
  if (fs.lstatSync(target, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw new CheckpointError(
      'UNSAFE_PATH',
      `refusing to use ${target}: it is a symbolic link. Remove the link; this file is always a plain file.`,
    );
  }
}
