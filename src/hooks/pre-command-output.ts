import type { Agent } from './agent-names.js';
import type { HookResult } from './common.js';

/**
 * What a pre-command hook says, in each agent's output for its pre-tool event: for the person
 * (`userMessage`), for the model (`context`), and, when the command names what its snapshot cannot
 * hold, a request to ask the person first (`ask`). `undefined` when it has nothing to say.
 *
 * - Claude Code (and OpenCode, whose plugin hands our payloads on): `systemMessage` is shown to the user;
 *   `hookSpecificOutput.permissionDecision: "ask"` shows the permission prompt with
 *   `permissionDecisionReason`; `additionalContext` reaches the model (code.claude.com/docs/en/hooks,
 *   "PreToolUse decision control").
 * - Codex: only `systemMessage` is honoured on PreToolUse; `ask` and `additionalContext` are parsed but
 *   fail open (developers.openai.com/codex/hooks; codex-rs/hooks/schema), so they are left out.
 * - Copilot CLI: `permissionDecision` `"ask"` with `permissionDecisionReason` prompts the user
 *   (docs.github.com, "Pre-tool use hook"; github/copilot-cli#2647), `additionalContext` at the top.
 * - Gemini CLI: `decision: "ask"` for BeforeTool, `reason`, `systemMessage` for the user and
 *   `hookSpecificOutput.additionalContext` for the model (google-gemini/gemini-cli docs/hooks/reference.md).
 */
export function renderPreCommand(agent: Agent, native: string, result: HookResult): string | undefined {
  const { context, userMessage, ask } = result;
  if (!context && !userMessage && !ask) return undefined;
  switch (agent) {
    case 'codex':
      return userMessage ? JSON.stringify({ systemMessage: userMessage }) : undefined;
    case 'copilot':
      return JSON.stringify({
        ...(ask ? { permissionDecision: 'ask', permissionDecisionReason: ask } : {}),
        ...(context ? { additionalContext: context } : {}),
      });
    case 'gemini':
      return JSON.stringify({
        ...(userMessage ? { systemMessage: userMessage } : {}),
        ...(ask ? { decision: 'ask', reason: ask } : {}),
        ...(context ? { hookSpecificOutput: { hookEventName: native, additionalContext: context } } : {}),
      });
    default:
      return JSON.stringify({
        ...(userMessage ? { systemMessage: userMessage } : {}),
        hookSpecificOutput: {
          hookEventName: native,
          ...(ask ? { permissionDecision: 'ask', permissionDecisionReason: ask } : {}),
          ...(context ? { additionalContext: context } : {}),
        },
      });
  }
}
