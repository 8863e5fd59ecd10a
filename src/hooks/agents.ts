import path from 'node:path';
import { copilotShellOutcome, geminiShellOutcome, type ShellTextOutcome } from '../core/shell-trailer.js';
import { cutUnits } from '../core/text.js';
import { agentHome } from '../store/agent-homes.js';
import { readFileTail } from '../transcripts/lines.js';
import type { Agent } from './agent-names.js';
import { HOOK_EVENTS, type HookEvent, type HookResult } from './common.js';
import { type HookInput, objectField, stringField } from './input.js';
import { isShellTool } from './pre-command-events.js';
import { claudePreToolInput, POWERSHELL_TOOL, toolArguments } from './pre-command-gate.js';

/** An agent's call of its shell tool, about to run, as our PreToolUse; anything else is not ours. */
const preCommand = (agent: Agent, input: HookInput, isCut: boolean) => {
  const claudeShaped = claudePreToolInput(agent, input, isCut);
  return claudeShaped ? { event: 'PreToolUse' as const, input: claudeShaped } : null;
};

export { AGENTS, type Agent } from './agent-names.js';

/**
 * Translates one agent's hooks to ours and back. Only translation lives here: what a hook does is the
 * same for every agent (the handlers).
 */
export interface AgentAdapter {
  /**
   * Our event and Claude-shaped input for the agent's native event, or `null` when it is not ours to
   * handle. `isCut`: the input was cut (hooks/input.ts isInputCut), and a field may be missing from it.
   */
  toEvent(native: string, input: HookInput, isCut?: boolean): { event: HookEvent; input: HookInput } | null;
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
 * PostToolUse gives the output text only; the exit code is in the session's transcript, which Codex names),
 * and with the turn's id (`turn_id`) where Claude Code gives a prompt id.
 * Its output must be exactly `hookSpecificOutput`, and it caps what the model is shown at about 2,500 tokens.
 */
const CODEX_CONTEXT_CHARS = 8_000;
const codex: AgentAdapter = {
  toEvent: (native, input, isCut = false) => {
    if (native === 'PostToolUseFailure') return null;
    if (native === 'PreToolUse') return preCommand('codex', input, isCut);
    const mapped = claude.toEvent(native, input);
    // Its turn id names the prompt's turn in the rollout file: what a conversation rewind cuts before.
    const turn = stringField(input, 'turn_id');
    if (mapped?.event === 'UserPromptSubmit' && turn && !stringField(input, 'prompt_id'))
      return { event: 'UserPromptSubmit', input: { ...input, prompt_id: turn } };
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
      result.context ? { ...result, context: cutUnits(result.context, CODEX_CONTEXT_CHARS) } : result,
    ),
  briefOnNextPrompt: false,
};

/**
 * Copilot CLI: Claude Code's event names (its PascalCase hooks) with its own payload details. It fires
 * PreCompact (with Claude Code's payload) but no session start after the compaction, so the next prompt
 * brings the brief back. Its Stop (agentStop) names the session's events file as `transcript_path`.
 * Its PostToolUseFailure is not wired: for the shell it fires only for calls that never ran (arguments
 * refused, a command its policy blocks), without an exit code; a failing command is a PostToolUse. A session starts with source `new`, the shell tools (`bash`, and `powershell` on Windows) give their result as `tool_result.text_result_for_llm` with the exit code
 * in its text (a failing command is still a "success"), and context goes in a top-level `additionalContext`.
 */
const copilot: AgentAdapter = {
  toEvent: (native, input, isCut = false) => {
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
      // agentStop, with the session's events file as `transcript_path`.
      case 'Stop':
        return { event: 'Stop', input };
      case 'SessionEnd':
        return { event: 'SessionEnd', input: withCopilotTranscript(input) };
      case 'PreToolUse':
      case 'preToolUse':
        return preCommand('copilot', input, isCut);
      case 'PostToolUse':
      case 'postToolUse': {
        const call = copilotShellCall(input);
        if (!call) return null;
        // Only the trailer Copilot CLI ends the text with counts: the output may say anything. A command
        // started in the background ("<command started in background with shellId: 4>") has not ended:
        // its outcome is unknown, not a success.
        const outcome = copilotShellOutcome(call.text);
        if (!outcome) return { event: 'PostToolUse', input: { ...call.input, tool_response: call.text } };
        return { event: 'PostToolUse', input: withOutcome(call.input, call.tool, outcome) };
      }
      default:
        return null;
    }
  },
  render: (_native, result) =>
    result.context ? JSON.stringify({ additionalContext: result.context }) : undefined,
  briefOnNextPrompt: true,
};

/**
 * Copilot CLI's SessionEnd names no transcript; its session's events are at
 * `$COPILOT_HOME/session-state/<session id>/events.jsonl` (COPILOT_HOME defaults to ~/.copilot).
 */
function withCopilotTranscript(input: HookInput): HookInput {
  const session = stringField(input, 'session_id', 'sessionId');
  // Security: the id becomes a path: only a plain name (Copilot CLI's are UUIDs), never `..` or a slash.
  if (stringField(input, 'transcript_path') || !session || !/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(session))
    return input;
  return {
    ...input,
    transcript_path: path.join(agentHome(process.env, 'copilot'), 'session-state', session, 'events.jsonl'),
  };
}

/**
 * A call of Copilot CLI's shell tools (`bash`, and `powershell` on Windows) in its postToolUse payload,
 * Claude-shaped: tool_name Bash or PowerShell, tool_input with the command, and the result's text. Its
 * PascalCase hooks send snake_case fields with Claude's tool name (`Bash`), its camelCase ones toolName,
 * toolArgs (an object or its JSON) and toolResult.textResultForLlm; `null` for any other tool.
 */
function copilotShellCall(input: HookInput): { input: HookInput; tool: string; text: string } | null {
  const tool = stringField(input, 'tool_name', 'toolName')?.toLowerCase();
  // The same tools, in any case, as its preToolUse is checked for (pre-command-events.ts).
  if (tool === undefined || !isShellTool('copilot', tool)) return null;
  const args = toolArguments(input);
  const result = objectField(input, 'tool_result') ?? objectField(input, 'toolResult');
  const claudeTool = tool === 'powershell' ? POWERSHELL_TOOL : 'Bash';
  return {
    input: { ...input, tool_name: claudeTool, ...(args ? { tool_input: args } : {}) },
    tool: claudeTool,
    text: stringField(result, 'text_result_for_llm', 'textResultForLlm') ?? '',
  };
}

/**
 * Gemini CLI: its own event names; the shell tool is `run_shell_command`, with the exit code only in the
 * text it returns. It fires PreCompress before every compression check, even when nothing is compressed,
 * so only a manual `/compress` counts as compaction. AfterAgent ends each turn (our Stop, its answer in
 * `prompt_response`); every payload names the session's chat file in `transcript_path`.
 */
const gemini: AgentAdapter = {
  toEvent: (native, input, isCut = false) => {
    switch (native) {
      case 'SessionStart':
        return { event: 'SessionStart', input };
      case 'BeforeAgent':
        return { event: 'UserPromptSubmit', input: withoutHookContext(input) };
      case 'PreCompress':
        return stringField(input, 'trigger') === 'manual' ? { event: 'PreCompact', input } : null;
      case 'BeforeTool':
        return preCommand('gemini', input, isCut);
      case 'AfterTool':
        return stringField(input, 'tool_name') === 'run_shell_command'
          ? { event: 'PostToolUse', input: withGeminiOutcome(input) }
          : null;
      case 'AfterAgent': {
        const answer = stringField(input, 'prompt_response');
        return { event: 'Stop', input: answer ? { ...input, last_assistant_message: answer } : input };
      }
      case 'SessionEnd':
        return { event: 'SessionEnd', input };
      default:
        return null;
    }
  },
  render: hookSpecific,
  briefOnNextPrompt: true,
};

/**
 * Gemini CLI puts what SessionStart hooks said in front of the next prompt, as `<hook_context>...</hook_context>`,
 * and BeforeAgent's `prompt` holds both: the prompt is what follows (else a snapshot's label is the brief).
 */
function withoutHookContext(input: HookInput): HookInput {
  const prompt = stringField(input, 'prompt');
  if (!prompt?.trimStart().startsWith('<hook_context>')) return input;
  return { ...input, prompt: prompt.replace(/^(?:\s*<hook_context>[\s\S]*?<\/hook_context>)+\s*/, '') };
}

/**
 * OpenCode: no hook files; our plugin (see `opencode-plugin.ts`) runs inside it and hands over
 * Claude-shaped payloads under our event names, with the shell command's exit code from its metadata.
 */
const opencode: AgentAdapter = {
  ...claude,
  toEvent: (native, input, isCut = false) =>
    native === 'PreToolUse' ? preCommand('opencode', input, isCut) : claude.toEvent(native, input),
};

export const ADAPTERS: Readonly<Record<Agent, AgentAdapter>> = { claude, codex, copilot, gemini, opencode };

/**
 * Gemini CLI's shell call, Claude-shaped: its exit code is only in the text it gives the model
 * (`tool_response.llmContent`), in the trailer after the output (core/shell-trailer.ts). A call that did
 * not run to its end (cancelled, moved to the background) keeps its text alone: its outcome is unknown.
 */
function withGeminiOutcome(input: HookInput): HookInput {
  const response = input.tool_response;
  const text =
    typeof response === 'string' ? response : (stringField(response, 'llmContent', 'output') ?? '');
  const outcome = geminiShellOutcome(text);
  if (!outcome) return { ...input, tool_name: 'Bash', tool_response: text };
  return withOutcome(input, 'Bash', outcome);
}

/** Claude-shaped input for a shell call whose outcome the agent's text said. */
function withOutcome(input: HookInput, toolName: string, outcome: ShellTextOutcome): HookInput {
  const { exitCode = 0, output } = outcome;
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
  const text = readFileTail(file, TRANSCRIPT_TAIL_BYTES);
  if (text === null) return undefined;
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
