// The CLI's short path (dist/cli-fast.cjs): `status` and `list`, which the loader (cli-loader.ts) runs
// instead of the whole CLI when fast-argv.ts reads the command line. Each command is a fresh process:
// this bundle holds only these commands' code, not commander's nor the other commands', and answers
// byte for byte as the whole CLI does (test/e2e/cli-short-path.test.ts), but for a checkpoint that lists
// a file whose name is a token: without the secret detector, that file counts as changed
// (core/path-redaction.ts).
import { defaultDeps } from './app/deps.js';
import { parseFastCommand } from './cli/fast-argv.js';
import { finishCommand } from './cli/finish.js';
import { showSnapshotList } from './cli/list-command.js';
import { runAction } from './cli/runner.js';
import { showStatus } from './cli/status-command.js';
import { guardStdioStreams } from './cli/stdio.js';
import { holdSettings } from './store/settings-file.js';

async function runShortPath(argv: readonly string[]): Promise<number> {
  const command = parseFastCommand(argv);
  // The loader prints the general help itself.
  if (command?.name !== 'status' && command?.name !== 'list')
    throw new Error(`the short path does not run: ${argv.join(' ')}`);
  const action = command.name === 'status' ? showStatus : showSnapshotList;
  // One short process: one version of the settings throughout.
  holdSettings();
  return runAction(command.options, defaultDeps(), action, []);
}

guardStdioStreams();
// Both commands await all they start: the process may end once their output is out.
finishCommand(runShortPath(process.argv.slice(2)), false, true);
