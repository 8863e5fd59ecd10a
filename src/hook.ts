#!/usr/bin/env node
// The hooks' entry point: `hook.js <event> [--root <dir>] [--agent claude|gemini]`. Lean on purpose: no argument parser, no MCP
// SDK, and each event loads only its own handler, since hooks run on every prompt and command.
import path from 'node:path';
import { defaultDeps } from './app/deps.js';
import { runHook } from './hooks/run.js';

// Claude Code cancels background (async) hooks when a print-mode session ends: finish the write anyway.
for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);

const [event = '', ...rest] = process.argv.slice(2);
const option = (name: string) => {
  const index = rest.indexOf(name);
  return index >= 0 ? rest[index + 1] : undefined;
};
const root = option('--root');
const agent = option('--agent');
// The full CLI sits beside this file (cli.js in the package, cli.mjs in the plugin).
const self = process.argv[1] ?? '';
const cliPath = path.join(path.dirname(self), `cli${path.extname(self)}`);

void runHook(event, { root, agent }, defaultDeps(), { cliPath }).finally(() => {
  // A hook that gave up may leave work in flight: end the process once its output is flushed.
  process.stdout.write('', () => process.exit(0));
});
