// The CLI's short path for `snapshot` (dist/cli-snapshot.cjs), which the loader (cli-loader.ts) runs
// instead of the whole CLI when fast-argv.ts reads the command line. A person's snapshot is a fresh
// process: this bundle holds the command's own code, not commander's nor the other commands', and
// answers byte for byte as the whole CLI does (test/e2e/cli-short-path.test.ts). Apart from the bundle of
// `status` and `list` (cli-fast.ts), which need none of the snapshot's writing.
import { defaultDeps } from './app/deps.js';
import { parseFastCommand } from './cli/fast-argv.js';
import { finishCommand } from './cli/finish.js';
import { runAction } from './cli/runner.js';
import { takeSnapshotNow } from './cli/snapshot-command.js';
import { guardStdioStreams } from './cli/stdio.js';

async function runShortPath(argv: readonly string[]): Promise<number> {
  const command = parseFastCommand(argv);
  if (command?.name !== 'snapshot') throw new Error(`the short path does not run: ${argv.join(' ')}`);
  return runAction(command.options, defaultDeps(), takeSnapshotNow, []);
}

guardStdioStreams();
// The command awaits all it starts (a gc too): it ends once its output is out, where waiting for the event
// loop to drain gave V8 the time for a collection it had scheduled for the first idle moment.
finishCommand(runShortPath(process.argv.slice(2)), false, true);
