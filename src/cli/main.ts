import { Command, CommanderError } from 'commander';
import { type AppDeps, defaultDeps } from '../app/deps.js';
import { GENERATOR } from '../version.js';
import type { CliContext, Runner } from './context.js';
import { EXIT } from './output.js';
import { refuseRepeatedValues } from './repeated-options.js';
import { runAction } from './runner.js';
import { COMMANDER_OUTPUT, writeText } from './stdio.js';

const EXAMPLES = `
Examples:
  claude-checkpoint status
  claude-checkpoint save --goal "Ship OAuth" --task "done:callback route" --next "write the logout endpoint"
  echo '{"goal":"Ship OAuth","mode":"merge"}' | claude-checkpoint save --stdin
  claude-checkpoint brief
  claude-checkpoint doctor
  claude-checkpoint snapshot --label "before the refactor"
  claude-checkpoint list
  claude-checkpoint diff latest src/app.ts
  claude-checkpoint restore 20261130-140102-a1b2c3 --dry-run
  claude-checkpoint restore latest src/ --yes
  claude-checkpoint gc --json
  claude-checkpoint scan src/config.ts .env.example
  git diff --cached | claude-checkpoint scan -
  claude-checkpoint setup gemini --dry-run

Exit codes: 0 ok · 1 failure (doctor: a check failed; scan, handoff push: a secret found; handoff pull: HEAD is not the handoff's base; handoff drop: no such handoff) · 2 bad arguments or input · 3 not confirmed, nothing changed (restore, rewind, handoff pull, handoff drop)
(\`hook\` always exits 0.)`;

/** Builds the CLI; `deps` lets tests pin the environment. Resolves to the process exit code. */
export async function runCli(argv: readonly string[], deps: AppDeps = defaultDeps()): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('claude-checkpoint')
    .description('Session checkpoints and whole-tree snapshots for coding agents, from a terminal.')
    .version(GENERATOR.version)
    .addHelpText('after', EXAMPLES)
    .configureOutput(COMMANDER_OUTPUT)
    // `--root` before the command name too (`claude-checkpoint --root /x status`): the program's own
    // options end where the command's begin, so the command's `--root` after its name is its own.
    .enablePositionalOptions()
    .option('--root <dir>', 'project root, for any command (also after its name)')
    .exitOverride();
  const run: Runner =
    <A extends unknown[]>(action: (ctx: CliContext, ...args: A) => Promise<number>) =>
    async (...args: unknown[]): Promise<void> => {
      const command = args[args.length - 1] as Command;
      // The command's own options over the program's: `--root` given after the command name wins.
      const options = { ...program.opts(), ...withoutUndefined(command.opts()) };
      // commander passes the positional arguments, then the options, then the command.
      exitCode = await runAction(options, deps, action, args.slice(0, -2) as A);
    };

  // Each group's modules are loaded (and, bundled, initialised) only when the group is built.
  const groups: Record<CommandGroup, () => Promise<void>> = {
    checkpoint: async () =>
      (await import('./checkpoint-commands.js')).registerCheckpointCommands(program, run),
    rewind: async () => (await import('./rewind-commands.js')).registerRewindCommands(program, run),
    scan: async () => (await import('./scan-command.js')).registerScanCommand(program, run),
    setup: async () => (await import('./setup-command.js')).registerSetupCommand(program, run),
    handoff: async () => (await import('./handoff-command.js')).registerHandoffCommand(program, run),
    hook: async () =>
      (await import('./hook-command.js')).registerHookCommand(program, deps, (code) => {
        exitCode = code;
      }),
  };
  // A command named first needs only its own group: each command is a fresh process, and building the
  // others was a tenth of its start-up (issue 26). The general help, the version, an unknown name: all.
  const named = groupOf(commandName(argv));
  if (named) await groups[named]();
  else for (const register of Object.values(groups)) await register();
  addUsageHints(program);
  // `hook` never fails the session over its command line, the program's `--root` included: it says so on
  // stderr instead (hook-command.ts).
  if (commandName(argv) !== 'hook') refuseRepeatedValues(program, new Set(['hook']));
  const help = helpRequest(program, argv);
  if (help?.unknown !== undefined) {
    writeText(2, `error: unknown command '${help.unknown}'\n${usageHint(help.command)}\n`);
    return EXIT.usage;
  }
  if (help) {
    help.command.outputHelp();
    return EXIT.ok;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    throw error;
  }
  return exitCode;
}

export type CommandGroup = 'checkpoint' | 'rewind' | 'scan' | 'setup' | 'handoff' | 'hook';

/** Each top-level command by the group that registers it (a test checks this against the groups). */
export const COMMAND_GROUPS: Readonly<Record<string, CommandGroup>> = {
  save: 'checkpoint',
  load: 'checkpoint',
  brief: 'checkpoint',
  status: 'checkpoint',
  doctor: 'checkpoint',
  rewind: 'rewind',
  snapshot: 'rewind',
  list: 'rewind',
  diff: 'rewind',
  restore: 'rewind',
  gc: 'rewind',
  scan: 'scan',
  setup: 'setup',
  handoff: 'handoff',
  hook: 'hook',
};

/** The command a command line names: its first word after the program's `--root <dir>`, if any. */
function commandName(argv: readonly string[]): string | undefined {
  let index = 0;
  while (argv[index] === '--root' || argv[index]?.startsWith('--root='))
    index += argv[index] === '--root' ? 2 : 1;
  return argv[index];
}

function withoutUndefined(options: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

function groupOf(name: string | undefined): CommandGroup | undefined {
  return name !== undefined && Object.hasOwn(COMMAND_GROUPS, name) ? COMMAND_GROUPS[name] : undefined;
}

function usageHint(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return `(run '${names.join(' ')} --help' for usage)`;
}

/** After a usage error, one line naming the help to read, not the whole help (issue 26). */
function addUsageHints(command: Command): void {
  command.showHelpAfterError(usageHint(command));
  for (const sub of command.commands) addUsageHints(sub);
}

/**
 * `help <command…>` and `<command> help <command…>`: the command named, or the first name no command has
 * (issue 26); commander would print the general help of the last command it knows instead. `help` is a
 * request for help only where a command has subcommands: elsewhere it is an argument (`handoff drop help`).
 */
function helpRequest(
  program: Command,
  argv: readonly string[],
): { command: Command; unknown?: string } | undefined {
  let at = program;
  let index = 0;
  for (; index < argv.length && argv[index] !== 'help'; index++) {
    const sub = subcommand(at, argv[index] ?? '');
    if (!sub) return undefined;
    at = sub;
  }
  if (index === argv.length || at.commands.length === 0) return undefined;
  for (const name of argv.slice(index + 1)) {
    if (name.startsWith('-')) break;
    if (name === 'help') continue;
    const sub = subcommand(at, name);
    if (!sub) return { command: at, unknown: name };
    at = sub;
  }
  return { command: at };
}

function subcommand(command: Command, name: string): Command | undefined {
  return command.commands.find((sub) => sub.name() === name || sub.aliases().includes(name));
}
