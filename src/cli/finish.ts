import { dropEarlyGit } from '../git/early-start.js';
import { afterStdoutFlushed, outputFailure, writeText } from './stdio.js';

/**
 * Ends a command the CLI ran: its exit code, an output that could not be written, an error in one line.
 * Shared by the whole CLI (cli.ts) and the loader's short paths (cli-fast.ts, cli-snapshot.ts).
 */
export function finishCommand(outcome: Promise<number>, isHook: boolean): void {
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
    },
    (error: unknown) => {
      dropEarlyGit();
      writeText(2, `claude-checkpoint: ${error instanceof Error ? error.message : String(error)}\n`);
      const failure = outputFailure();
      if (failure !== undefined) writeText(2, `claude-checkpoint: ${failure}\n`);
      process.exitCode = isHook ? 0 : 1;
    },
  );
}
