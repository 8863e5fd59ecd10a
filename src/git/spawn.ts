import { spawn } from 'node:child_process';
import { bytesFromText } from '../core/raw-path.js';
import { spawnGitDirect } from './spawn-direct.js';

// Starting git and collecting what it says, with no judgement on the outcome: run.ts turns an outcome
// into a result or an error. Apart from run.ts so that the CLI's loader can start a git call before the
// rest of the CLI has loaded (early-start.ts) without carrying the error classes along.

/** For questions about refs, config and single objects, which git answers at once whatever the tree's size. */
export const GIT_TIMEOUT_MS = 3000;
/**
 * For a scan of the working tree or of history (status, hashing files, diffs, counting commits), which
 * takes what the project's size asks: a million files is tens of seconds on a busy machine. It bounds a
 * git that hangs; the hooks bound their own waits by their budgets.
 */
export const GIT_SCAN_TIMEOUT_MS = 5 * 60_000;

/**
 * The environment git runs with: the caller's, minus every GIT_* variable that could point git at
 * another repository, index or config (hooks run inside `git commit` set several of them), plus
 * GIT_OPTIONAL_LOCKS=0 so our read-only calls never take the index lock the user's git may need.
 */
export function gitEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (!key.startsWith('GIT_')) env[key] = value;
  }
  env.GIT_OPTIONAL_LOCKS = '0';
  env.GIT_TERMINAL_PROMPT = '0';
  env.LC_ALL = 'C';
  return env;
}

export interface SpawnGitOptions {
  cwd: string;
  timeoutMs: number;
  /** Added to the clean environment. */
  extraEnv?: Record<string, string> | undefined;
  /** Written to git's standard input; a string as the bytes it stands for (see raw-path.ts). */
  input?: string | Buffer | undefined;
  /** Told git's process id once it runs (for a marker a later process can wait on). */
  onSpawn?: ((pid: number) => void) | undefined;
  /** Told each piece of stdout as it arrives (for progress); stdout is still collected. */
  onStdout?: ((chunk: Buffer) => void) | undefined;
}

/** How a git process ended: its output, or why it never ran. */
export interface GitExit {
  stdout: Buffer;
  stderr: Buffer;
  /** `null` when killed by a signal or never started. */
  code: number | null;
  timedOut: boolean;
  /** Set when git could not be started at all (ENOENT: not installed; EACCES: not executable). */
  spawnError?: NodeJS.ErrnoException;
}

export interface SpawnedGit {
  exit: Promise<GitExit>;
  /** Ends git and lets go of it: the process need not wait for its pipes (a child of git may hold them). */
  abandon: () => void;
}

/** Runs git with an argument array (never a shell), a timeout, and the clean environment. */
export function spawnGit(args: readonly string[], options: SpawnGitOptions): SpawnedGit {
  const env = { ...gitEnvironment(), ...options.extraEnv };
  // A string's names may hold bytes that are not valid UTF-8 (see raw-path.ts): written as those bytes.
  const input = typeof options.input === 'string' ? bytesFromText(options.input) : options.input;
  // On the handles child_process is built on, where it need not load (spawn-direct.ts).
  const direct = spawnGitDirect(args, { ...options, input }, env);
  if (direct) return direct;
  const child = spawn('git', args, {
    cwd: options.cwd,
    env,
    // No pipe for input that is not given: one pipe fewer to set up and tear down per call.
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  const exit = new Promise<GitExit>((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      out.push(chunk);
      options.onStdout?.(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    child.stdin?.on('error', () => undefined); // git may exit before reading all input; its exit code tells
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), code: null, timedOut, spawnError: error });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err), code, timedOut });
    });
  });
  if (input !== undefined) child.stdin?.end(input);
  const abandon = () => {
    child.kill('SIGKILL');
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.unref();
  };
  return { exit, abandon };
}
