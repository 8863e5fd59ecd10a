import { spawn } from 'node:child_process';
import { CheckpointError, isCheckpointError } from '../core/errors.js';

/** For questions about refs, config and single objects, which git answers at once whatever the tree's size. */
export const GIT_TIMEOUT_MS = 3000;
/**
 * For a scan of the working tree or of history (status, hashing files, diffs, counting commits), which
 * takes what the project's size asks: a million files is tens of seconds on a busy machine. It bounds a
 * git that hangs; the hooks bound their own waits by their budgets.
 */
export const GIT_SCAN_TIMEOUT_MS = 5 * 60_000;

export interface GitResult {
  stdout: string;
  /** What git said on stderr, for calls whose warnings matter (kept short). */
  stderr: string;
  exitCode: number;
}

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

export interface RunGitOptions {
  cwd: string;
  /** Exit codes that are answers rather than failures (for example 1 from `check-ignore`). */
  okExitCodes?: readonly number[];
  timeoutMs?: number;
  /** Added to the clean environment. */
  extraEnv?: Record<string, string>;
  /** Written to git's standard input. */
  input?: string | Buffer;
  /** Told git's process id once it runs (for a marker a later process can wait on). */
  onSpawn?: (pid: number) => void;
  /** Told each piece of stdout as it arrives (for progress); stdout is still collected. */
  onStdout?: (chunk: Buffer) => void;
}

/** Thrown when the git executable is not installed. */
export class GitNotFoundError extends Error {
  override readonly name = 'GitNotFoundError';
}

/** Runs git with an argument array (never a shell), a timeout, and a clean environment. */
export async function runGit(args: readonly string[], options: RunGitOptions): Promise<GitResult> {
  const { stdout, stderr, exitCode } = await runGitBuffer(args, options);
  return { stdout: stdout.toString('utf8'), stderr, exitCode };
}

/** Like runGit, with stdout as bytes (for blob contents). */
export function runGitBuffer(
  args: readonly string[],
  options: RunGitOptions,
): Promise<{ stdout: Buffer; stderr: string; exitCode: number }> {
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS;
  const okExitCodes = options.okExitCodes ?? [0];
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: options.cwd,
      env: { ...gitEnvironment(), ...options.extraEnv },
      // No pipe for input that is not given: one pipe fewer to set up and tear down per call.
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      out.push(chunk);
      options.onStdout?.(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    child.stdin?.on('error', () => undefined); // git may exit before reading all input; its exit code tells
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(error.code === 'ENOENT' ? new GitNotFoundError('git is not installed or not on PATH') : error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out);
      if (timedOut) {
        reject(
          new CheckpointError(
            'GIT_FAILED',
            `git ${subcommand(args)} timed out after ${timeoutMs} ms in ${options.cwd}`,
          ),
        );
        return;
      }
      const exitCode = code ?? -1;
      const stderr = Buffer.concat(err)
        .toString('utf8')
        .slice(0, 64 * 1024);
      if (okExitCodes.includes(exitCode)) {
        resolve({ stdout, stderr, exitCode });
        return;
      }
      const detail =
        stderr.split('\n').find((line) => /^(fatal|error):/.test(line)) ??
        (stderr.trim().split('\n')[0] || `exit ${exitCode}`);
      reject(
        new CheckpointError(
          'GIT_FAILED',
          `git ${subcommand(args)} failed in ${options.cwd} (exit ${exitCode}): ${detail}`,
        ),
      );
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** The git command a message should name: the first argument after global options such as --git-dir. */
function subcommand(args: readonly string[]): string {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (arg === '-c' || arg === '-C' || arg === '--git-dir' || arg === '--work-tree') index++;
    else if (!arg.startsWith('-')) return arg;
  }
  return args[0] ?? '';
}

/** Whether a git call failed because it ran past its timeout (and was killed), not because git refused. */
export function isGitTimeout(error: unknown): boolean {
  return isCheckpointError(error, 'GIT_FAILED') && / timed out after \d+ ms/.test(error.message);
}
