import { createHash } from 'node:crypto';
import {
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

export type ObjectFormat = 'sha1' | 'sha256';

/** The git blob oid of `content`, exactly as `git hash-object --no-filters` computes it. */
export function blobOid(content: Uint8Array, format: ObjectFormat = 'sha1'): string {
  return createHash(format).update(`blob ${content.byteLength}\0`).update(content).digest('hex');
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

  constructor(
    private readonly root: string,
    private readonly format: ObjectFormat = 'sha1',
  ) {
    this.rootPrefix = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  }

  oid(relativePath: string): string | null {
    const absolute = path.join(this.root, relativePath);
    try {
      if (!this.isSafeParent(path.dirname(absolute))) return null;
      // Open first (never through a link, never blocking on a FIFO) and ask the open file what it is:
      // one syscall fewer per file than lstat-then-open, which counts over a thousand dirty files.
      let fd: number;
      try {
        fd = openSync(absolute, OPEN_FLAGS);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw error;
        const stats = lstatSync(absolute);
        return stats.isSymbolicLink()
          ? blobOid(readlinkSync(absolute, { encoding: 'buffer' }), this.format)
          : null;
      }
      try {
        const stats = fstatSync(fd);
        return stats.isFile() ? this.hashOpenFile(fd, absolute, stats.size) : null;
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
        lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
      this.safeParents.set(dir, answer);
    }
    return answer;
  }

  /** Reads `size` bytes and one more: a single read shows both the content and that nothing follows it. */
  private hashOpenFile(fd: number, absolute: string, size: number): string {
    const hash = createHash(this.format).update(`blob ${size}\0`);
    let total = 0;
    for (;;) {
      const bytesRead = readSync(fd, this.buffer, 0, this.buffer.length, total);
      if (bytesRead === 0) break;
      hash.update(this.buffer.subarray(0, bytesRead));
      total += bytesRead;
      // A short read of a regular file means its end: no second call needed to see 0.
      if (total > size || bytesRead < this.buffer.length) break;
    }
    if (total === size) return hash.digest('hex');
    // The file changed while we read it: hash what is there now, in one piece.
    const again = openSync(absolute, OPEN_FLAGS);
    try {
      return blobOid(readFileSync(again), this.format);
    } finally {
      closeSync(again);
    }
  }
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP';
}
