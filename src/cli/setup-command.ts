import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { FileReport, SetupAgent } from '../app/setup.js';
import { SETUP_AGENTS } from '../app/setup-agents.js';
import { CheckpointError } from '../core/errors.js';
import { type Runner, withCommonOptions } from './context.js';
import { EXIT } from './output.js';

/** `claude-checkpoint setup <agent>`: wires the MCP server and the hooks into another agent's configuration. */
export function registerSetupCommand(program: Command, run: Runner): void {
  withCommonOptions(
    program
      .command('setup')
      .argument(
        '<agent>',
        `the agent to set up: ${SETUP_AGENTS.join(', ')} (Claude Code: install the plugin)`,
      )
      .description("add this tool's MCP server and hooks to an agent's configuration, or take them out again")
      .option('--user', 'in your user configuration (the default)')
      .option(
        '--project',
        "in the project's configuration (its files name this machine's paths: commit them only if every machine installs at the same path)",
      )
      .option('--dry-run', 'print the configuration it would write, change nothing')
      .option('--uninstall', 'take out exactly what setup added'),
  ).action(
    run(async (ctx, agent: string) => {
      if (!(SETUP_AGENTS as readonly string[]).includes(agent))
        throw new CheckpointError(
          'INVALID_INPUT',
          `agent must be one of ${SETUP_AGENTS.join(', ')}: got '${agent}' (for Claude Code, install the session-checkpoint plugin)`,
        );
      const options = ctx.options as {
        user?: boolean;
        project?: boolean;
        dryRun?: boolean;
        uninstall?: boolean;
      };
      if (options.user && options.project)
        throw new CheckpointError('INVALID_INPUT', 'choose one of --user and --project');
      // The installed files of this very installation, never a path taken from a repository. npm's bin
      // is a link to the CLI: its folder holds none of the other files.
      const self = realpathOrSelf(process.argv[1] ?? '');
      const dir = path.dirname(self);
      const bundled = path.extname(self) === '.mjs';
      // --root is checked as every other command checks it, before any file of the agent's is read.
      if (ctx.root !== undefined) {
        const { resolveProjectRoot } = await import('../app/root.js');
        await resolveProjectRoot({ argument: ctx.root, cwd: ctx.deps.cwd, surface: 'cli' });
      }
      const { setupAgent } = await import('../app/setup.js');
      const report = await setupAgent(
        {
          agent: agent as SetupAgent,
          scope: options.project ? 'project' : 'user',
          projectRoot: ctx.root ?? ctx.deps.cwd(),
          dryRun: Boolean(options.dryRun),
          uninstall: Boolean(options.uninstall),
          serverPath: path.join(dir, bundled ? 'server.mjs' : 'index.js'),
          hookPath: hookEntry(dir, bundled),
          commandRoot: ctx.root,
        },
        ctx.deps.env,
      );
      if (ctx.out.json) ctx.out.printJson(report);
      else {
        const verb = report.dryRun ? DRY_RUN_VERBS : VERBS;
        if (report.relativeHome)
          ctx.out.print(
            `${report.relativeHome.variable} is the relative path "${report.relativeHome.value}", which the agent takes from the folder it starts in: setup used ${report.relativeHome.folder}.`,
          );
        for (const file of report.files) {
          ctx.out.print(`${report.dryRun ? '(dry run) ' : ''}${verb[file.action](file.holds)} ${file.file}`);
          if (report.dryRun && file.content !== null) ctx.out.print(file.content);
        }
        if (report.nextStep) ctx.out.print(`One step is yours: ${report.nextStep}`);
        if (report.hooksOff)
          ctx.out.print(
            ctx.out.warn(
              `Warning: ${report.hooksOff.file} switches every hook off (${report.hooksOff.setting}), so none of ours runs: take that setting out to have them run.`,
            ),
          );
        if (report.otherScope)
          ctx.out.print(
            ctx.out.warn(
              `Warning: ${report.otherScope.files.join(' and ')} ${report.otherScope.files.length > 1 ? 'hold' : 'holds'} our hooks too (the ${options.project ? 'user' : 'project'} set-up), and ${report.otherScope.why}, so every hook runs twice: ${report.otherScope.twice}. ${report.otherScope.fix}`,
            ),
          );
        if (report.inlineHooks)
          ctx.out.print(ctx.out.warn(`Warning: ${report.inlineHooks.detail}. ${report.inlineHooks.fix}`));
      }
      return EXIT.ok;
    }),
  );
}

/** One line per file: what happened to what of ours it holds (a file may hold the server, the hooks, or both). */
const VERBS: Record<FileReport['action'], (holds: string) => string> = {
  installed: (holds) => `Added ${holds} to`,
  updated: (holds) => `Updated ${holds} in`,
  unchanged: () => 'Already set up:',
  removed: (holds) => `Took ${holds} out of`,
  absent: () => 'Nothing of ours in',
};

/** A dry run changes nothing, and says so in every line. */
const DRY_RUN_VERBS: Record<FileReport['action'], (holds: string) => string> = {
  installed: (holds) => `Would add ${holds} to`,
  updated: (holds) => `Would update ${holds} in`,
  unchanged: () => 'Already set up:',
  removed: (holds) => `Would take ${holds} out of`,
  absent: () => 'Nothing of ours in',
};

function realpathOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/**
 * The hooks' entry of this installation. The plugin's bundle runs through V8's code cache and starts in
 * a fraction of the time the package's unbundled `hook.js` takes, so the package ships it too
 * (plugin/dist/hook.cjs) and hooks are pointed at it; `hook.js` is the fallback.
 */
function hookEntry(dir: string, bundled: boolean): string {
  if (bundled) return path.join(dir, 'hook.cjs');
  const shipped = path.join(dir, '..', 'plugin', 'dist', 'hook.cjs');
  return existsSync(shipped) ? shipped : path.join(dir, 'hook.js');
}
