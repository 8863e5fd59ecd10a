import { constants, fstatSync, readFileSync, readSync, writeSync } from 'node:fs';
import { createJsonObjectEnd } from '../core/json-object-end.js';
import { closeJsonPrefix } from '../core/json-prefix.js';
import { nodeBinding } from '../git/node-binding.js';
import { INPUT_CUT_KEY, INPUT_UNFINISHED_KEY } from './input.js';

/** The most of a hook's input that is read (docs/hooks.md); past it, see cutInput. */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** Where the plugin's loader leaves the input it already read (for a hook no server ran). */
const READ_BY_LOADER = Symbol.for('claude-checkpoint.hook-stdin');

export function handOverStdin(text: string): void {
  (globalThis as Record<symbol, unknown>)[READ_BY_LOADER] = text;
}

/**
 * The hook input: one JSON object. Read straight from fd 0 rather than through `process.stdin`, whose
 * stream machinery costs a hook more to load than reading the input does. Reading ends at EOF or at the
 * end of the object, whichever comes first: an agent may leave the pipe open (issue 26). With no whole
 * object after `waitMs` and no EOF, the hook goes on as with no input.
 */
export async function readHookStdin(waitMs: number): Promise<string> {
  const handed = (globalThis as Record<symbol, unknown>)[READ_BY_LOADER];
  if (typeof handed === 'string') return handed;
  const kind = inputKind();
  if (kind === 'none') return '';
  const input = createInputCollector();
  const buffer = Buffer.allocUnsafe(64 * 1024);
  // A file always ends; a pipe or a socket may not, so it is read without blocking, to give up in time.
  const restore = kind === 'file' ? undefined : readWithoutBlocking();
  try {
    const deadline = Date.now() + waitMs;
    let pauseMs = 1;
    for (;;) {
      let read: number;
      try {
        read = readSync(0, buffer, 0, buffer.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return input.text();
        // An object begun and not ended in time is used as far as it is whole (a 17 MB command on a busy
        // machine): the pre-command hook must not take it for no input at all.
        if (Date.now() >= deadline) return input.isBegun() ? input.text() : '';
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
        pauseMs = Math.min(pauseMs * 2, 50);
        continue;
      }
      if (read === 0) return input.text();
      input.add(buffer.subarray(0, read));
      if (input.isWholeObject()) return input.text();
      pauseMs = 1;
    }
  } finally {
    restore?.();
  }
}

/** The bytes read so far, kept up to MAX_INPUT_BYTES, and whether they hold one whole JSON object. */
function createInputCollector() {
  const chunks: Buffer[] = [];
  let size = 0;
  const end = createJsonObjectEnd();
  return {
    add(bytes: Buffer): void {
      size += bytes.length;
      if (size <= MAX_INPUT_BYTES) chunks.push(Buffer.from(bytes));
      end.add(bytes);
    },
    isWholeObject: () => end.phase() === 'whole',
    isBegun: () => size > 0 && end.phase() !== 'before' && end.phase() !== 'other',
    text: () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (size > MAX_INPUT_BYTES) return cutInput(text, { [INPUT_CUT_KEY]: size });
      // An object the input ended inside of (the agent was stopped while writing it): its whole fields.
      if (end.phase() === 'open') return cutInput(text, { [INPUT_UNFINISHED_KEY]: size });
      return text;
    },
  };
}

/**
 * An input over MAX_INPUT_BYTES (a Copilot CLI postToolUse with a tool's 60 MB output), or one whose
 * object did not end, as JSON: what was read with the member it cut dropped (core/json-prefix.ts), and
 * the marker that says so (INPUT_CUT_KEY, INPUT_UNFINISHED_KEY). The command comes before the tool's
 * output in every agent's input, so it is usually kept whole.
 */
function cutInput(prefix: string, marker: Record<string, number>): string {
  return JSON.stringify({ ...closeJsonPrefix(prefix), ...marker });
}

/** Where the descriptor flags are kept for a pipe handle on fd 0 (Node's internal `pipe_wrap` binding). */
interface PipeBinding {
  Pipe: new (type: number) => { open(fd: number): number; setBlocking(isBlocking: boolean): number };
  constants: { SOCKET: number };
}

/**
 * Puts fd 0 in non-blocking mode and returns how to put it back. Node has no `fcntl`; a libuv pipe handle
 * sets the flag on opening (as `process.stdin` would, with its whole stream stack), on a pipe or a socket,
 * and clears it through `setBlocking`. The flag belongs to the descriptor the agent may share, so it is
 * cleared as soon as the input is read, unless it was set before (Linux tells, in /proc; elsewhere Node
 * restores stdin's flags at exit). Without the binding, the read blocks as it always did.
 */
function readWithoutBlocking(): (() => void) | undefined {
  try {
    const wasNonBlocking = isNonBlocking();
    const { Pipe, constants } = nodeBinding<PipeBinding>('pipe_wrap');
    const handle = new Pipe(constants.SOCKET);
    if (handle.open(0) !== 0) return undefined;
    return () => {
      if (!wasNonBlocking) handle.setBlocking(true);
    };
  } catch {
    return undefined;
  }
}

function isNonBlocking(): boolean {
  try {
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/fdinfo/0', 'utf8'))?.[1];
    return flags !== undefined && (Number.parseInt(flags, 8) & constants.O_NONBLOCK) !== 0;
  } catch {
    return false;
  }
}

function inputKind(): 'none' | 'file' | 'stream' {
  try {
    const stat = fstatSync(0);
    // A terminal (or /dev/null) has no input to give; node:tty would tell a terminal apart, but loading it
    // loads the whole stream stack.
    if (stat.isCharacterDevice()) return 'none';
    return stat.isFile() ? 'file' : 'stream';
  } catch {
    return 'none'; // no fd 0 at all: no input either
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
