// The CLI's short path (dist/cli-fast.cjs): the general help, `status` and `list`, which the loader
// (cli-loader.ts) runs instead of the whole CLI when fast-argv.ts reads the command line. Each command is
// a fresh process: this bundle holds only these commands' code, not commander's nor the other
// commands', and answers byte for byte as the whole CLI does (test/e2e/cli-short-path.test.ts).
import { defaultDeps } from './app/deps.js';
import { parseFastCommand } from './cli/fast-argv.js';
import { finishCommand } from './cli/finish.js';
import { showSnapshotList } from './cli/list-command.js';
import { EXIT } from './cli/output.js';
import { runAction } from './cli/runner.js';
import { showStatus } from './cli/status-command.js';
import { guardStdioStreams, writeText } from './cli/stdio.js';

/** The general help as commander prints it off a terminal, taken from the whole CLI by scripts/bundle.mjs. */
declare const CLI_HELP_TEXT: string;

async function runShortPath(argv: readonly string[]): Promise<number> {
  const command = parseFastCommand(argv);
  if (!command) throw new Error(`the short path does not run: ${argv.join(' ')}`);
  if (command.name === 'help') {
    writeText(1, CLI_HELP_TEXT);
    return EXIT.ok;
  }
  return runAction(
    command.options,
    defaultDeps(),
    command.name === 'status' ? showStatus : showSnapshotList,
    [],
  );
}

guardStdioStreams();
finishCommand(runShortPath(process.argv.slice(2)), false);
