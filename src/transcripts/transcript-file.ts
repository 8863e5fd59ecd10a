import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** The first bytes of a transcript, hashed: a file replaced under the same name reads afresh. */
export const FINGERPRINT_BYTES = 4096;

/**
 * Opens a transcript to read: a regular file, reached without following a link at its last step (the path
 * comes from the agent's hook payload). `null` when it cannot be read; the caller closes `fd`.
 */
export function openTranscript(file: string): { fd: number; size: number } | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isFile()) return { fd, size: stats.size };
  } catch {
    // fall through: closed below
  }
  closeSync(fd);
  return null;
}

/**
 * What a read before remembered, when the file is still the one it read (not shorter, same first bytes)
 * and the state is of this reader's version; else `null`, and the file is read afresh.
 */
export function knownState<State extends { version: number; offset: number; fingerprint: string }>(
  fd: number,
  size: number,
  previous: State | null,
  version: number,
): State | null {
  return previous &&
    previous.version === version &&
    previous.offset <= size &&
    fingerprintOf(fd, Math.min(previous.offset, FINGERPRINT_BYTES)) === previous.fingerprint
    ? previous
    : null;
}

/** sha256 of the file's first `bytes` bytes, shortened. */
export function fingerprintOf(fd: number, bytes: number): string {
  const buffer = Buffer.alloc(bytes);
  let done = 0;
  while (done < bytes) {
    const read = readSync(fd, buffer, done, bytes - done, done);
    if (read === 0) break;
    done += read;
  }
  return createHash('sha256').update(buffer.subarray(0, done)).digest('hex').slice(0, 32);
}
