#!/usr/bin/env node
import { runCli } from './cli/main.js';
import { dropWritesOnClosedPipe } from './cli/output.js';
import { dropEarlyGit } from './git/early-start.js';

const isHook = process.argv[2] === 'hook';
for (const stream of [process.stdout, process.stderr]) dropWritesOnClosedPipe(stream);

runCli(process.argv.slice(2)).then(
  (code) => {
    dropEarlyGit();
    if (isHook) {
      // A hook that gave up may leave work in flight: end the process once its output is flushed.
      process.stdout.write('', () => process.exit(0));
      return;
    }
    process.exitCode = code;
  },
  (error: unknown) => {
    dropEarlyGit();
    process.stderr.write(`claude-checkpoint: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = isHook ? 0 : 1;
  },
);
