import type { AppDeps } from '../app/deps.js';
import type { HookContext, HookEvent, HookResult } from './common.js';
import type { HookInput } from './input.js';

export { HOOK_EVENTS, type HookEvent, type HookResult, ROOT_OPTION } from './common.js';

/** Runs one event's handler. Each event loads only its own module: a hook pays for what it does. */
export async function handleHook(
  event: HookEvent,
  input: HookInput,
  deps: AppDeps,
  context: HookContext = {},
): Promise<HookResult> {
  switch (event) {
    case 'SessionStart':
      return (await import('./session-start.js')).sessionStart(input, deps, context);
    case 'UserPromptSubmit':
      return (await import('./prompt-snapshot.js')).userPromptSubmit(input, deps, context);
    case 'PreCompact':
      return (await import('./pre-compact.js')).preCompact(input, deps, context);
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return (await import('./bash-record.js')).postToolUse(input, deps, event, context);
    case 'Stop':
    case 'SessionEnd':
      return (await import('./turn-end.js')).endOfTurn(input, deps, event, context);
    case 'PreToolUse':
      return (await import('./pre-command.js')).preToolUse(input, deps, context);
  }
}
