import {
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
} from 'node:fs';
import path from 'node:path';
import { fsPath } from '../core/raw-path.js';
import { createHasher, hashHex } from './hash.js';

export type ObjectFormat = 'sha1' | 'sha256';

/** The git blob oid of `content`, exactly as `git hash-object --no-filters` computes it. */
export function blobOid(content: Uint8Array, format: ObjectFormat = 'sha1'): string {
  return hashHex(format, `blob ${content.byteLength}\0`, content);
}

/**
 * A file's oid with what its lstat said when it was hashed. While all of it still holds, the file has
 * not been written since (a write, chmod, rename or timestamp change moves the change time), so the oid
 * holds too: the racy-stat check git's index makes.
 */
export interface RememberedOid {
  oid: string;
  size: number;
  /** Nanoseconds, as decimal strings (more than a double holds). */
  mtimeNs: string;
  ctimeNs: string;
  ino: string;
  dev: string;
}

/**
 * A file changed this recently may change again within the same tick of the file system's clock
 * (coarse on Linux, up to 2 s on some file systems) without its times moving: such a file is hashed
 * again next time rather than remembered.
 */
export const QUIET_MS = 2000;

/** A path's content as git stores it (see WorktreeHasher.readBlob). */
export interface WorktreeBlob {
  mode: '100644' | '100755' | '120000';
  content: Buffer;
}

const CHUNK_BYTES = 1024 * 1024;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Hashes working-tree paths: a regular file's bytes, or a symlink's target (as git stores links).
 * `null` for anything else, for a path that no longer exists, and for a path reached through a
 * symlinked folder. Security: the parent-realpath check and O_NOFOLLOW keep every read inside the root.
 *
 * The I/O is synchronous on purpose: hashing a thousand small dirty files costs a few milliseconds this
 * way, several times less than through the thread pool, and each call is one short burst.
 */
export class WorktreeHasher {
  private readonly safeParents = new Map<string, boolean>();
  private readonly buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private readonly rootPrefix: string;
  /** The oids this hasher found or confirmed that can be remembered for next time (see RememberedOid). */
  readonly remembered = new Map<string, RememberedOid>();

  /**
   * `memory`: oids remembered from earlier hashing of this tree (same object format); a file whose
   * lstat still matches is not read again. `now` is the clock the quiet period is measured on.
   */
  constructor(
    private readonly root: string,
    private readonly format: ObjectFormat = 'sha1',
    private readonly memory: ReadonlyMap<string, RememberedOid> = new Map(),
    private readonly now: () => number = Date.now,
  ) {
    this.rootPrefix = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  }

  oid(relativePath: string): string | null {
    const absolute = path.join(this.root, relativePath);
    try {
      if (!this.isSafeParent(path.dirname(absolute))) return null;
      const known = this.memory.get(relativePath);
      if (known) {
        // One lstat instead of open, fstat, read and close; a link or anything else is not a match.
        const stats = lstatSync(fsPath(absolute), { bigint: true, throwIfNoEntry: false });
        if (stats?.isFile() && matches(stats, known)) {
          this.remembered.set(relativePath, known);
          return known.oid;
        }
      }
      const opened = openEntry(absolute);
      if (opened === null) return null;
      if (typeof opened !== 'number') return blobOid(opened, this.format);
      const fd = opened;
      try {
        const stats = fstatSync(fd, { bigint: true });
        if (!stats.isFile()) return null;
        const hashed = this.hashOpenFile(fd, absolute, Number(stats.size));
        if (hashed.asStated) this.remember(relativePath, hashed.oid, stats);
        return hashed.oid;
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if (isGone(error)) return null;
      throw error;
    }
  }

  /**
   * What git stores for a path: a regular file's bytes (mode 100755 when its owner may run it, else
   * 100644) or a symlink's target (120000), read once, with the same safety as `oid`. `null` for anything
   * else, for a path that is gone, behind a symlinked folder, or over `maxBytes`.
   */
  readBlob(relativePath: string, maxBytes: number): WorktreeBlob | null {
    const absolute = path.join(this.root, relativePath);
    try {
      if (!this.isSafeParent(path.dirname(absolute))) return null;
      const opened = openEntry(absolute);
      if (opened === null) return null;
      if (typeof opened !== 'number') return { mode: '120000', content: opened };
      const fd = opened;
      try {
        const stats = fstatSync(fd);
        if (!stats.isFile() || stats.size > maxBytes) return null;
        const content = readFileSync(fd);
        if (content.length > maxBytes) return null;
        const mode = (stats.mode & 0o100) !== 0 ? '100755' : '100644';
        return { mode, content };
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if (isGone(error)) return null;
      throw error;
    }
  }

  /** Hashes many paths; the promise keeps the call shape of an I/O edge. */
  async oids(relativePaths: Iterable<string>): Promise<Map<string, string | null>> {
    const result = new Map<string, string | null>();
    for (const relative of relativePaths) if (!result.has(relative)) result.set(relative, this.oid(relative));
    return result;
  }

  /**
   * Whether every folder from the root down to `dir` is a real folder, not a link: one lstat per folder,
   * remembered, where a realpath per folder would walk every component again.
   */
  private isSafeParent(dir: string): boolean {
    if (dir === this.root) return true;
    let answer = this.safeParents.get(dir);
    if (answer === undefined) {
      const parent = path.dirname(dir);
      answer =
        parent !== dir &&
        dir.startsWith(this.rootPrefix) &&
        this.isSafeParent(parent) &&
        lstatSync(fsPath(dir), { throwIfNoEntry: false })?.isDirectory() === true;
      this.safeParents.set(dir, answer);
    }
    return answer;
  }

  /** Keeps a fresh oid for next time, unless the file was changed too recently to be sure of (QUIET_MS). */
  private remember(relativePath: string, oid: string, stats: BigIntStats): void {
    if (Number(stats.ctimeNs / 1_000_000n) > this.now() - QUIET_MS) return;
    if (Number(stats.mtimeNs / 1_000_000n) > this.now() - QUIET_MS) return;
    this.remembered.set(relativePath, {
      oid,
      size: Number(stats.size),
      mtimeNs: stats.mtimeNs.toString(),
      ctimeNs: stats.ctimeNs.toString(),
      ino: stats.ino.toString(),
      dev: stats.dev.toString(),
    });
  }

  /**
   * Reads `size` bytes and one more: a single read shows both the content and that nothing follows it.
   * `asStated`: the content is the `size` bytes the file's stats described (not re-read after a change).
   */
  private hashOpenFile(fd: number, absolute: string, size: number): { oid: string; asStated: boolean } {
    const hash = createHasher(this.format, size).update(`blob ${size}\0`);
    let total = 0;
    for (;;) {
      const bytesRead = readSync(fd, this.buffer, 0, this.buffer.length, total);
      if (bytesRead === 0) break;
      hash.update(this.buffer.subarray(0, bytesRead));
      total += bytesRead;
      // A short read of a regular file means its end: no second call needed to see 0.
      if (total > size || bytesRead < this.buffer.length) break;
    }
    if (total === size) return { oid: hash.digestHex(), asStated: true };
    // The file changed while we read it: hash what is there now, in one piece.
    const again = openSync(fsPath(absolute), OPEN_FLAGS);
    try {
      return { oid: blobOid(readFileSync(again), this.format), asStated: false };
    } finally {
      closeSync(again);
    }
  }
}

/**
 * A working-tree entry opened for reading: the descriptor of what sits at the path, or a symlink's target
 * (as git stores links), or `null` for a path that is neither. Opening first, never through a link and
 * never blocking on a FIFO, and then asking the open file what it is, costs one syscall fewer per file
 * than lstat-then-open, which counts over a thousand dirty files. The caller checks the descriptor is a
 * regular file, and closes it.
 */
function openEntry(absolute: string): number | Buffer | null {
  try {
    return openSync(fsPath(absolute), OPEN_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw error;
    return lstatSync(fsPath(absolute)).isSymbolicLink()
      ? readlinkSync(fsPath(absolute), { encoding: 'buffer' })
      : null;
  }
}

function matches(stats: BigIntStats, known: RememberedOid): boolean {
  return (
    Number(stats.size) === known.size &&
    stats.mtimeNs.toString() === known.mtimeNs &&
    stats.ctimeNs.toString() === known.ctimeNs &&
    stats.ino.toString() === known.ino &&
    stats.dev.toString() === known.dev
  );
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP';
}
