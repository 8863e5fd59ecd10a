import { dropEarlyGit } from '../git/early-start.js';
import { afterOutputFlushed, afterStdoutFlushed, outputFailure, writeText } from './stdio.js';

/**
 * Ends a command the CLI ran: its exit code, an output that could not be written, an error in one line.
 * Shared by the whole CLI (cli.ts) and the loader's short paths (cli-fast.ts, cli-snapshot.ts).
 * `exitOnceWritten`, for commands that leave nothing in flight once their outcome is settled (the short
 * path's `status` and `list`): the process ends as soon as the output is out, where it would wait for
 * the event loop to drain, and V8 would spend about a millisecond on a garbage collection it had
 * scheduled for the first idle moment (issue 26).
 */
export function finishCommand(outcome: Promise<number>, isHook: boolean, exitOnceWritten = false): void {
  const end = () => {
    if (exitOnceWritten) afterOutputFlushed(() => process.exit());
  };
  outcome.then(
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
      end();
    },
    (error: unknown) => {
      dropEarlyGit();
      writeText(2, `claude-checkpoint: ${error instanceof Error ? error.message : String(error)}\n`);
      const failure = outputFailure();
      if (failure !== undefined) writeText(2, `claude-checkpoint: ${failure}\n`);
      process.exitCode = isHook ? 0 : 1;
      end();
    },
  );
}
