import type { HookEvent } from '../core/hook-events.js';

/** Time budgets: a hook must never hold up a session; past its budget it gives up and says why. */
export const HOOK_BUDGET_MS: Readonly<Record<HookEvent, number>> = {
  SessionStart: 8_000,
  UserPromptSubmit: 10_000,
  PreCompact: 25_000,
  PostToolUse: 5_000,
  PostToolUseFailure: 5_000,
  // Claude Code waits for it at the end of every turn: reading the transcript's new lines is quick, and
  // so is marking the turn's end (one capture, as before a prompt).
  Stop: 8_000,
  SessionEnd: 10_000,
  // The command waits for the snapshot: as long as a prompt's.
  PreToolUse: 10_000,
};

const SHORTEST_BUDGET_MS = Math.min(...Object.values(HOOK_BUDGET_MS));

/**
 * How long a hook waits for its input before it goes on as with none: half its budget (issue 26: an agent
 * that left stdin open held the hook until the agent's own timeout). The budget is the event's, or the
 * shortest for an event named otherwise (other agents' names), or `CHECKPOINT_HOOK_TIMEOUT_MS`; read
 * before any settings file is, so the plugin's loader can apply it.
 */
export function inputWaitMs(event: string, env: NodeJS.ProcessEnv): number {
  const override = env.CHECKPOINT_HOOK_TIMEOUT_MS?.trim() ?? '';
  const budget =
    /^\d+$/.test(override) && Number(override) >= 1 && Number(override) <= 600_000
      ? Number(override)
      : (HOOK_BUDGET_MS[event as HookEvent] ?? SHORTEST_BUDGET_MS);
  return Math.ceil(budget / 2);
}
