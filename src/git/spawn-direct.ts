import { isDirectSpawnAllowed } from './direct-spawn-flag.js';
import { nodeBinding } from './node-binding.js';
import { type StreamBindings, streamBindings, UV_EOF, uvErrorName } from './stream-bindings.js';

// A git process on libuv's process and pipe handles themselves, the bindings node:child_process is built
// on: loading child_process loads node:net, dgram and Node's whole stream stack (some forty modules,
// about 6 ms of `claude-checkpoint status`, whose one git call is all it spawns; issue 26), and closing
// one of its pipes has Node build `process.stderr`. Used by the CLI's processes (direct-spawn-flag.ts) on
// Linux and macOS, on the Node majors it was tested on (20 and 22) with their binding's shape
// (isTestedSpawn); otherwise spawn.ts uses child_process. A binding that throws (Node's permission model
// without --allow-child-process) also hands the call to child_process, which says so. The outcome is the
// same either way (test/git/spawn-direct.test.ts).

/** SIGKILL: 9 wherever this runs (not on Windows). */
const SIGKILL = 9;

/** spawn.ts's options (no import: spawn.ts imports this). */
interface DirectOptions {
  cwd: string;
  timeoutMs: number;
  /** The bytes for git's standard input; without it, git reads /dev/null. */
  input?: Buffer | undefined;
  onSpawn?: ((pid: number) => void) | undefined;
  onStdout?: ((chunk: Buffer) => void) | undefined;
}

/** spawn.ts's GitExit and SpawnedGit. */
interface DirectExit {
  stdout: Buffer;
  stderr: Buffer;
  code: number | null;
  timedOut: boolean;
  spawnError?: NodeJS.ErrnoException;
}

interface DirectGit {
  exit: Promise<DirectExit>;
  abandon: () => void;
}

interface Request {
  oncomplete?: (status: number) => void;
  handle?: PipeHandle;
  buffer?: Buffer;
}

interface Handle {
  close(callback?: () => void): void;
  unref(): void;
}

interface PipeHandle extends Handle {
  readStart(): number;
  writeBuffer(request: Request, buffer: Buffer): number;
  shutdown(request: Request): number;
  onread: (buffer: ArrayBuffer | undefined) => void;
}

interface ProcessHandle extends Handle {
  spawn(options: {
    file: string;
    args: string[];
    cwd: string;
    envPairs: string[];
    stdio: Array<{ type: 'ignore' } | { type: 'pipe'; handle: PipeHandle }>;
    detached: boolean;
    windowsHide: boolean;
    windowsVerbatimArguments: boolean;
  }): number;
  kill(signal: number): number;
  pid?: number;
  onexit: (exitCode: number, signalCode: string | null) => void;
}

interface Bindings extends StreamBindings<PipeHandle, Request> {
  Process: new () => ProcessHandle;
}

let found: Bindings | null | undefined;

/** Node's major versions whose `process_wrap` takes the options object used here (20 and 22 were tested). */
const TESTED_MAJORS = new Set(['20', '22']);

/**
 * Whether this Node's `process_wrap` spawns as used here: a tested major, and not the newer binding,
 * which takes its options one by one and has `constants` for its flags (a backport shows there too).
 */
export function isTestedSpawn(nodeVersion: string, processWrap: Record<string, unknown>): boolean {
  return TESTED_MAJORS.has(nodeVersion.split('.')[0] ?? '') && processWrap.constants === undefined;
}

function bindings(): Bindings | null {
  if (found !== undefined) return found;
  found = null;
  // Only as tested (isTestedSpawn): a spawn of another shape is not an error to catch but a failed native
  // assertion that aborts the process (Node 24 takes the options one by one, nodejs/node#63930).
  if (process.platform === 'win32') return found;
  try {
    const processWrap = nodeBinding<Record<string, unknown>>('process_wrap');
    if (!isTestedSpawn(process.versions.node, processWrap)) return found;
    const { Process } = processWrap;
    const stream = streamBindings<PipeHandle, Request>(['readStart', 'writeBuffer', 'shutdown', 'close']);
    const isProcess =
      typeof Process === 'function' &&
      ['spawn', 'kill', 'close', 'unref'].every(
        (name) => typeof (Process.prototype as Record<string, unknown>)[name] === 'function',
      );
    if (stream && isProcess) found = { ...stream, Process: Process as Bindings['Process'] };
  } catch {
    // No such binding here: child_process it is.
  }
  return found;
}

/**
 * Runs git as spawnGit does, with `env` as it is; `null`, having started nothing, where the bindings are
 * not there as expected or child_process would refuse the call (the caller then uses child_process).
 */
export function spawnGitDirect(
  args: readonly string[],
  options: DirectOptions,
  env: NodeJS.ProcessEnv,
): DirectGit | null {
  if (!isDirectSpawnAllowed()) return null;
  const found = bindings();
  if (!found) return null;
  const envPairs: string[] = [];
  for (const [key, value] of Object.entries(env)) if (value !== undefined) envPairs.push(`${key}=${value}`);
  // child_process refuses a NUL byte (libuv would cut the string there): it still says so.
  if ([options.cwd, ...args, ...envPairs].some((text) => text.includes('\0'))) return null;
  const { Process, Pipe, SOCKET, state } = found;
  const child = new Process();
  const stdin = options.input === undefined ? null : new Pipe(SOCKET);
  const pipes = [new Pipe(SOCKET), new Pipe(SOCKET)] as const;
  const closeAll = () => {
    for (const handle of [child, ...pipes]) handle.close();
    stdin?.close();
  };
  let status: number;
  try {
    status = child.spawn({
      file: 'git',
      args: ['git', ...args],
      cwd: options.cwd,
      envPairs,
      stdio: [
        stdin ? { type: 'pipe', handle: stdin } : { type: 'ignore' },
        { type: 'pipe', handle: pipes[0] },
        { type: 'pipe', handle: pipes[1] },
      ],
      detached: false,
      windowsHide: true,
      windowsVerbatimArguments: false,
    });
  } catch {
    // The spawn threw (Node's permission model): nothing ran, and child_process says why.
    closeAll();
    return null;
  }
  if (status < 0) {
    closeAll();
    const code = uvErrorName(status);
    const spawnError: NodeJS.ErrnoException = Object.assign(new Error(`spawn git ${code}`), {
      errno: status,
      code,
      syscall: 'spawn git',
      path: 'git',
    });
    const empty = Buffer.alloc(0);
    return {
      exit: Promise.resolve({ stdout: empty, stderr: empty, code: null, timedOut: false, spawnError }),
      abandon: () => undefined,
    };
  }
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  let exited = false;
  const closers: Array<() => void> = [];
  let closeInput: () => void = () => undefined;
  const exit = new Promise<DirectExit>((resolve) => {
    const output: [Buffer[], Buffer[]] = [[], []];
    let code: number | null = null;
    let timedOut = false;
    // As child_process's 'close': git has exited and its stdout and stderr have ended.
    let waiting = 3;
    let readError: string | undefined;
    const settle = () => {
      if (--waiting > 0) return;
      cancelTimer();
      const stdout = Buffer.concat(output[0]);
      const stderr = Buffer.concat(output[1]);
      if (readError === undefined) resolve({ stdout, stderr, code, timedOut });
      else
        resolve({
          stdout,
          stderr,
          code: null,
          timedOut,
          spawnError: Object.assign(new Error(`reading git's output failed: ${readError}`), {
            code: readError,
          }),
        });
    };
    const cancelTimer = startTimer(options.timeoutMs, () => {
      timedOut = true;
      // Only while git runs: once it has exited its process id may be another process's (as child_process).
      if (!exited) child.kill(SIGKILL);
    });
    child.onexit = (exitCode, signalCode) => {
      exited = true;
      code = signalCode ? null : exitCode;
      child.close();
      // As child_process: git's input goes with it (a child of git holding it would keep a write pending,
      // and this process alive).
      closeInput();
      settle();
    };
    pipes.forEach((pipe, which) => {
      let isOpen = true;
      const end = () => {
        if (!isOpen) return;
        isOpen = false;
        pipe.close();
        settle();
      };
      pipe.onread = (buffer) => {
        const length = state[found.kReadBytesOrError] ?? 0;
        if (length > 0 && buffer) {
          const chunk = Buffer.from(buffer, state[found.kArrayBufferOffset] ?? 0, length);
          output[which]?.push(chunk);
          if (which === 0) options.onStdout?.(chunk);
        } else if (length < 0) {
          // A read error on our side of the pipe: what git wrote is not whole, whatever its exit code.
          if (length !== UV_EOF) readError ??= uvErrorName(length);
          end();
        }
      };
      closers.push(end);
      if (pipe.readStart() < 0) end();
    });
  });
  if (stdin && options.input !== undefined) {
    closeInput = writeInput(found, stdin, options.input);
    closers.push(closeInput);
    if (exited) closeInput();
  }
  // As spawn.ts's: git is ended, and its pipes let go of (a child of git may hold them open).
  const abandon = () => {
    if (!exited) child.kill(SIGKILL);
    for (const close of closers) close();
    child.unref();
  };
  return { exit, abandon };
}

/**
 * Calls `onTimeout` after `ms` unless cancelled first, without node:timers where the engine allows: a
 * process's first timer compiles some twenty of Node's own functions from source (1.6M of `status`'s 140M
 * instructions; issue 26). Atomics.waitAsync's timeout runs as one of V8's delayed tasks, on a timer of
 * Node's platform that keeps no process alive, as setTimeout's does: here git's process and pipes do,
 * and once they are done the timer is cancelled (a notify, which ends the wait).
 */
function startTimer(ms: number, onTimeout: () => void): () => void {
  const { waitAsync } = Atomics as unknown as { waitAsync?: WaitAsync };
  if (typeof waitAsync !== 'function' || typeof SharedArrayBuffer !== 'function') {
    const timer = setTimeout(onTimeout, ms);
    return () => clearTimeout(timer);
  }
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const wait = waitAsync(cell, 0, 0, ms);
  // Timed out at once (no time at all): still after this call, as a timer's callback would be.
  void (wait.async ? wait.value : Promise.resolve(wait.value)).then((outcome) => {
    if (outcome === 'timed-out') onTimeout();
  });
  return () => {
    Atomics.notify(cell, 0);
  };
}

/** Atomics.waitAsync (ES2024, in Node since 16), which the TypeScript library this project uses predates. */
type WaitAsync = (
  cell: Int32Array,
  index: number,
  value: number,
  timeoutMs: number,
) => { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };

/**
 * Writes the input whole, then ends it (libuv shuts a pipe down once its writes are done); returns how to
 * close it sooner. A git that exits before reading it all makes the write fail (EPIPE): its exit code
 * tells, as with child_process, whose stdin errors spawn.ts ignores.
 */
function writeInput({ WriteWrap, ShutdownWrap }: Bindings, stdin: PipeHandle, input: Buffer): () => void {
  let isOpen = true;
  const close = () => {
    if (!isOpen) return;
    isOpen = false;
    stdin.close();
  };
  if (input.length > 0) {
    const write = new WriteWrap();
    write.handle = stdin;
    write.buffer = input; // kept until the write is done
    write.oncomplete = () => undefined;
    if (stdin.writeBuffer(write, input) < 0) {
      close();
      return close;
    }
  }
  const shutdown = new ShutdownWrap();
  shutdown.handle = stdin;
  shutdown.oncomplete = close;
  if (stdin.shutdown(shutdown) < 0) close();
  return close;
}
