import {
  closeSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';

/**
 * The file-system calls the stores make, gathered so tests can inject faults (disk full, permission
 * denied) on the real code path. Production passes `node:fs` itself. Synchronous on purpose: the files
 * are small (64 KB at most), and a handful of calls in place cost several times less than as many round
 * trips through the thread pool; a hook is spared loading `node:fs/promises` as well.
 */
export type StoreFs = Pick<
  typeof import('node:fs'),
  | 'openSync'
  | 'writeFileSync'
  | 'fchmodSync'
  | 'fsyncSync'
  | 'closeSync'
  | 'renameSync'
  | 'unlinkSync'
  | 'linkSync'
  | 'lstatSync'
  | 'readFileSync'
  | 'readdirSync'
  | 'mkdirSync'
  | 'rmdirSync'
>;

// Named, not the module's namespace: a bundle copies every property of a namespace it imports (over a
// hundred for node:fs) in each process that loads it.
export const nodeFs: StoreFs = {
  openSync,
  writeFileSync,
  fchmodSync,
  fsyncSync,
  closeSync,
  renameSync,
  unlinkSync,
  linkSync,
  lstatSync,
  readFileSync,
  readdirSync,
  mkdirSync,
  rmdirSync,
};

/** A small file's text, read in place; `null` when it is missing or cannot be read. */
export function readTextOrNull(file: string): string | null {
  try {
    // Most of the store's optional files are missing: asked without an exception (issue 26).
    if (!statSync(file, { throwIfNoEntry: false })) return null;
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Removes a file that may already be gone. */
export function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
