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
const NODE = /(?:^|[\\/])node(?:\.exe)?$/i;
const EVENT = /^[A-Z][A-Za-z]+$/;

/**
 * Our hook in an agent's hook definition, recognised by what it runs, wherever it was installed: `node
 * <…/dist/hook.js|hook.cjs|hook.mjs> <Event>` (as a command line, or `command` plus `args`) or
 * `claude-checkpoint hook <Event>`. `null` for anything else, whatever its text mentions.
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
  if (NODE.test(program) && ENTRY.test(first) && second !== undefined && EVENT.test(second))
    return { file: first, event: second };
  if (/(?:^|[\\/])claude-checkpoint$/.test(program) && first === 'hook' && second && EVENT.test(second))
    return { file: null, event: second };
  // `npx claude-checkpoint hook <Event>`
  if (/(?:^|[\\/])npx$/.test(program) && first === 'claude-checkpoint' && second === 'hook' && third)
    return EVENT.test(third) ? { file: null, event: third } : null;
  return null;
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
