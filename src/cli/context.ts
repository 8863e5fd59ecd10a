import path from 'node:path';
import type { Command } from 'commander';
import type { AppDeps } from '../app/deps.js';
import { CheckpointError } from '../core/errors.js';
import type { CommandFolder, SurfaceWords } from '../core/surface.js';
import type { Output } from './output.js';

/** What every command handler gets: the app's dependencies, the output, the root and its own options. */
export interface CliContext {
  deps: AppDeps;
  out: Output;
  /** Absolute; `--root` may be given relative to the current folder. */
  root: string | undefined;
  options: Record<string, unknown>;
  /** The CLI's words, whose commands carry this command's `--root` (see core/surface.ts). */
  words: SurfaceWords;
  positiveInteger: (flag: string, value: string) => number;
}

/** `--root` and `--json` on every command, as docs/cli.md promises. */
export function withCommonOptions(command: Command): Command {
  return command
    .option('--root <dir>', 'project root (default: CHECKPOINT_PROJECT_ROOT, then the current folder)')
    .option('--json', 'machine-readable output on stdout')
    .option('--no-color', 'no colours (also: NO_COLOR)')
    .option('--debug', 'show stack traces on errors');
}

/**
 * `--root` as an absolute path. `''` is refused: path.resolve would make it the current folder in silence.
 * The current folder is read only for a relative `--root`: an absolute one works from a deleted folder.
 */
export function resolveRootOption(root: string | undefined, cwd: () => string): string | undefined {
  if (root === '') throw new CheckpointError('INVALID_INPUT', EMPTY_ROOT_MESSAGE);
  if (root === undefined) return undefined;
  return path.isAbsolute(root) ? path.resolve(root) : path.resolve(cwd(), root);
}

/**
 * The folder the paths a person typed are taken from: the current folder, as git takes them (then made
 * relative to the project, see toProjectPath). Read only when a path is relative: absolute paths work from
 * a deleted folder.
 */
export function pathsFromOf(paths: readonly string[], cwd: () => string): string | undefined {
  return paths.some((file) => !path.isAbsolute(file)) ? cwd() : undefined;
}

/**
 * Where this command runs (see CommandFolder), for the paths of the commands it prints: written from the
 * current folder, they work as printed. Undefined where the current folder is gone (then from the root).
 */
export async function commandFolderOf(ctx: CliContext): Promise<CommandFolder | undefined> {
  let cwd: string;
  try {
    cwd = ctx.deps.cwd();
  } catch {
    return undefined;
  }
  const { resolveProjectRoot } = await import('../app/root.js');
  const resolved = await resolveProjectRoot({
    argument: ctx.root,
    env: ctx.deps.env,
    cwd: () => cwd,
    surface: 'cli',
  });
  return { projectRoot: resolved.root, cwd };
}

/** What `--root ''` is told, by every command and by `hook`. */
export const EMPTY_ROOT_MESSAGE =
  "--root must name the project's folder: got '' (leave --root out for the current folder)";

/**
 * A string option given as `''`, refused: an empty value must not fall back to the default in silence
 * (as `--root ''`). `leaveOut`: what leaving the option out means.
 */
export function refuseEmpty(flag: string, value: string | undefined, what: string, leaveOut: string): void {
  if (value?.trim() === '')
    throw new CheckpointError('INVALID_INPUT', `${flag} must name ${what}: got '' (${leaveOut})`);
}

export function positiveInteger(flag: string, value: string): number {
  // Plain decimal digits only: Number() also takes `0x10`, `1e2`, `0b11` and ` 5 `.
  const number = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  // A whole number past the safe range is one, but not one this can count to: name the limit (bad-input trial).
  if (number > Number.MAX_SAFE_INTEGER)
    throw new CheckpointError(
      'INVALID_INPUT',
      `${flag} must be at most ${Number.MAX_SAFE_INTEGER}: got '${value}'`,
    );
  if (!Number.isSafeInteger(number) || number < 1) {
    throw new CheckpointError(
      'INVALID_INPUT',
      `${flag} must be a whole number of at least 1, in decimal digits: got '${value}'`,
    );
  }
  return number;
}

/** Wraps a command handler: builds its context, turns errors into one line and an exit code. */
export type Runner = <A extends unknown[]>(
  action: (ctx: CliContext, ...args: A) => Promise<number>,
) => (...args: unknown[]) => Promise<void>;
