import type { AppDeps } from '../app/deps.js';
import { isGcDue, takeSnapshot } from '../app/rewind.js';
import { startBackgroundGc } from './background.js';
import { type HookContext, type HookResult, hookProjectRoot } from './common.js';
import { type HookInput, stringField } from './input.js';
import { pendingCommandRisk } from './pre-command-gate.js';

/** The trigger of a snapshot taken before a command that may destroy work. */
export const PRE_COMMAND_TRIGGER = 'pre-command';

/**
 * A snapshot before a shell command (Bash or PowerShell) that may destroy work (issue 25), labelled with
 * the command (redacted, as every label is). Never blocks, denies or asks: it says nothing to the agent,
 * and a failure is a note on stderr while the command runs anyway. Through the relay, the command runs as soon as the snapshot's
 * content is taken.
 */
export async function preToolUse(input: HookInput, deps: AppDeps, context: HookContext): Promise<HookResult> {
  const risk = pendingCommandRisk(input, deps.cwd());
  if (!risk.destructive || risk.command === undefined) return { notes: [] };
  const outcome = await takeSnapshot(deps, {
    projectRoot: hookProjectRoot(deps, input),
    trigger: PRE_COMMAND_TRIGGER,
    label: risk.command.replace(/\s+/g, ' '),
    sessionId: stringField(input, 'session_id', 'sessionId'),
    onContentTaken: context.answerEarly,
  });
  if (isGcDue(outcome) && context.cliPath) startBackgroundGc(context.cliPath, outcome.root.root, deps.env);
  return { notes: [] };
}
