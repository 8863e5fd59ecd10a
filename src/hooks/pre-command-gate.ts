// Decides, before anything heavy is loaded, whether a Bash command about to run may destroy work: the
// plugin's loader (hook-loader.ts) ends a PreToolUse hook here for every harmless command, which is most
// of them, so they cost little more than starting node.
import { statSync } from 'node:fs';
import path from 'node:path';
import { type CommandRisk, classifyCommand, type PathKind } from '../core/command-risk.js';
import { type HookInput, objectField, parseHookInput, stringField } from './input.js';

/** The event the gate acts on (ours, and Claude Code's). */
export const PRE_COMMAND_EVENT = 'PreToolUse';

/**
 * Each agent's event before a tool runs, and the names of its shell tool there (checked against the
 * agents' own code: Gemini CLI's BeforeTool for run_shell_command; Codex's and Copilot CLI's
 * Claude-compatible PreToolUse; the OpenCode plugin hands over Claude's shape).
 */
const PRE_TOOL: Readonly<Record<string, { event: string; tools: readonly string[] }>> = {
  claude: { event: 'PreToolUse', tools: ['Bash'] },
  codex: { event: 'PreToolUse', tools: ['Bash'] },
  copilot: { event: 'PreToolUse', tools: ['Bash', 'bash', 'shell'] },
  gemini: { event: 'BeforeTool', tools: ['run_shell_command'] },
  opencode: { event: 'PreToolUse', tools: ['Bash'] },
};

/** Whether `event` is the agent's event before a tool runs (an unnamed agent is Claude Code). */
export function isPreCommandEvent(agent: string | undefined, event: string): boolean {
  return PRE_TOOL[agent ?? 'claude']?.event === event;
}

export interface PendingCommand extends CommandRisk {
  /** The command line, when the input is a shell tool's call. */
  command?: string;
}

/**
 * The agent's pre-tool input as Claude Code's (tool_name Bash, tool_input.command, the folder it runs in
 * as cwd), or `null` when it is not a call of the agent's shell tool.
 */
export function claudePreToolInput(agent: string | undefined, input: HookInput): HookInput | null {
  const known = PRE_TOOL[agent ?? 'claude'];
  const tool = stringField(input, 'tool_name', 'toolName');
  if (!known || (tool !== undefined && !known.tools.includes(tool))) return null;
  const args = toolArguments(input);
  const command = shellCommand(args?.command);
  if (command === undefined) return null;
  // Gemini CLI's dir_path and OpenCode's workdir: the folder the command runs in, from the session's.
  const dir = stringField(args, 'dir_path', 'workdir', 'cwd');
  const cwd = stringField(input, 'cwd');
  return {
    ...input,
    tool_name: 'Bash',
    tool_input: { ...args, command },
    ...(dir && cwd ? { cwd: path.resolve(cwd, dir) } : {}),
  };
}

/** `tool_input` (Claude Code, Codex, Gemini CLI), or Copilot CLI's `toolArgs`, an object or its JSON. */
function toolArguments(input: HookInput): Record<string, unknown> | undefined {
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

/** The risk of the Bash command in a (Claude-shaped) PreToolUse input; harmless when it holds none. */
export function pendingCommandRisk(input: HookInput, fallbackCwd: string): PendingCommand {
  const tool = stringField(input, 'tool_name');
  const command = stringField(objectField(input, 'tool_input'), 'command');
  if ((tool !== undefined && tool !== 'Bash') || command === undefined) return { destructive: false };
  // Paths in the command are relative to the folder it runs in, which the input names.
  const cwd = stringField(input, 'cwd') ?? fallbackCwd;
  return { ...classifyCommand(command, (file) => pathKind(path.resolve(cwd, file))), command };
}

/** The gate on raw hook input: an input that cannot be read is no command to protect. */
export function stdinMayDestroyWork(stdin: string, fallbackCwd: string, agent?: string): boolean {
  try {
    const input = claudePreToolInput(agent, parseHookInput(stdin));
    return input !== null && pendingCommandRisk(input, fallbackCwd).destructive;
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
