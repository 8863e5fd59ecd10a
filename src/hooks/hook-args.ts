export interface HookOptions {
  root?: string | undefined;
  agent?: string | undefined;
  /** A flag given more than once (`--root a --root b`): which one was meant is not guessed. */
  repeated?: string | undefined;
}

/**
 * A hook's command line: `<event> [--root <dir>] [--agent <name>]`, each flag also as `--root=<dir>`, as
 * the CLI's `hook` takes them. Its own module, with no imports, for the plugin's loader, which reads
 * `--root` to find the project's server before anything else loads.
 */
export function parseHookArgs(argv: readonly string[]): { event: string; options: HookOptions } {
  const [event = '', ...rest] = argv;
  const values = new Map<string, Array<string | undefined>>();
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index] as string;
    const name = ['--root', '--agent'].find((flag) => arg === flag || arg.startsWith(`${flag}=`));
    if (name === undefined) continue;
    const value = arg === name ? rest[++index] : arg.slice(name.length + 1);
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  const first = (name: string) => values.get(name)?.[0];
  const repeated = ['--root', '--agent'].find((name) => new Set(values.get(name)).size > 1);
  return {
    event,
    options: { root: first('--root'), agent: first('--agent'), ...(repeated ? { repeated } : {}) },
  };
}
