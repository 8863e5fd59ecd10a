import type { Agent } from './agent-names.js';
import type { HookResult } from './common.js';

/**
 * What a pre-command hook says, in each agent's output for its pre-tool event: a warning for the person
 * (`userMessage`) and for the model (`context`), never a decision (no ask, no deny: the command runs).
 * `undefined` when it has nothing to say. Measured in real sessions (test/agents/*-pre-command.test.ts,
 * test/claude-code/pre-command.test.ts; docs/hooks.md, "Before a command: what each agent does"):
 *
 * - Claude Code (2.1.332): `systemMessage` for the user, `hookSpecificOutput.additionalContext` for the model.
 * - Copilot CLI (1.0.102): `additionalContext`, which the model receives; it shows no `systemMessage`.
 * - Codex (0.169.0): `systemMessage` (which `codex exec` shows nowhere) and
 *   `hookSpecificOutput.additionalContext`, which the model receives.
 * - Gemini CLI (0.61.0): `systemMessage`, printed on stderr; it drops a BeforeTool hook's
 *   `hookSpecificOutput.additionalContext` (kept, for versions that read it).
 * - OpenCode (1.18.33): its plugin (src/app/opencode-plugin.ts) takes Claude Code's shape and puts the
 *   `additionalContext` after the command's output (a plugin cannot add context before a call).
 */
export function renderPreCommand(agent: Agent, native: string, result: HookResult): string | undefined {
  const { context, userMessage } = result;
  if (!context && !userMessage) return undefined;
  const forModel = context
    ? { hookSpecificOutput: { hookEventName: native, additionalContext: context } }
    : {};
  switch (agent) {
    case 'copilot':
      return context ? JSON.stringify({ additionalContext: context }) : undefined;
    default:
      return JSON.stringify({ ...(userMessage ? { systemMessage: userMessage } : {}), ...forModel });
  }
}
