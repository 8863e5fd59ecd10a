// The command lines the CLI's loader answers with its short paths: the general help, `status` and `list`
// (dist/cli-fast.cjs, built from src/cli-fast.ts) and `snapshot` (dist/cli-snapshot.cjs, from
// src/cli-snapshot.ts), each with the flags it takes after its name.
// Each is a fresh process, and the short path loads neither commander nor the other commands' code
// (issue 26). Anything else, or any doubt (a flag's value that looks like a flag, `--root` before the
// command's name, an argument), goes to the whole CLI, whose parser answers it.

/** A command line the short path answers, with the options commander would have given the command. */
export type FastCommand =
  | { name: 'help' }
  | { name: ShortCommand; options: Record<string, string | boolean> };

/** The flags that take a value, by command: `--root <dir>`, `list --limit <n>`, `snapshot --label` and `--trigger`. */
const VALUE_FLAGS = {
  status: /^--(root)(?:=([\s\S]*))?$/,
  list: /^--(root|limit)(?:=([\s\S]*))?$/,
  snapshot: /^--(root|label|trigger)(?:=([\s\S]*))?$/,
};
type ShortCommand = keyof typeof VALUE_FLAGS;

/** commander's defaults: `--no-color` makes `color` false, `list --limit` is 20, `snapshot --trigger` manual. */
const DEFAULTS: Record<ShortCommand, Record<string, string | boolean>> = {
  status: { color: true },
  list: { limit: '20', color: true },
  snapshot: { trigger: 'manual', color: true },
};

/** The command line as the short path runs it, or `undefined` for the whole CLI. No imports: the loader runs this. */
export function parseFastCommand(argv: readonly string[]): FastCommand | undefined {
  const [name, ...rest] = argv;
  if (argv.length === 1 && (name === '--help' || name === '-h' || name === 'help')) return { name: 'help' };
  if (name !== 'status' && name !== 'list' && name !== 'snapshot') return undefined;
  const options = { ...DEFAULTS[name] };
  const given = new Set<string>();
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index] as string;
    if (arg === '--json' || arg === '--debug') options[arg.slice(2)] = true;
    else if (arg === '--no-color') options.color = false;
    else {
      const flag = VALUE_FLAGS[name].exec(arg);
      if (!flag) return undefined;
      const value = flag[2] ?? rest[++index];
      // A value that looks like a flag, or none: commander's error or reading, not a guess.
      if (value === undefined || (flag[2] === undefined && value.startsWith('-'))) return undefined;
      // Given twice: the whole CLI refuses it, naming the flag (cli/repeated-options.ts).
      if (given.has(flag[1] as string)) return undefined;
      given.add(flag[1] as string);
      options[flag[1] as string] = value;
    }
  }
  return { name, options };
}

/** The CLI's command words (cli/main.ts's COMMAND_GROUPS, and `help`): each keeps a code cache of its own. */
export const CACHED_COMMANDS: ReadonlySet<string> = new Set([
  'brief',
  'diff',
  'doctor',
  'gc',
  'handoff',
  'help',
  'hook',
  'list',
  'load',
  'restore',
  'rewind',
  'save',
  'scan',
  'setup',
  'snapshot',
  'status',
]);

/**
 * The name of a command line's code cache (store/code-cache.ts): its command word, past the flags every
 * command takes (`--root <dir>` too), else `other`. Never a flag's value: `--root=<path>` first named a
 * 400 KB cache after the path's letters, one per path (new-user trial 2026-12-07).
 */
export function cacheNameOf(argv: readonly string[]): string {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === '--root') index++;
    else if (!arg.startsWith('-')) return CACHED_COMMANDS.has(arg) ? arg : 'other';
  }
  return argv.includes('--help') || argv.includes('-h') ? 'help' : 'other';
}
