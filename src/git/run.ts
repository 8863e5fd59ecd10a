import { execFile } from 'node:child_process';
import { CheckpointError } from '../core/errors.js';

export const GIT_TIMEOUT_MS = 3000;

export interface GitResult {
  stdout: string;
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
  env?: NodeJS.ProcessEnv;
}

/** Thrown (as GIT_FAILED with this cause) when the git executable is not installed. */
export class GitNotFoundError extends Error {
  override readonly name = 'GitNotFoundError';
}

/** Runs git with an argument array (never a shell), a timeout, and a clean environment. */
export function runGit(args: readonly string[], options: RunGitOptions): Promise<GitResult> {
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS;
  const okExitCodes = options.okExitCodes ?? [0];
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        env: options.env ?? gitEnvironment(),
        timeout: timeoutMs,
        maxBuffer: 512 * 1024 * 1024,
        encoding: 'utf8',
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ stdout, exitCode: 0 });
          return;
        }
        const failure = error as NodeJS.ErrnoException & { code?: string | number; killed?: boolean };
        if (failure.code === 'ENOENT') {
          reject(new GitNotFoundError('git is not installed or not on PATH'));
          return;
        }
        if (failure.killed) {
          reject(
            new CheckpointError(
              'GIT_FAILED',
              `git ${args[0]} timed out after ${timeoutMs} ms in ${options.cwd}`,
              {
                cause: error,
              },
            ),
          );
          return;
        }
        const exitCode = typeof failure.code === 'number' ? failure.code : -1;
        if (okExitCodes.includes(exitCode)) {
          resolve({ stdout, exitCode });
          return;
        }
        const detail = stderr.trim().split('\n')[0] || error.message;
        reject(
          new CheckpointError(
            'GIT_FAILED',
            `git ${args[0]} failed in ${options.cwd} (exit ${exitCode}): ${detail}`,
            {
              cause: error,
            },
          ),
        );
      },
    );
  });
}
