import { captureFacts } from '../app/capture-facts.js';
import type { AppDeps } from '../app/deps.js';
import { recordTranscript } from '../app/record-transcript.js';
import { isGcDue, takeSnapshot } from '../app/rewind.js';
import { startBackgroundGc } from './background.js';
import { markBriefDue } from './brief-due.js';
import { type HookContext, type HookResult, hookProjectRoot } from './common.js';
import { type HookInput, stringField } from './input.js';
import { transcriptSource } from './transcript-record.js';

/**
 * Before compaction: refresh the facts in the checkpoint (keeping the agent's notes, filling what it left
 * empty from its transcript) and take a snapshot.
 */
export async function preCompact(
  input: HookInput,
  deps: AppDeps,
  context: HookContext = {},
): Promise<HookResult> {
  const projectRoot = hookProjectRoot(deps, input);
  const source = transcriptSource(input, context);
  const derived = source ? await recordTranscript(deps, { projectRoot, source, full: true }) : null;
  const root = derived?.recorded ? derived.root : (await captureFacts(deps, { projectRoot })).root.root;
  const sessionId = stringField(input, 'session_id', 'sessionId');
  const snapshot = await takeSnapshot(deps, {
    projectRoot,
    trigger: 'pre-compact',
    label: `before ${stringField(input, 'trigger') ?? 'auto'} compaction`,
    sessionId,
  });
  if (isGcDue(snapshot) && context.cliPath) startBackgroundGc(context.cliPath, snapshot.root.root, deps.env);
  if (context.briefOnNextPrompt) await markBriefDue(deps, root, { agent: context.agent, sessionId });
  return { notes: [] };
}
