import { captureFacts } from '../app/capture-facts.js';
import type { AppDeps } from '../app/deps.js';
import { takeSnapshot } from '../app/rewind.js';
import { markBriefDue } from './brief-due.js';
import { type HookContext, type HookResult, hookProjectRoot } from './common.js';
import { type HookInput, stringField } from './input.js';

/** Before compaction: refresh the facts in the checkpoint (keeping the agent's notes) and take a snapshot. */
export async function preCompact(
  input: HookInput,
  deps: AppDeps,
  context: HookContext = {},
): Promise<HookResult> {
  const projectRoot = hookProjectRoot(deps, input);
  const saved = await captureFacts(deps, { projectRoot });
  await takeSnapshot(deps, {
    projectRoot,
    trigger: 'pre-compact',
    label: `before ${stringField(input, 'trigger') ?? 'auto'} compaction`,
    sessionId: stringField(input, 'session_id', 'sessionId'),
  });
  if (context.briefOnNextPrompt) await markBriefDue(deps, saved.root.root);
  return { notes: [] };
}
