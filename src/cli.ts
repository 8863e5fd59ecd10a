#!/usr/bin/env node
import { runCli } from './cli/main.js';
import { afterStdoutFlushed, guardStdioStreams, outputFailure, writeText } from './cli/stdio.js';
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
    // Output that could not be written (`>/dev/full`): the work is done, but its report is lost.
    const failure = outputFailure();
    if (failure !== undefined) writeText(2, `claude-checkpoint: ${failure}\n`);
    process.exitCode = failure !== undefined && code === 0 ? 1 : code;
  },
  (error: unknown) => {
    dropEarlyGit();
    writeText(2, `claude-checkpoint: ${error instanceof Error ? error.message : String(error)}\n`);
    const failure = outputFailure();
    if (failure !== undefined) writeText(2, `claude-checkpoint: ${failure}\n`);
    process.exitCode = isHook ? 0 : 1;
  },
);
