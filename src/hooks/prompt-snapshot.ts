import type { AppDeps } from '../app/deps.js';
import { takeSnapshot } from '../app/rewind.js';
import { startBackgroundGc } from './background.js';
import { type HookContext, type HookResult, hookProjectRoot } from './common.js';
import { type HookInput, stringField } from './input.js';

/** A snapshot before every prompt, labelled with the prompt's first line. Prints nothing on stdout: that would become context. */
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
  const outcome = await takeSnapshot(deps, {
    projectRoot: hookProjectRoot(deps, input),
    trigger: 'prompt',
    label,
    sessionId: stringField(input, 'session_id', 'sessionId'),
  });
  if (outcome.detachDue && context.cliPath) startBackgroundGc(context.cliPath, outcome.root.root, deps.env);
  return { notes: [] };
}
