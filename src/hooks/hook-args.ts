export interface HookOptions {
  root?: string | undefined;
  agent?: string | undefined;
  /** A flag given more than once (`--root a --root b`): which one was meant is not guessed. */
  repeated?: string | undefined;
}

/**
 * A hook's command line: `<event> [--root <dir>] [--agent <name>]`. Its own module, with no imports, for
 * the plugin's loader, which reads `--root` to find the project's server before anything else loads.
 */
export function parseHookArgs(argv: readonly string[]): { event: string; options: HookOptions } {
  const [event = '', ...rest] = argv;
  const option = (name: string) => {
    const index = rest.indexOf(name);
    return index >= 0 ? rest[index + 1] : undefined;
  };
  const repeated = ['--root', '--agent'].find((name) => rest.indexOf(name) !== rest.lastIndexOf(name));
  return {
    event,
    options: { root: option('--root'), agent: option('--agent'), ...(repeated ? { repeated } : {}) },
  };
}
