#!/usr/bin/env node
import { runCli } from './cli/main.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`claude-checkpoint: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
