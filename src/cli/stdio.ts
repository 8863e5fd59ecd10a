import { writeSync } from 'node:fs';
import { describeOutputError } from '../core/errors.js';
import { isSurelyNoTerminal } from './plain-output.js';

// The CLI's stdout and stderr. `process.stdout` and `process.stderr` are streams built on first use, and
// building one loads Node's whole stream stack (and, for a pipe, node:net): about a tenth of a command's
// start-up (issue 26). Where the output is surely no terminal (a pipe, a file, /dev/null), this writes
// to the file descriptor directly, as Node itself does for a file; a terminal keeps Node's stream, which
// knows the terminal's width and whether it takes colours.

/** 1: stdout, 2: stderr. */
export type OutputFd = 1 | 2;

const plain = new Map<OutputFd, boolean>();
/** Node's streams something built (guardStdioStreams): what they hold is written only when they flush. */
const builtStreams = new Set<'stdout' | 'stderr'>();
/** A reader that went away (EPIPE), or a write that failed: what goes to that descriptor from then on is dropped. */
const closed = new Set<OutputFd>();
/** The first write to each descriptor that failed for another reason than a reader gone (ENOSPC, EIO). */
const failures = new Map<OutputFd, NodeJS.ErrnoException>();

/** Stops writing to `fd`; a failure other than a reader gone is kept for outputFailure. */
function dropFrom(fd: OutputFd, error: NodeJS.ErrnoException): void {
  closed.add(fd);
  // A reader gone: EPIPE, or EOF on Windows (libuv's name for a broken pipe there).
  if (error.code === 'EPIPE' || error.code === 'EOF' || error.code === 'ERR_STREAM_DESTROYED') return;
  if (!failures.has(fd)) failures.set(fd, error);
}

/**
 * What went wrong writing the command's output, in one line for stderr (`could not write to stdout: no
 * space left on device (ENOSPC)`), or undefined when every write went through or only found its reader
 * gone. The command still did its work: the caller ends with exit 1 and this line.
 */
export function outputFailure(): string | undefined {
  for (const fd of [1, 2] as const) {
    const error = failures.get(fd);
    if (error) return describeOutputError(fd === 1 ? 'stdout' : 'stderr', error);
  }
  return undefined;
}

/**
 * Whether `fd` is surely not a terminal: not a character device, or /dev/null. Any other character
 * device (a terminal, or something rarer) is left to Node's stream, which tells them apart exactly.
 */
export function isPlainOutput(fd: OutputFd): boolean {
  let known = plain.get(fd);
  if (known === undefined) {
    known = isSurelyNoTerminal(fd);
    plain.set(fd, known);
  }
  return known;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Blocks the thread for `ms` without spinning. */
function pause(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

function stream(fd: OutputFd): NodeJS.WriteStream {
  return fd === 1 ? process.stdout : process.stderr;
}

/** Whether `fd` is a terminal (Node's own answer where it may be one). */
export function isTerminal(fd: OutputFd): boolean {
  return !isPlainOutput(fd) && Boolean(stream(fd).isTTY);
}

/**
 * Writes `text` whole before returning where the output is plain; a full non-blocking pipe is retried
 * after a millisecond's pause.
 * A reader that went away (`claude-checkpoint list | head -1`) makes this and every later write to that
 * descriptor a no-op: the command still runs to its end and its own exit code. Any other failure
 * (`>/dev/full`, a disk full) does the same, and outputFailure names it for the command's last word.
 */
export function writeText(fd: OutputFd, text: string): void {
  if (closed.has(fd) || text === '') return;
  if (!isPlainOutput(fd)) {
    const target = stream(fd);
    if (target.isTTY) {
      target.write(text);
      return;
    }
    // A character device that is no terminal (/dev/full): written as a file is, so that a failure is
    // known before the command ends (Node's stream would report it on a later tick, as an 'error' event).
    plain.set(fd, true);
  }
  let bytes = Buffer.from(text, 'utf8');
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        pause(1); // a full non-blocking pipe: its reader drains it meanwhile
        continue;
      }
      dropFrom(fd, error as NodeJS.ErrnoException);
      return;
    }
  }
}

/**
 * A reader that stops reading closes the pipe, and the next write to Node's stream fails with EPIPE,
 * which would crash the process with an unhandled 'error' event: from then on what goes to that stream is
 * dropped (another failure, such as EIO on a terminal gone, is kept for outputFailure). Installed only on
 * a stream something builds (a terminal's, or one a library writes to).
 */
export function dropWritesOnClosedPipe(target: NodeJS.WriteStream, fd: OutputFd): void {
  target.on('error', (error: NodeJS.ErrnoException) => {
    dropFrom(fd, error);
    target.write = ((_chunk: unknown, encoding?: unknown, callback?: unknown) => {
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
      return true;
    }) as typeof target.write;
  });
}

/**
 * Installs dropWritesOnClosedPipe on `process.stdout` and `process.stderr` when something first builds
 * them (a terminal's output, a prompt, a library), without building them now.
 */
export function guardStdioStreams(): void {
  for (const name of ['stdout', 'stderr'] as const) {
    const descriptor = Object.getOwnPropertyDescriptor(process, name);
    const get = descriptor?.get;
    const fd = name === 'stdout' ? 1 : 2;
    if (!descriptor?.configurable || !get) {
      dropWritesOnClosedPipe(process[name], fd);
      continue;
    }
    let built: NodeJS.WriteStream | undefined;
    Object.defineProperty(process, name, {
      ...descriptor,
      get() {
        if (built === undefined) {
          built = get.call(process) as NodeJS.WriteStream;
          builtStreams.add(name);
          dropWritesOnClosedPipe(built, fd);
        }
        return built;
      },
    });
  }
}

/** Calls `done` once what went to stdout is written: at once, unless Node's stream holds some of it. */
export function afterStdoutFlushed(done: () => void): void {
  if (builtStreams.has('stdout')) process.stdout.write('', done);
  else done();
}

/** Calls `done` once what went to stdout and stderr is written: at once, unless Node's streams hold some. */
export function afterOutputFlushed(done: () => void): void {
  afterStdoutFlushed(() => {
    if (builtStreams.has('stderr')) process.stderr.write('', done);
    else done();
  });
}

/** Commander's output settings: its help, errors and version through writeText; 80 columns off a terminal. */
export const COMMANDER_OUTPUT = {
  writeOut: (text: string) => writeText(1, text),
  writeErr: (text: string) => writeText(2, text),
  getOutHelpWidth: () => (isTerminal(1) ? process.stdout.columns : undefined) ?? 80,
  getErrHelpWidth: () => (isTerminal(2) ? process.stderr.columns : undefined) ?? 80,
  getOutHasColors: () => isTerminal(1) && process.stdout.hasColors?.() === true,
  getErrHasColors: () => isTerminal(2) && process.stderr.hasColors?.() === true,
};
