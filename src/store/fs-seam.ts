import * as fsp from 'node:fs/promises';

/**
 * The file-system calls the stores make, gathered so tests can inject faults (disk full, permission
 * denied) on the real code path. Production passes `node:fs/promises` itself.
 */
export type StoreFs = Pick<
  typeof fsp,
  'open' | 'rename' | 'unlink' | 'link' | 'lstat' | 'readFile' | 'mkdir' | 'readdir' | 'rm'
>;

export const nodeFs: StoreFs = fsp;

export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
