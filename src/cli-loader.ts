#!/usr/bin/env node
// The npm package's `claude-checkpoint` (dist/cli.cjs, built by scripts/bundle.mjs). Node compiles the
// file it runs afresh at every start, with no code cache: this one only runs the CLI's start
// (dist/cli-start.cjs, cli-start.ts) through V8's code cache (store/code-cache.ts), which did the start
// compiled from here before, at about a tenth of `status`'s instructions (issue 26). Without it, the plain
// modules (dist/cli.js) run.
//
// CommonJS throughout: an ES module entry alone starts Node's ES module loader, a tenth of `node -e 0`.
// `__dirname`, not argv[1]: npm's bin is a link to this file, and __dirname is the folder it links to.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cacheNameOf } from './cli/fast-argv.js';
import { tuneForShortProcess } from './cli/short-process-tiering.js';
import type { CliLoader } from './cli-start.js';
import { loadCachedBundle } from './store/code-cache.js';
import { entrySettings } from './store/hook-settings.js';

const runPlainModules = () => void import(pathToFileURL(path.join(__dirname, 'cli.js')).href);
// Where the cache goes, told from the environment as the hooks' entry tells it; where a settings file
// sets it, or a value is in doubt, the start runs without a cache and has the settings registry read it
// for the command's bundle.
const told = entrySettings(process.env);
const commandName = cacheNameOf(process.argv.slice(2));
if (commandName !== 'help') tuneForShortProcess();
const start = loadCachedBundle({
  bundle: path.join(__dirname, 'cli-start.cjs'),
  kind: 'cli',
  // Each command keeps its own, holding the functions it compiles (`cli-start<command>-…`).
  name: `start${commandName}`,
  cacheBase: told?.isCodeCacheOn ? told.storeBase : null,
  // This file's own: the bundles are beside it (__dirname), and it is CommonJS.
  requireBeside: require,
});
const startCli = start?.startCli as ((loader: CliLoader) => void) | undefined;
if (typeof startCli === 'function') startCli({ requireBeside: require, told, runPlainModules });
else runPlainModules();
