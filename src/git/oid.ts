import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readFile, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

export type ObjectFormat = 'sha1' | 'sha256';

/** The git blob oid of `content`, exactly as `git hash-object --no-filters` computes it. */
export function blobOid(content: Uint8Array, format: ObjectFormat = 'sha1'): string {
  return createHash(format).update(`blob ${content.byteLength}\0`).update(content).digest('hex');
}

const CHUNK_BYTES = 1024 * 1024;
const HASH_CONCURRENCY = 16;

/**
 * Hashes working-tree paths: a regular file's bytes, or a symlink's target (as git stores links).
 * `null` for anything else, for a path that no longer exists, and for a path reached through a
 * symlinked folder. Security: the parent-realpath check and O_NOFOLLOW keep every read inside the root.
 */
export class WorktreeHasher {
  private readonly safeParents = new Map<string, Promise<boolean>>();

  constructor(
    private readonly root: string,
    private readonly format: ObjectFormat = 'sha1',
  ) {}

  async oid(relativePath: string): Promise<string | null> {
    const absolute = path.join(this.root, relativePath);
    try {
      if (!(await this.isSafeParent(path.dirname(absolute)))) return null;
      const stats = await lstat(absolute);
      if (stats.isSymbolicLink())
        return blobOid(await readlink(absolute, { encoding: 'buffer' }), this.format);
      if (!stats.isFile()) return null;
      return await this.hashFile(absolute, stats.size);
    } catch (error) {
      if (isGone(error)) return null;
      throw error;
    }
  }

  /** Hashes many paths with bounded concurrency. */
  async oids(relativePaths: Iterable<string>): Promise<Map<string, string | null>> {
    const queue = [...new Set(relativePaths)];
    const result = new Map<string, string | null>();
    let next = 0;
    const worker = async () => {
      while (next < queue.length) {
        const relative = queue[next++] as string;
        result.set(relative, await this.oid(relative));
      }
    };
    await Promise.all(Array.from({ length: Math.min(HASH_CONCURRENCY, queue.length) }, worker));
    return result;
  }

  private isSafeParent(parent: string): Promise<boolean> {
    if (parent === this.root) return Promise.resolve(true);
    let answer = this.safeParents.get(parent);
    if (!answer) {
      answer = realpath(parent).then(
        (real) => real === parent,
        () => false,
      );
      this.safeParents.set(parent, answer);
    }
    return answer;
  }

  private async hashFile(absolute: string, size: number): Promise<string> {
    const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const hash = createHash(this.format).update(`blob ${size}\0`);
      const buffer = Buffer.allocUnsafe(Math.min(Math.max(size, 1), CHUNK_BYTES));
      let total = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
        if (bytesRead === 0) break;
        hash.update(buffer.subarray(0, bytesRead));
        total += bytesRead;
        if (total > size) break;
      }
      if (total === size) return hash.digest('hex');
    } finally {
      await handle.close();
    }
    // The file changed while we read it: hash what is there now, in one piece.
    return blobOid(
      await readFile(absolute, { flag: constants.O_RDONLY | constants.O_NOFOLLOW }),
      this.format,
    );
  }
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP';
}
