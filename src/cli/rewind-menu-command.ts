import type { Command } from 'commander';
import type { RewindMode } from '../app/rewind-menu.js';
import { CheckpointError } from '../core/errors.js';
import { cliCommand } from '../core/surface.js';
import { type Runner, refuseEmpty, withCommonOptions } from './context.js';
import { EXIT } from './output.js';
import { applyRewind, canPrompt } from './rewind-apply.js';

interface RewindOptions {
  list?: boolean;
  all?: boolean;
  code?: boolean;
  conversation?: boolean;
  both?: boolean;
  yes?: boolean;
  dryRun?: boolean;
  session?: string;
}

/** `root`: the `--root` the command was given, carried into the commands it names. */
const noTerminalHint = (root: string | undefined) =>
  `rewind needs a terminal for its menu. Without one: \`${cliCommand('rewind', { root, args: ['--list', '--json'] })}\` to see the prompts, then \`${cliCommand('rewind', { root })} <id|latest~N> --code|--conversation|--both --yes\`.`;

function modeOf(options: RewindOptions): RewindMode | null {
  const chosen = (['code', 'conversation', 'both'] as const).filter((mode) => options[mode]);
  if (chosen.length > 1)
    throw new CheckpointError(
      'INVALID_INPUT',
      `choose one of --code, --conversation, --both: got ${chosen.map((mode) => `--${mode}`).join(' ')}`,
    );
  return chosen[0] ?? null;
}

/** `claude-checkpoint rewind`: the spec's /rewind, from a terminal or a script. */
export function registerRewindMenuCommand(program: Command, run: Runner): void {
  withCommonOptions(
    program
      .command('rewind')
      .description(
        'go back to a prompt of the session: its code, its conversation (a new session), or both; a menu on a terminal',
      )
      .argument('[ref]', 'a prompt: its id or a unique prefix, latest, or latest~N (N prompts before it)')
      .option('--list', 'list the prompts of the current session, newest first')
      .option('--all', 'every session of the project, each with its resume command')
      .option('--code', 'restore the files as they were just before the prompt')
      .option('--conversation', 'write a new session holding the conversation before the prompt')
      .option('--both', 'restore code and conversation')
      .option('-y, --yes', 'apply without asking')
      .option('--dry-run', 'show what would happen and change nothing')
      .option(
        '--session <id>',
        'the current session, by its id or a unique prefix (default: the agent’s, else the one that prompted last)',
      ),
  ).action(
    run(async (ctx, ref?: string) => {
      const options = ctx.options as RewindOptions;
      // As `--root ''`: an empty value must not fall back to the default in silence.
      refuseEmpty(
        '--session',
        options.session,
        'a session, by its id or a unique prefix',
        "leave --session out for the agent's, else the one that prompted last",
      );
      const base = { projectRoot: ctx.root, sessionId: options.session };
      if (options.list || (options.all && ref === undefined && !canPrompt(ctx))) {
        const { listRewind } = await import('../app/rewind-menu.js');
        const listing = await listRewind(ctx.deps, { ...base, all: Boolean(options.all) });
        if (ctx.out.json) ctx.out.printJson(listing);
        else
          ctx.out.print(
            (await import('../core/rewind-text.js')).renderRewindList(listing, ctx.deps.now(), ctx.root),
          );
        return EXIT.ok;
      }
      const mode = modeOf(options);
      if (ref === undefined || mode === null) {
        if (!canPrompt(ctx)) {
          ctx.out.note(
            ref === undefined
              ? noTerminalHint(ctx.root)
              : 'choose what to restore: --code, --conversation or --both (a menu needs a terminal).',
          );
          return EXIT.usage;
        }
        const { runRewindPicker } = await import('./rewind-picker.js');
        return runRewindPicker(ctx, { ...base, all: Boolean(options.all), ref });
      }
      return applyRewind(ctx, { ...base, ref, mode }, options);
    }),
  );
}
