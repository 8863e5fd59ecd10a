import { CheckpointError, isCheckpointError } from '../core/errors.js';
import { clipMiddle } from '../core/quote.js';
import { textFromBytes } from '../core/raw-path.js';
import { cutUnits } from '../core/text.js';
import { takeEarlyGit } from './early-start.js';
import { GIT_TIMEOUT_MS, type GitExit, spawnGit } from './spawn.js';

export { GIT_SCAN_TIMEOUT_MS, GIT_TIMEOUT_MS, gitEnvironment } from './spawn.js';

export interface GitResult {
  /** stdout as text; with `exactNames`, a byte that is not valid UTF-8 is kept (see raw-path.ts), else U+FFFD. */
  stdout: string;
  /** stdout as git wrote it. */
  bytes?: Buffer;
  /** What git said on stderr, for calls whose warnings matter (kept short). */
  stderr: string;
  exitCode: number;
}

export interface RunGitOptions {
  cwd: string;
  /** Exit codes that are answers rather than failures (for example 1 from `check-ignore`). */
  okExitCodes?: readonly number[];
  timeoutMs?: number;
  /** Added to the clean environment. */
  extraEnv?: Record<string, string>;
  /** Written to git's standard input; a string as the bytes it stands for (see raw-path.ts). */
  input?: string | Buffer;
  /**
   * stdout names files: decode it losslessly, so a name that is not valid UTF-8 keeps its bytes (see
   * raw-path.ts). Off for text (messages, patches, config), where such a byte is U+FFFD as ever.
   */
  exactNames?: boolean;
  /** Told git's process id once it runs (for a marker a later process can wait on). */
  onSpawn?: (pid: number) => void;
  /** Told each piece of stdout as it arrives (for progress); stdout is still collected. */
  onStdout?: (chunk: Buffer) => void;
}

/** Thrown when git cannot be run: not installed, or the one on PATH is not executable. Callers that work without git treat both alike. */
export class GitNotFoundError extends Error {
  override readonly name = 'GitNotFoundError';
  /** A `git` is on PATH but may not be run (no execute permission), rather than none at all. */
  readonly isNotExecutable: boolean;
  constructor(message: string, options: { cause?: unknown; isNotExecutable?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.isNotExecutable = options.isNotExecutable ?? false;
  }
}

/** The spawn's failure as "git cannot be run", or undefined when it failed for another reason. */
function gitUnusable(error: NodeJS.ErrnoException): GitNotFoundError | undefined {
  if (error.code === 'ENOENT')
    return new GitNotFoundError('git is not installed or not on PATH', { cause: error });
  // A `git` on PATH without execute permission, and no other found: git is as unusable as when missing.
  if (error.code === 'EACCES' || error.code === 'EPERM')
    return new GitNotFoundError(
      'git cannot be run: the git on PATH is not executable (permission denied); make it executable, or put a working git earlier on PATH',
      { cause: error, isNotExecutable: true },
    );
  return undefined;
}

/** Runs git with an argument array (never a shell), a timeout, and a clean environment. */
export async function runGit(args: readonly string[], options: RunGitOptions): Promise<GitResult> {
  return resultOf(options, await runGitBuffer(args, options));
}

/**
 * The answer of a git call already running (`exit`, started early with `args`), as runGit would give it
 * for these arguments and options.
 */
export async function runGitFrom(
  exit: Promise<GitExit>,
  args: readonly string[],
  options: RunGitOptions,
): Promise<GitResult> {
  const spawnOptions = { ...options, timeoutMs: options.timeoutMs ?? GIT_TIMEOUT_MS };
  return resultOf(options, settle(args, spawnOptions, await exit));
}

function resultOf(
  options: RunGitOptions,
  { stdout, stderr, exitCode }: { stdout: Buffer; stderr: string; exitCode: number },
): GitResult {
  return {
    stdout: options.exactNames ? textFromBytes(stdout) : stdout.toString(),
    bytes: stdout,
    stderr,
    exitCode,
  };
}

/** Like runGit, with stdout as bytes (for blob contents). */
export async function runGitBuffer(
  args: readonly string[],
  options: RunGitOptions,
): Promise<{ stdout: Buffer; stderr: string; exitCode: number }> {
  const spawnOptions = { ...options, timeoutMs: options.timeoutMs ?? GIT_TIMEOUT_MS };
  const exit = await (takeEarlyGit(args, spawnOptions) ?? spawnGit(args, spawnOptions).exit);
  return settle(args, spawnOptions, exit);
}

/** A git process's end as the caller's answer: its output, or an error that says what went wrong. */
function settle(
  args: readonly string[],
  options: RunGitOptions & { timeoutMs: number },
  exit: GitExit,
): { stdout: Buffer; stderr: string; exitCode: number } {
  if (exit.spawnError) {
    throw gitUnusable(exit.spawnError) ?? exit.spawnError;
  }
  if (exit.timedOut) {
    throw new CheckpointError(
      'GIT_FAILED',
      `git ${subcommand(args)} timed out after ${options.timeoutMs} ms in ${options.cwd}`,
    );
  }
  const exitCode = exit.code ?? -1;
  const stderr = cutUnits(exit.stderr.toString(), 64 * 1024);
  if ((options.okExitCodes ?? [0]).includes(exitCode)) return { stdout: exit.stdout, stderr, exitCode };
  const lines = stderr.trim().split('\n');
  // git's reason, not a warning before it (`could not open directory` for each folder past PATH_MAX);
  // clipped, as git quotes a path whole and such a path is 4 KB.
  const at = lines.findIndex((line) => /^(fatal|error):/.test(line));
  const reason =
    at === -1
      ? (lines.find((line) => line !== '' && !line.startsWith('warning:')) ??
        (lines[0] || `exit ${exitCode}`))
      : withListed(lines, at);
  const detail = clipMiddle(reason, 300);
  throw new CheckpointError(
    'GIT_FAILED',
    `git ${subcommand(args)} failed in ${options.cwd} (exit ${exitCode}): ${detail}`,
  );
}

/**
 * git's reason line, with the paths it lists under it when it ends in `:` (a checkout's "untracked working
 * tree files would be overwritten by checkout:", then one tab-indented path a line): a trial's message
 * named no file.
 */
function withListed(lines: readonly string[], at: number): string {
  const line = lines[at] ?? '';
  if (!line.endsWith(':')) return line;
  const listed: string[] = [];
  for (const next of lines.slice(at + 1)) {
    if (!next.startsWith('\t')) break;
    listed.push(next.trim());
  }
  return listed.length === 0 ? line : `${line} ${listed.join(', ')}`;
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
