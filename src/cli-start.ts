#!/usr/bin/env node
// The npm package's `claude-checkpoint` (dist/cli.cjs, built by scripts/bundle.mjs): runs the CLI's
// CommonJS bundle (dist/cli-main.cjs) through V8's code cache (store/code-cache.ts), as the hooks do. A
// command is a fresh `node` process; as ES modules, the CLI's hundred files cost more to find, read and
// compile than the command's own work (issue 26). Without the bundle, the plain modules (dist/cli.js) run.
//
// CommonJS throughout: an ES module entry alone starts Node's ES module loader, a tenth of `node -e 0`.
// `__dirname`, not argv[1]: npm's bin is a link to this file, and __dirname is the folder it links to.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseFastCommand } from './cli/fast-argv.js';
import { finishCommand } from './cli/finish.js';
import { writeGeneralHelp } from './cli/help-text.js';
import { isSurelyNoTerminal } from './cli/plain-output.js';
import { guardStdioStreams } from './cli/stdio.js';

// The general help is printed from here, and `status` and `list`, and `snapshot`, have bundles of their
// own, without commander or the other commands (cli/fast-argv.ts). The help's text is commander's off a terminal: a
// terminal gets the whole CLI, which fits it to the terminal's width. This file has no code cache: V8
// compiles what it runs each time, so what only the commands need (the early git status, the settings
// the code cache reads) is loaded, bundled, only for them (about 3 ms, issue 26).
const argv = process.argv.slice(2);
const fast = parseFastCommand(argv);
if (fast?.name === 'help' && isSurelyNoTerminal(1)) {
  guardStdioStreams();
  finishCommand(Promise.resolve(writeGeneralHelp()), false);
} else
  void Promise.all([
    import('./cli/early-status.js'),
    import('./store/code-cache.js'),
    import('./store/hook-settings.js'),
    import('./git/direct-spawn-flag.js'),
  ]).then(async ([{ startStatusEarly }, { runCachedBundle }, { entrySettings }, { allowDirectSpawn }]) => {
    // A command is one short process: git runs on libuv's handles, without loading child_process.
    allowDirectSpawn();
    startStatusEarly(argv, process.env, () => process.cwd());
    // Where the cache goes, told from the environment as the hooks' entry tells it, without the settings
    // registry's code (about 1 ms of `status` and `list`); a settings file that sets it, or a value in
    // doubt, has the registry read it.
    const told = entrySettings(process.env);
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
        name: argv[0] ?? '',
        cacheBase,
        // This file's own: the bundles are beside it (__dirname), and it is CommonJS.
        requireBeside: require,
      });
    const short = fast?.name === 'snapshot' ? 'cli-snapshot.cjs' : 'cli-fast.cjs';
    if (!(fast && fast.name !== 'help' && run(short)) && !run('cli-main.cjs'))
      void import(pathToFileURL(path.join(__dirname, 'cli.js')).href);
  });
