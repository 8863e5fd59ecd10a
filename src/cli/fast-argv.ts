// The command lines the CLI's loader answers with its short path (dist/cli-fast.cjs, built from
// src/cli-fast.ts): the general help, and `status` and `list` with the flags they take after their name.
// Each is a fresh process, and the short path loads neither commander nor the other commands' code
// (issue 26). Anything else, or any doubt (a flag's value that looks like a flag, `--root` before the
// command's name, an argument), goes to the whole CLI, whose parser answers it.

/** A command line the short path answers, with the options commander would have given the command. */
export type FastCommand =
  | { name: 'help' }
  | { name: 'status' | 'list'; options: Record<string, string | boolean> };

/** The flags that take a value, by command: `--root <dir>`, and `list --limit <n>`. */
const VALUE_FLAGS = {
  status: /^--(root)(?:=([\s\S]*))?$/,
  list: /^--(root|limit)(?:=([\s\S]*))?$/,
};

/** The command line as the short path runs it, or `undefined` for the whole CLI. No imports: the loader runs this. */
export function parseFastCommand(argv: readonly string[]): FastCommand | undefined {
  const [name, ...rest] = argv;
  if (argv.length === 1 && (name === '--help' || name === '-h' || name === 'help')) return { name: 'help' };
  if (name !== 'status' && name !== 'list') return undefined;
  // commander's defaults: `--no-color` makes `color` true, and `list --limit` is 20.
  const options: Record<string, string | boolean> =
    name === 'list' ? { limit: '20', color: true } : { color: true };
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
      options[flag[1] as string] = value;
    }
  }
  return { name, options };
}
