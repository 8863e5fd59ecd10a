// The CLI's start (dist/cli-start.cjs), which the npm package's `claude-checkpoint` (dist/cli.cjs, built
// from cli-loader.ts) runs through V8's code cache: it prints the general help, starts `status`'s git early,
// and runs the CLI's CommonJS bundle for the command (dist/cli-main.cjs, or a short path's) through the
// code cache too (store/code-cache.ts), as the hooks do. A command is a fresh `node` process; as ES
// modules, the CLI's hundred files cost more to find, read and compile than the command's own work, and
// this file's own code, compiled afresh at every start, cost `status` about a tenth of its instructions
// (issue 26). Without the bundles, the plain modules (dist/cli.js) run.
import path from 'node:path';
import { cacheNameOf, parseFastCommand } from './cli/fast-argv.js';
import { finishCommand } from './cli/finish.js';
import { writeGeneralHelp } from './cli/help-text.js';
import { isSurelyNoTerminal } from './cli/plain-output.js';
import { guardStdioStreams } from './cli/stdio.js';
import type { EntrySettings } from './store/hook-settings.js';

// The general help is printed from here, and `status` and `list`, and `snapshot`, have bundles of their
// own, without commander or the other commands (cli/fast-argv.ts). The help's text is commander's off a terminal: a
// terminal gets the whole CLI, which fits it to the terminal's width. What only the commands need (the
// early git status, or snapshot's early scan, the settings the code cache reads) is initialised only for them.

/** What the loader (cli-loader.ts) hands over. */
export interface CliLoader {
  /** The loader's own require(): the bundles are beside it. */
  requireBeside: NodeJS.Require;
  /** The settings the loader told from the environment for its own cache (hook-settings.ts). */
  told: EntrySettings | null;
  /** Runs the plain modules, where neither the CLI's bundle nor a short path's could be read. */
  runPlainModules: () => void;
}

/** Runs the command line. */
export function startCli({ requireBeside, told, runPlainModules }: CliLoader): void {
  const argv = process.argv.slice(2);
  const fast = parseFastCommand(argv);
  if (fast?.name === 'help' && isSurelyNoTerminal(1)) {
    guardStdioStreams();
    finishCommand(Promise.resolve(writeGeneralHelp()), false);
    return;
  }
  void Promise.all([
    import('./cli/early-status.js'),
    import('./store/code-cache.js'),
    import('./git/direct-spawn-flag.js'),
    fast?.name === 'snapshot' ? import('./cli/early-snapshot.js') : null,
  ]).then(async ([{ startStatusEarly }, { runCachedBundle }, { allowDirectSpawn }, earlySnapshot]) => {
    // A command is one short process: git runs on libuv's handles, without loading child_process.
    allowDirectSpawn();
    startStatusEarly(argv, process.env, () => process.cwd());
    earlySnapshot?.startSnapshotScanEarly(argv, process.env, () => process.cwd(), told?.storeBase);
    // Where the cache goes, told from the environment as the hooks' entry tells it, without the settings
    // registry's code (about 1 ms of `status` and `list`); a settings file that sets it, or a value in
    // doubt, has the registry read it.
    const cacheBase = told
      ? told.isCodeCacheOn
        ? told.storeBase
        : null
      : (await import('./store/store-base.js')).codeCacheBase(process.env);
    // Each command keeps its own cache, holding the functions it compiles.
    const run = (file: string) =>
      runCachedBundle({
        bundle: path.join(__dirname, file),
        kind: 'cli',
        name: cacheNameOf(argv),
        cacheBase,
        requireBeside,
      });
    const short = fast?.name === 'snapshot' ? 'cli-snapshot.cjs' : 'cli-fast.cjs';
    if (!(fast && fast.name !== 'help' && run(short)) && !run('cli-main.cjs')) runPlainModules();
  });
}
