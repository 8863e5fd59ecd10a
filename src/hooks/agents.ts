import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Agent } from './agent-names.js';
import { HOOK_EVENTS, type HookEvent, type HookResult } from './common.js';
import { type HookInput, objectField, stringField } from './input.js';

export { AGENTS, type Agent } from './agent-names.js';

/**
 * Translates one agent's hooks to ours and back. Only translation lives here: what a hook does is the
 * same for every agent (the handlers).
 */
export interface AgentAdapter {
  /** Our event and Claude-shaped input for the agent's native event, or `null` when it is not ours to handle. */
  toEvent(native: string, input: HookInput): { event: HookEvent; input: HookInput } | null;
  /** The agent's output for what the handler said, or nothing. */
  render(native: string, result: HookResult): string | undefined;
  /** The agent has no session start after compaction: the next prompt brings the brief back. */
  briefOnNextPrompt: boolean;
}

const hookSpecific = (native: string, result: HookResult) =>
  result.context
    ? JSON.stringify({ hookSpecificOutput: { hookEventName: native, additionalContext: result.context } })
    : undefined;

/** Claude Code: our native shape. */
const claude: AgentAdapter = {
  toEvent: (native, input) =>
    (HOOK_EVENTS as readonly string[]).includes(native) ? { event: native as HookEvent, input } : null,
  render: hookSpecific,
  briefOnNextPrompt: false,
};

/**
 * Codex: Claude Code's event names and payloads, without a failure event and without the exit code (its
 * PostToolUse gives the output text only; the exit code is in the session's transcript, which Codex names).
 * Its output must be exactly `hookSpecificOutput`, and it caps what the model is shown at about 2,500 tokens.
 */
const CODEX_CONTEXT_CHARS = 8_000;
const codex: AgentAdapter = {
  toEvent: (native, input) => {
    if (native === 'PostToolUseFailure') return null;
    const mapped = claude.toEvent(native, input);
    if (mapped?.event !== 'PostToolUse' || stringField(input, 'tool_name') !== 'Bash') return mapped;
    const exitCode = exitCodeFromTranscript(
      stringField(input, 'transcript_path'),
      stringField(input, 'tool_use_id'),
    );
    const output = typeof input.tool_response === 'string' ? input.tool_response : undefined;
    // Not found: the outcome stays unknown (a bare text response carries no exit code), never guessed.
    if (exitCode === undefined) return mapped;
    return {
      event: 'PostToolUse',
      input: {
        ...input,
        tool_response: {
          exit_code: exitCode,
          ...(output !== undefined ? (exitCode ? { output } : { stdout: output }) : {}),
        },
      },
    };
  },
  render: (native, result) =>
    hookSpecific(
      native,
      result.context ? { ...result, context: result.context.slice(0, CODEX_CONTEXT_CHARS) } : result,
    ),
  briefOnNextPrompt: false,
};

/**
 * Copilot CLI: Claude Code's event names (its PascalCase hooks) with its own payload details. It fires
 * PreCompact (with Claude Code's payload) but no session start after the compaction, so the next prompt
 * brings the brief back. A session starts with source `new`, the shell tool's result is `tool_result.text_result_for_llm` with the exit code
 * in its text (a failing command is still a "success"), and context goes in a top-level `additionalContext`.
 */
const copilot: AgentAdapter = {
  toEvent: (native, input) => {
    switch (native) {
      case 'SessionStart':
        return {
          event: 'SessionStart',
          input: {
            ...input,
            source:
              stringField(input, 'source') === 'new'
                ? 'startup'
                : (stringField(input, 'source') ?? 'startup'),
          },
        };
      case 'UserPromptSubmit':
        return { event: 'UserPromptSubmit', input };
      case 'PreCompact':
        return { event: 'PreCompact', input };
      case 'PostToolUse': {
        if (stringField(input, 'tool_name') !== 'Bash') return null;
        const text = stringField(objectField(input, 'tool_result'), 'text_result_for_llm') ?? '';
        return {
          event: 'PostToolUse',
          input: withShellOutcome(
            { ...input, tool_response: text.replace(/\n?<shellId:[^>]*>\s*$/, '') + exitLine(text) },
            'Bash',
          ),
        };
      }
      default:
        return null;
    }
  },
  render: (_native, result) =>
    result.context ? JSON.stringify({ additionalContext: result.context }) : undefined,
  briefOnNextPrompt: true,
};

/** Copilot CLI writes "<shellId: 0 completed with exit code 3>": keep the code where withShellOutcome finds it. */
function exitLine(text: string): string {
  const code = /completed with exit code (-?\d+)/.exec(text)?.[1];
  return code === undefined ? '' : `\nExit Code: ${code}`;
}

/**
 * Gemini CLI: its own event names; the shell tool is `run_shell_command`, with the exit code only in the
 * text it returns. It fires PreCompress before every compression check, even when nothing is compressed,
 * so only a manual `/compress` counts as compaction.
 */
const gemini: AgentAdapter = {
  toEvent: (native, input) => {
    switch (native) {
      case 'SessionStart':
        return { event: 'SessionStart', input };
      case 'BeforeAgent':
        return { event: 'UserPromptSubmit', input };
      case 'PreCompress':
        return stringField(input, 'trigger') === 'manual' ? { event: 'PreCompact', input } : null;
      case 'AfterTool':
        return stringField(input, 'tool_name') === 'run_shell_command'
          ? { event: 'PostToolUse', input: withShellOutcome(input, 'Bash') }
          : null;
      default:
        return null;
    }
  },
  render: hookSpecific,
  briefOnNextPrompt: true,
};

/**
 * OpenCode: no hook files; our plugin (see `opencode-plugin.ts`) runs inside it and hands over
 * Claude-shaped payloads under our event names, with the shell command's exit code from its metadata.
 */
const opencode: AgentAdapter = { ...claude };

export const ADAPTERS: Readonly<Record<Agent, AgentAdapter>> = { claude, codex, copilot, gemini, opencode };

/**
 * Claude-shaped input for a shell tool call whose exit code is only in its text result
 * ("Exit Code: 3", "exit code 3", "Process exited with code 3").
 */
function withShellOutcome(input: HookInput, toolName: string): HookInput {
  const response = input.tool_response;
  const text =
    typeof response === 'string'
      ? response
      : (stringField(response, 'llmContent', 'output', 'stdout', 'content', 'text') ??
        JSON.stringify(response ?? ''));
  const match = /(?:exit(?:ed)?(?: with)?(?: status| code)?|exit code)[:\s]+(-?\d+)/i.exec(text);
  const exitCode =
    match?.[1] === undefined ? (objectField(input, 'tool_response')?.exit_code ?? 0) : Number(match[1]);
  const output =
    /Output:\s*([\s\S]*?)(?:\nExit Code:|$)/i.exec(text)?.[1] ??
    text.replace(/\n?Exit Code:\s*-?\d+\s*$/i, '');
  return {
    ...input,
    tool_name: toolName,
    tool_response: { exit_code: exitCode, ...(exitCode === 0 ? { stdout: output } : { output }) },
  };
}

const TRANSCRIPT_TAIL_BYTES = 512 * 1024;

/**
 * The exit code Codex recorded for a command, from the end of its transcript (JSON lines): the
 * `item_completed` event of the command execution with this call id. `undefined` when not found.
 */
function exitCodeFromTranscript(file: string | undefined, callId: string | undefined): number | undefined {
  if (!file || !callId) return undefined;
  let text: string;
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const length = Math.min(size, TRANSCRIPT_TAIL_BYTES);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      text = buffer.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  for (const line of text.split('\n').reverse()) {
    if (!line.includes(callId) || !line.includes('exit_code')) continue;
    try {
      const item = (JSON.parse(line) as { payload?: { item?: { id?: string; exit_code?: unknown } } }).payload
        ?.item;
      if (item?.id === callId && typeof item.exit_code === 'number') return item.exit_code;
    } catch {
      // a line cut by the tail: older than what we look for
    }
  }
  return undefined;
}
