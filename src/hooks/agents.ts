import type { HookEvent, HookResult } from './common.js';
import { type HookInput, objectField, stringField } from './input.js';

/** The agents whose hooks this tool speaks. The caller always names one (`--agent`); it is never guessed. */
export const AGENTS = ['claude', 'gemini'] as const;
export type Agent = (typeof AGENTS)[number];

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
    (
      ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'PostToolUse', 'PostToolUseFailure'] as const
    ).includes(native as HookEvent)
      ? { event: native as HookEvent, input }
      : null,
  render: hookSpecific,
  briefOnNextPrompt: false,
};

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

export const ADAPTERS: Readonly<Record<Agent, AgentAdapter>> = { claude, gemini };

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
  const output = /Output:\s*([\s\S]*?)(?:\nExit Code:|$)/i.exec(text)?.[1] ?? text;
  return {
    ...input,
    tool_name: toolName,
    tool_response: { exit_code: exitCode, ...(exitCode === 0 ? { stdout: output } : { output }) },
  };
}
