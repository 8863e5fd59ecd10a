import { lstatSync } from 'node:fs';
import path from 'node:path';
import { CHECKPOINT_FILE } from '../core/paths.js';
import { keepEarlyGit } from '../git/early-start.js';
import { GIT_SCAN_TIMEOUT_MS, gitEnvironment } from '../git/spawn.js';
import { spawnGitDirect } from '../git/spawn-direct.js';
import { STATUS_ARGS } from '../git/status.js';

// Run by the CLI's loader before anything else loads. `claude-checkpoint status` in a project with a
// checkpoint runs one `git status` in the current folder (the drift check): started here, git scans the
// tree while Node loads the CLI. Only where the root is surely the current folder; anywhere else the
// command runs its own git as always, and an early call nothing took is ended when the command is.

/** The flags every command takes (cli/context.ts, withCommonOptions) but `--root`: none moves the root. */
export const ROOTLESS_FLAGS: ReadonlySet<string> = new Set(['--json', '--no-color', '--debug']);

/**
 * Starts `status`'s `git status` now when the command line and the folder say it will run. Only ever a
 * saving: anything in the way (no current folder, git missing) leaves the command to run as always.
 */
export function startStatusEarly(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: () => string): void {
  if (argv[0] !== 'status' || !argv.slice(1).every((arg) => ROOTLESS_FLAGS.has(arg))) return;
  if (env.CHECKPOINT_PROJECT_ROOT?.trim()) return;
  try {
    const folder = cwd();
    if (!lstatSync(path.join(folder, CHECKPOINT_FILE), { throwIfNoEntry: false })?.isFile()) return;
    const options = { cwd: folder, timeoutMs: GIT_SCAN_TIMEOUT_MS };
    // Only where git can run without child_process (spawn.ts would run it so): the loader, which also
    // prints the help, carries no child_process code, and elsewhere the command starts git itself.
    const started = spawnGitDirect(STATUS_ARGS, options, gitEnvironment());
    if (started) keepEarlyGit(STATUS_ARGS, options, started);
  } catch {
    // The command meets the same problem itself, and says so.
  }
}
