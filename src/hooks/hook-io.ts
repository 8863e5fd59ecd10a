import { fstatSync, readSync, writeSync } from 'node:fs';

export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** Where the plugin's loader leaves the input it already read (for a hook no server ran). */
const READ_BY_LOADER = Symbol.for('claude-checkpoint.hook-stdin');

export function handOverStdin(text: string): void {
  (globalThis as Record<symbol, unknown>)[READ_BY_LOADER] = text;
}

/**
 * The hook input. Read straight from fd 0 rather than through `process.stdin`, whose stream machinery
 * costs a hook more to load than reading the input does; the stream is the fallback for a non-blocking
 * pipe.
 */
export async function readHookStdin(): Promise<string> {
  const handed = (globalThis as Record<symbol, unknown>)[READ_BY_LOADER];
  if (typeof handed === 'string') return handed;
  // A terminal (or /dev/null) has no input to give; node:tty would tell a terminal apart, but loading it
  // loads the whole stream stack.
  if (inputIsCharacterDevice()) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      const read = readSync(0, buffer, 0, buffer.length, null);
      if (read === 0) return Buffer.concat(chunks).toString('utf8');
      size += read;
      if (size <= MAX_INPUT_BYTES) chunks.push(Buffer.from(buffer.subarray(0, read)));
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return Buffer.concat(chunks).toString('utf8');
  }
  return new Promise((resolve) => {
    process.stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_INPUT_BYTES) chunks.push(chunk);
    });
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function inputIsCharacterDevice(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return true; // no fd 0 at all: no input either
  }
}

/**
 * Writes all of `text` to fd 1 or 2 before returning, without `process.stdout`, whose stream machinery
 * costs a hook more to load than its output takes to write. Retries a full non-blocking pipe.
 */
export function writeAll(fd: number, text: string): void {
  let bytes = Buffer.from(text, 'utf8');
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return; // the reader went away
    }
  }
}
