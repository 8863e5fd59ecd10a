import type { Agent } from './agent-names.js';
import type { HookResult } from './common.js';

/**
 * What a pre-command hook says, in each agent's output for its pre-tool event: for the person
 * (`userMessage`), for the model (`context`), and, when the command names what its snapshot cannot
 * hold, a request to ask the person first (`ask`), or, where the agent cannot ask, the command held with
 * how to go ahead (`hold`). `undefined` when it has nothing to say. Measured in real sessions
 * (test/agents/*-pre-command.test.ts, test/claude-code/pre-command.test.ts; docs/hooks.md):
 *
 * - Claude Code (2.1.332): `systemMessage` for the user; `hookSpecificOutput.permissionDecision: "ask"`
 *   prompts with `permissionDecisionReason`, and in print mode (nobody to ask) the command does not run and
 *   the model receives that reason as its result; `additionalContext` reaches the model.
 * - Copilot CLI (1.0.102): `permissionDecision: "ask"` prompts; in print mode it is denied ("unable to ask
 *   user for confirmation") and the reason is printed and given to the model; `additionalContext` at the top.
 * - Codex (0.169.0): no "ask" (it runs the command, and `codex exec` shows the `systemMessage` to nobody):
 *   `permissionDecision: "deny"` holds it, and the model receives the reason; `additionalContext` reaches
 *   the model.
 * - Gemini CLI (0.61.0): `decision: "ask"` waits for an answer even in a non-interactive run, for ever; so
 *   `decision: "deny"`, whose reason the model receives, with `systemMessage` for the user. It drops a
 *   BeforeTool hook's `hookSpecificOutput.additionalContext` (kept, for versions that read it).
 * - OpenCode (1.18.33): its plugin (src/app/opencode-plugin.ts) hands our Claude-shaped output on, and
 *   throws the reason of a `"deny"` from `tool.execute.before`, which stops the call and tells the model.
 */
export function renderPreCommand(agent: Agent, native: string, result: HookResult): string | undefined {
  const { context, userMessage, ask } = result;
  if (!context && !userMessage && !ask) return undefined;
  const hold = result.hold ?? ask;
  switch (agent) {
    case 'codex':
      return JSON.stringify({
        ...(userMessage ? { systemMessage: userMessage } : {}),
        ...(hold
          ? {
              hookSpecificOutput: {
                hookEventName: native,
                permissionDecision: 'deny',
                permissionDecisionReason: hold,
              },
            }
          : context
            ? { hookSpecificOutput: { hookEventName: native, additionalContext: context } }
            : {}),
      });
    case 'copilot':
      return JSON.stringify({
        ...(ask ? { permissionDecision: 'ask', permissionDecisionReason: ask } : {}),
        ...(context ? { additionalContext: context } : {}),
      });
    case 'gemini':
      return JSON.stringify({
        ...(userMessage ? { systemMessage: userMessage } : {}),
        ...(hold ? { decision: 'deny', reason: hold } : {}),
        ...(context ? { hookSpecificOutput: { hookEventName: native, additionalContext: context } } : {}),
      });
    default: {
      const decision =
        agent === 'opencode'
          ? hold && { permissionDecision: 'deny', permissionDecisionReason: hold }
          : ask && { permissionDecision: 'ask', permissionDecisionReason: ask };
      return JSON.stringify({
        ...(userMessage ? { systemMessage: userMessage } : {}),
        hookSpecificOutput: {
          hookEventName: native,
          ...(decision || {}),
          ...(context ? { additionalContext: context } : {}),
        },
      });
    }
  }
}
