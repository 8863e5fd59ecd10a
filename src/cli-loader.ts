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
import { startStatusEarly } from './cli/early-status.js';
import { runCachedBundle } from './store/code-cache.js';

startStatusEarly(process.argv.slice(2), process.env, () => process.cwd());
const bundle = path.join(__dirname, 'cli-main.cjs');
// Each command keeps its own cache, holding the functions it compiles.
if (!runCachedBundle({ bundle, kind: 'cli', name: process.argv[2] ?? '', env: process.env }))
  void import(pathToFileURL(path.join(__dirname, 'cli.js')).href);
