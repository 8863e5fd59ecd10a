import type { AppDeps } from '../app/deps.js';
import { recordCommands } from '../app/record-commands.js';
import { type HookEvent, type HookResult, hookProjectRoot } from './common.js';
import { bashOutcome, type HookInput, stringField } from './input.js';

/** After a Bash tool call: its command and outcome join the checkpoint's recent commands (redacted). */
export async function postToolUse(input: HookInput, deps: AppDeps, event: HookEvent): Promise<HookResult> {
  if (stringField(input, 'tool_name') !== 'Bash') return { notes: [] };
  // PostToolUse fires for calls that succeeded; PostToolUseFailure (newer versions) for the others.
  const outcome = bashOutcome(input, { failed: event === 'PostToolUseFailure' });
  if (!outcome.command) return { notes: ['PostToolUse: no command in the hook input; nothing recorded'] };
  await recordCommands(deps, {
    projectRoot: hookProjectRoot(deps, input),
    commands: [{ command: outcome.command, exitCode: outcome.exitCode, note: outcome.note }],
  });
  return { notes: [] };
}
