import type { AppDeps } from '../app/deps.js';
import { wordsFor } from '../core/surface.js';
import { type CliContext, positiveInteger, resolveRootOption } from './context.js';
import { createOutput, reportError } from './output.js';

/**
 * Runs one command's action: builds its context from the command line's options (the program's and the
 * command's, merged as commander gives them), turns an error into one line and an exit code. The CLI's
 * parser (main.ts) and the loader's short paths (cli-fast.ts, cli-snapshot.ts) run commands through it.
 */
export async function runAction<A extends unknown[]>(
  options: Record<string, unknown>,
  deps: AppDeps,
  action: (ctx: CliContext, ...args: A) => Promise<number>,
  args: A,
): Promise<number> {
  const out = createOutput(options, deps.env);
  // Each unused setting said once, on stderr: a misspelt key must not pass in silence.
  const warned = new Set<string>();
  const settingsWarning = (message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    out.note(`claude-checkpoint: warning: ${message}`);
  };
  // The user's own file, for every command; a project's file where the command reads the project's
  // settings (its warnings come through settingsWarning then).
  const { readSettings } = await import('../store/settings-file.js');
  for (const problem of readSettings(deps.env).problems)
    if (problem.severity === 'warning' && !problem.name) settingsWarning(problem.message);
  try {
    const root = resolveRootOption(options.root as string | undefined, deps.cwd);
    const ctx: CliContext = {
      // Messages name the CLI's commands and flags; the hooks' output reaches the model, in the tools' words.
      deps: { ...deps, surface: 'cli', settingsWarning, commandRoot: root },
      out,
      root,
      options,
      positiveInteger,
      words: wordsFor('cli', root),
    };
    return await action(ctx, ...args);
  } catch (error) {
    out.endProgress();
    return reportError(error, Boolean(options.debug));
  }
}
