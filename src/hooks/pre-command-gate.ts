// Decides, before anything heavy is loaded, whether a shell command (Bash or PowerShell) about to run
// may destroy work: the plugin's hooks' front (hook-front.ts) ends a PreToolUse hook here for every harmless
// command, which is most of them, so they cost little more than starting node.
import { realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type CommandRisk, classifyCommand, type PathKind } from '../core/command-risk.js';
import { type HookInput, isInputCut, objectField, parseHookInput, stringField } from './input.js';
import { isShellTool, PRE_TOOL } from './pre-command-events.js';

export { isPreCommandEvent, PRE_COMMAND_EVENT } from './pre-command-events.js';

export interface PendingCommand extends CommandRisk {
  /** The command line, when the input is a shell tool's call. */
  command?: string;
  /** A shell tool's call whose command the hook could not read whole (its input was cut). */
  isCommandUnread?: boolean;
  /**
   * What the command names, as absolute paths (`null`: a pattern in a folder that cannot be told): what
   * its snapshot left out is said when the command may destroy it (core/left-out.ts).
   */
  /** `reach`: folders the command may change something under without naming what (see onNarrow). */
  targets?: { paths: string[]; patterns: Array<string | null>; reach: string[] };
}

/** The tool name a PowerShell command line is handed on under (Claude-shaped, as Bash is for sh). */
export const POWERSHELL_TOOL = 'PowerShell';

/**
 * The agent's pre-tool input as Claude Code's (tool_name Bash, or PowerShell for a PowerShell tool;
 * tool_input.command, the folder it runs in as cwd), or `null` when it is not a call of a shell tool.
 * In an input that was cut (`isCut`), a shell tool's call (or a call whose tool name went with the cut)
 * whose command went with the cut is kept, without its command: pendingCommandRisk fails safe on it.
 */
export function claudePreToolInput(
  agent: string | undefined,
  input: HookInput,
  isCut = false,
): HookInput | null {
  const tool = stringField(input, 'tool_name', 'toolName');
  if (!PRE_TOOL[agent ?? 'claude'] || (tool !== undefined && !isShellTool(agent, tool))) return null;
  const args = toolArguments(input);
  const command = shellCommand(args?.command);
  if (command === undefined && !isCut) return null;
  // Gemini CLI's dir_path, OpenCode's workdir, Copilot CLI's cwd: the folder the command runs in, from
  // the session's. Only the command's paths are read from it: `cwd` stays the session's, the project a
  // snapshot is of (an adversarial trial: a snapshot of the command's subfolder, in a store of its own,
  // missed the project's unsaved work that the command then deleted).
  const dir = stringField(args, 'dir_path', 'workdir', 'cwd');
  const cwd = stringField(input, 'cwd');
  return {
    ...input,
    tool_name: tool?.toLowerCase() === 'powershell' ? POWERSHELL_TOOL : 'Bash',
    tool_input: { ...args, ...(command !== undefined ? { command } : {}) },
    ...(dir && cwd ? { [COMMAND_CWD]: path.resolve(cwd, dir) } : {}),
  };
}

/** Ours, in a Claude-shaped input: the folder the command runs in, when the agent named another than `cwd`. */
export const COMMAND_CWD = 'checkpoint_command_cwd';

/** `tool_input` (Claude Code, Codex, Gemini CLI), or Copilot CLI's `toolArgs`, an object or its JSON. */
export function toolArguments(input: HookInput): Record<string, unknown> | undefined {
  const args = objectField(input, 'tool_input') ?? objectField(input, 'toolArgs');
  if (args) return args;
  const text = stringField(input, 'toolArgs');
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A command line, or an argument vector (`["bash", "-lc", "rm -rf x"]`) as one line. */
function shellCommand(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === 'string'))
    return value
      .map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, "'\\''")}'`))
      .join(' ');
  return undefined;
}

/**
 * The risk of the shell command in a (Claude-shaped) PreToolUse input; harmless when it holds none. In an
 * input that was cut (`isCut`, hooks/hook-io.ts), a shell tool's call whose command is gone may destroy work.
 */
export function pendingCommandRisk(input: HookInput, fallbackCwd: string, isCut = false): PendingCommand {
  const tool = stringField(input, 'tool_name');
  if (tool !== undefined && tool !== 'Bash' && tool !== POWERSHELL_TOOL) return { destructive: false };
  const command = stringField(objectField(input, 'tool_input'), 'command');
  // Security: a command the hook cannot read whole may be anything (a 17 MB heredoc, then `rm -rf src`):
  // a snapshot too many costs little, one too few loses work.
  if (command === undefined)
    return isCut
      ? { destructive: true, isCommandUnread: true, reason: 'the hook could not read the whole command' }
      : { destructive: false };
  // Paths in the command are relative to the folder it runs in, which the input names.
  const sessionCwd = path.resolve(stringField(input, 'cwd') ?? fallbackCwd);
  const cwd = path.resolve(sessionCwd, stringField(input, COMMAND_CWD) ?? '.');
  let roots: string[] | undefined;
  const targets = { paths: [] as string[], patterns: [] as Array<string | null>, reach: [] as string[] };
  const kindOf = (file: string): PathKind => {
    const absolute = path.resolve(cwd, file);
    targets.paths.push(absolute);
    // Only a path written absolute (or from ~) may be outside: `..` and links are left to the snapshot.
    if (!path.isAbsolute(file)) return pathKind(absolute);
    roots ??= [...new Set([...projectRoots(cwd), ...projectRoots(sessionCwd)])];
    return isOutside(absolute, roots) ? 'outside' : pathKind(absolute);
  };
  const shell = tool === POWERSHELL_TOOL ? 'powershell' : 'sh';
  const onPattern = (pattern: string | null) =>
    targets.patterns.push(pattern === null ? null : path.resolve(cwd, pattern));
  // A target that stands for only part of it (a find's filters): that part instead.
  const onNarrow = (root: string, patterns: string[] | null) => {
    const absolute = path.resolve(cwd, root);
    const at = targets.paths.lastIndexOf(absolute);
    if (at !== -1) targets.paths.splice(at, 1);
    if (patterns) targets.patterns.push(...patterns.map((pattern) => path.resolve(cwd, pattern)));
    else targets.reach.push(absolute);
  };
  return {
    ...classifyCommand(command, kindOf, { shell, home: shellHome(cwd), onPattern, onNarrow }),
    command,
    targets,
  };
}

/**
 * The folders whose contents a snapshot may hold: the command's folder, the repository it lies in (the
 * nearest folder above with a `.git`), a root the environment names, each also as its real path.
 */
function projectRoots(cwd: string): string[] {
  const roots = [cwd];
  for (let dir = cwd; ; ) {
    if (pathKind(path.join(dir, '.git')) !== 'missing') {
      roots.push(dir);
      break;
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const named = process.env.CHECKPOINT_PROJECT_ROOT?.trim();
  if (named && path.isAbsolute(named)) roots.push(named);
  return [...new Set([...roots, ...roots.map(realOrSelf)])];
}

/** Neither inside one of the roots nor holding one (`rm -rf ~` holds the project), by path and by real path. */
function isOutside(absolute: string, roots: readonly string[]): boolean {
  const contains = (outer: string, inner: string) =>
    inner === outer || inner.startsWith(outer.endsWith(path.sep) ? outer : `${outer}${path.sep}`);
  return [absolute, realOfExisting(absolute)].every((target) =>
    roots.every((root) => !contains(root, target) && !contains(target, root)),
  );
}

/** A path's real path, or the path itself where it cannot be resolved (gone, or no permission). */
export function realOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** The real path of the nearest existing folder above (or at) `file`, with the rest joined on. */
function realOfExisting(file: string): string {
  for (let dir = file, rest = ''; ; ) {
    try {
      return path.join(realpathSync(dir), rest);
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return file;
      rest = path.join(path.basename(dir), rest);
      dir = parent;
    }
  }
}

/**
 * The folder the shell makes of `~`: $HOME as it is (a relative one read from the command's folder, as the
 * shell would), else the account's. Not ours to ignore: it is what the command itself will touch.
 */
function shellHome(cwd: string): string | undefined {
  const home = process.env.HOME;
  if (home) return path.resolve(cwd, home);
  try {
    return os.homedir();
  } catch {
    return undefined;
  }
}

/**
 * The gate on raw hook input: an input that is no JSON at all is no command to protect; one the reader
 * cut (isInputCut) is judged on what it kept, and a shell command it lost may destroy work.
 */
export function stdinMayDestroyWork(stdin: string, fallbackCwd: string, agent?: string): boolean {
  try {
    const raw = parseHookInput(stdin);
    const isCut = isInputCut(raw);
    const input = claudePreToolInput(agent, raw, isCut);
    return input !== null && pendingCommandRisk(input, fallbackCwd, isCut).destructive;
  } catch {
    return false;
  }
}

function pathKind(file: string): PathKind {
  try {
    const stats = statSync(file, { throwIfNoEntry: false });
    if (stats === undefined) return 'missing';
    return stats.isDirectory() ? 'directory' : 'file';
  } catch {
    return 'unknown';
  }
}
