#!/usr/bin/env node
import { runCli } from './cli/main.js';
import { afterStdoutFlushed, guardStdioStreams, writeText } from './cli/stdio.js';
import { dropEarlyGit } from './git/early-start.js';

const isHook = process.argv[2] === 'hook';
guardStdioStreams();

runCli(process.argv.slice(2)).then(
  (code) => {
    dropEarlyGit();
    if (isHook) {
      // A hook that gave up may leave work in flight: end the process once its output is flushed.
      afterStdoutFlushed(() => process.exit(0));
      return;
    }
    process.exitCode = code;
  },
  (error: unknown) => {
    dropEarlyGit();
    writeText(2, `claude-checkpoint: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = isHook ? 0 : 1;
  },
);
