// Decides, before anything heavy is loaded, whether a Bash command about to run may destroy work: the
// plugin's loader (hook-loader.ts) ends a PreToolUse hook here for every harmless command, which is most
// of them, so they cost little more than starting node.
import { statSync } from 'node:fs';
import path from 'node:path';
import { type CommandRisk, classifyCommand, type PathKind } from '../core/command-risk.js';
import { type HookInput, objectField, parseHookInput, stringField } from './input.js';

/** The event the gate acts on. */
export const PRE_COMMAND_EVENT = 'PreToolUse';

export interface PendingCommand extends CommandRisk {
  /** The command line, when the input is a shell tool's call. */
  command?: string;
}

/** The risk of the Bash command in a PreToolUse input; harmless when the input holds no Bash command. */
export function pendingCommandRisk(input: HookInput, fallbackCwd: string): PendingCommand {
  const tool = stringField(input, 'tool_name');
  const command = stringField(objectField(input, 'tool_input'), 'command');
  if ((tool !== undefined && tool !== 'Bash') || command === undefined) return { destructive: false };
  // Paths in the command are relative to the folder it runs in, which the input names.
  const cwd = stringField(input, 'cwd') ?? fallbackCwd;
  return { ...classifyCommand(command, (file) => pathKind(path.resolve(cwd, file))), command };
}

/** The gate on raw hook input: an input that cannot be read is no command to protect. */
export function stdinMayDestroyWork(stdin: string, fallbackCwd: string): boolean {
  try {
    return pendingCommandRisk(parseHookInput(stdin), fallbackCwd).destructive;
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
