import type { AppDeps } from '../app/deps.js';
import { isGcDue, takeSnapshot } from '../app/rewind.js';
import { startBackgroundGc } from './background.js';
import { takeBriefDue } from './brief-due.js';
import { type HookContext, type HookResult, hookProjectRoot } from './common.js';
import { type HookInput, stringField } from './input.js';

/**
 * A snapshot before every prompt, labelled with the prompt's first line. Says nothing to the model, except
 * the brief after a compaction for agents that have no session start then. Through the relay, the agent
 * goes on as soon as the snapshot's content is taken; the store finishes writing it meanwhile.
 */
export async function userPromptSubmit(
  input: HookInput,
  deps: AppDeps,
  context: HookContext,
): Promise<HookResult> {
  const prompt = stringField(input, 'prompt', 'user_prompt') ?? '';
  const label = prompt
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim();
  const sessionId = stringField(input, 'session_id', 'sessionId');
  const outcome = await takeSnapshot(deps, {
    projectRoot: hookProjectRoot(deps, input),
    trigger: 'prompt',
    label,
    sessionId,
    prompt: {
      agent: context.agent,
      promptId: stringField(input, 'prompt_id', 'promptId'),
      transcriptPath: stringField(input, 'transcript_path', 'transcriptPath'),
    },
    // An agent that may get the brief with this prompt's answer has to wait for all of it.
    onContentTaken: context.briefOnNextPrompt ? undefined : context.answerEarly,
  });
  if (isGcDue(outcome) && context.cliPath) startBackgroundGc(context.cliPath, outcome.root.root, deps.env);
  if (
    context.briefOnNextPrompt &&
    (await takeBriefDue(deps, outcome.root.root, { agent: context.agent, sessionId }))
  ) {
    const { briefAfterCompaction } = await import('./session-start.js');
    const brief = await briefAfterCompaction(deps, outcome.root.root, context);
    if (brief) return { context: brief, notes: [] };
  }
  return { notes: [] };
}
