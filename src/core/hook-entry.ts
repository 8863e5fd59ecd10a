import path from 'node:path';
import { tokenize } from './shell-tokens.js';

/** One of our hooks as an agent's settings name it: the entry file node runs (if any) and the event. */
export interface HookEntry {
  /** The script node runs, as written (a path; may hold `~` or `$HOME`); `null` for `claude-checkpoint hook`. */
  file: string | null;
  event: string;
}

// The built entry (dist/hook.js), the plugin's bundle (plugin/dist/hook.cjs) and its ESM twin (hook.mjs).
const ENTRY = /(?:^|[\\/])dist[\\/]hook\.(?:js|cjs|mjs)$/;
// The full CLI (dist/cli.js, and dist/cli.cjs, the package's `claude-checkpoint`), run as `… hook <Event>`.
const CLI_ENTRY = /(?:^|[\\/])dist[\\/]cli\.(?:js|cjs)$/;
const NODE = /(?:^|[\\/])node(?:\.exe)?$/i;
const EVENT = /^[A-Z][A-Za-z]+$/;
/** npx's options before the command: without a value, and those that take one (the package to run from). */
const NPX_FLAGS = new Set(['-y', '--yes', '--no', '-q', '--quiet']);
const NPX_PACKAGE = new Set(['-p', '--package']);
/** Our package, as npx's `--package` names it (with a version or a tag, or not). */
const OUR_PACKAGE = /^claude-checkpoint-mcp(?:@[\w.^~<>=*-]+)?$/;

/** Our package's name, in its package.json. */
export const PACKAGE_NAME = 'claude-checkpoint-mcp';

/** Whether an entry file is the full CLI (`dist/cli.js`): a common name, which other tools' builds have too. */
export function isCliEntryFile(file: string): boolean {
  return CLI_ENTRY.test(file);
}

/**
 * Our hook in an agent's hook definition, recognised by what it runs, wherever it was installed: `node
 * <…/dist/hook.js|hook.cjs|hook.mjs> <Event>` (as a command line, or `command` plus `args`), `node
 * <…/dist/cli.js|cli.cjs> hook <Event>`, `claude-checkpoint hook <Event>`, or that through npx (`npx -y
 * [--package claude-checkpoint-mcp] claude-checkpoint hook <Event>`). `null` for anything else, whatever
 * its text mentions.
 */
export function ourHookEntry(hook: unknown): HookEntry | null {
  if (typeof hook !== 'object' || hook === null) return null;
  const { command, args } = hook as { command?: unknown; args?: unknown };
  if (typeof command !== 'string') return null;
  const argv = Array.isArray(args)
    ? [command, ...args.map(String)]
    : tokenize(command).tokens.flatMap((token) => (token.kind === 'word' ? [token.text] : []));
  return entryOfArgv(argv);
}

/** The same for a command line alone (the hooks files of Codex, Copilot CLI and Gemini CLI). */
export function ourHookEntryOfCommand(commandLine: string): HookEntry | null {
  return ourHookEntry({ command: commandLine });
}

function entryOfArgv(argv: readonly string[]): HookEntry | null {
  const [program, first, second, third] = argv;
  if (program === undefined || first === undefined) return null;
  const event = (value: string | undefined) => (value !== undefined && EVENT.test(value) ? value : null);
  if (NODE.test(program) && ENTRY.test(first)) {
    const name = event(second);
    return name === null ? null : { file: first, event: name };
  }
  if (NODE.test(program) && CLI_ENTRY.test(first) && second === 'hook') {
    const name = event(third);
    return name === null ? null : { file: first, event: name };
  }
  if (/(?:^|[\\/])claude-checkpoint$/.test(program) && first === 'hook') {
    const name = event(second);
    return name === null ? null : { file: null, event: name };
  }
  if (/(?:^|[\\/])npx$/.test(program)) return npxEntry(argv.slice(1));
  return null;
}

/** `npx [-y] [--package claude-checkpoint-mcp] [--] claude-checkpoint hook <Event>`: npx's own options first. */
function npxEntry(args: readonly string[]): HookEntry | null {
  let index = 0;
  while (index < args.length) {
    const arg = args[index] as string;
    if (NPX_FLAGS.has(arg)) index++;
    else if (NPX_PACKAGE.has(arg)) {
      // Another package's `claude-checkpoint` is not ours.
      if (!OUR_PACKAGE.test(args[index + 1] ?? '')) return null;
      index += 2;
    } else if (arg.startsWith('--package=')) {
      if (!OUR_PACKAGE.test(arg.slice('--package='.length))) return null;
      index++;
    } else break;
  }
  if (args[index] === '--') index++;
  const [command, ...rest] = args.slice(index);
  return command === 'claude-checkpoint' ? entryOfArgv([command, ...rest]) : null;
}

/**
 * The absolute path a hook's entry file names, with `~`, `$HOME` and `${HOME}` expanded and a relative
 * path taken from `cwd`; `null` when it depends on another variable (only the agent knows its value).
 */
export function entryFilePath(file: string, home: string, cwd: string): string | null {
  const expanded = file.replace(/^~(?=$|[\\/])/, home).replace(/\$(?:\{HOME\}|HOME\b)/g, home);
  if (/\$\{?\w/.test(expanded) || /%\w+%/.test(expanded)) return null;
  return path.isAbsolute(expanded) ? expanded : path.join(cwd, expanded);
}
