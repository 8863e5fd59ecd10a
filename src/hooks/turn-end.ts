import type { AppDeps } from '../app/deps.js';
import { isGcDue, markTurnEnd } from '../app/rewind.js';
import { describeError } from '../core/errors.js';
import { startBackgroundGc } from './background.js';
import { type HookContext, type HookEvent, type HookResult, hookProjectRoot } from './common.js';
import { type HookInput, stringField } from './input.js';
import { recordFromTranscript } from './transcript-record.js';

/**
 * At the end of a turn (Stop, or the agent's equivalent) and of the session (SessionEnd, which also ends
 * a turn cut short): mark where the session's work stopped with a `turn-end` snapshot, so that a rewind
 * can tell what was changed afterwards outside any agent; and fill the checkpoint from the transcript.
 * Both finish before the hook answers (in print mode Claude Code ends right after).
 */
export async function endOfTurn(
  input: HookInput,
  deps: AppDeps,
  event: HookEvent,
  context: HookContext = {},
): Promise<HookResult> {
  const sessionId = stringField(input, 'session_id', 'sessionId');
  const [recorded, marked] = await Promise.allSettled([
    recordFromTranscript(input, deps, event, context),
    sessionId
      ? markTurnEnd(deps, { projectRoot: hookProjectRoot(deps, input), sessionId, agent: context.agent })
      : Promise.resolve(null),
  ]);
  const notes: string[] = [];
  if (recorded.status === 'fulfilled') notes.push(...recorded.value.notes);
  else notes.push(`the transcript was not recorded: ${describeError(recorded.reason)}`);
  if (marked.status === 'rejected')
    notes.push(`the end of the turn was not marked: ${describeError(marked.reason)}`);
  else if (marked.value && isGcDue(marked.value) && context.cliPath)
    startBackgroundGc(context.cliPath, marked.value.root.root, deps.env);
  return { notes };
}
