/**
 * The hook events `setup` wires for each agent, with their matchers and timeouts: one table that setup
 * writes from and `doctor` checks against, so that a file written by an earlier version, which lacks an
 * event this version wires (the BeforeTool or PreToolUse snapshot before a destructive command), is
 * reported with the setup command that adds it (trial 4, item 2). Data only: doctor loads no setup code.
 */

/** Gemini CLI: event, matcher, timeout in milliseconds. */
export const GEMINI_HOOKS = [
  ['SessionStart', '*', 15_000],
  ['BeforeAgent', '*', 15_000],
  ['PreCompress', '*', 30_000],
  ['AfterTool', 'run_shell_command', 15_000],
  // The end of each turn and of the session: what the model did not save, from its chat file.
  ['AfterAgent', '*', 15_000],
  ['SessionEnd', '*', 15_000],
  // Before a shell command that may destroy work: a snapshot (issue 25). Never a decision.
  ['BeforeTool', 'run_shell_command', 15_000],
] as const;

/** Codex: Claude Code's hook format in hooks.json; event, matcher (none: every), timeout in seconds. */
export const CODEX_HOOKS = [
  ['SessionStart', 'startup|resume|clear|compact', 15],
  ['UserPromptSubmit', undefined, 15],
  ['PreCompact', undefined, 30],
  ['PostToolUse', 'Bash', 10],
  // The end of each turn: what the model did not save, from the session's rollout file.
  ['Stop', undefined, 15],
  ['PreToolUse', 'Bash', 15],
] as const;

/**
 * Copilot CLI's events we hook (Claude Code's names, for which it sends Claude Code's payloads), with
 * their timeouts in seconds. Stop (agentStop) and SessionEnd fill the checkpoint from the session's
 * events file. PostToolUseFailure is left out: for the shell it reports only calls that never ran.
 */
export const COPILOT_HOOKS = [
  ['SessionStart', 15],
  ['UserPromptSubmit', 15],
  ['PreCompact', 30],
  ['PostToolUse', 10],
  ['Stop', 15],
  ['SessionEnd', 15],
  // Before a shell command that may destroy work: a snapshot (issue 25). Never a decision.
  ['PreToolUse', 15],
] as const;

/** The events `setup <agent>` wires, by agent (OpenCode has a plugin, checked whole). */
export const SETUP_HOOK_EVENTS = {
  gemini: GEMINI_HOOKS.map(([event]) => event),
  codex: CODEX_HOOKS.map(([event]) => event),
  copilot: COPILOT_HOOKS.map(([event]) => event),
} as const satisfies Record<string, readonly string[]>;

/**
 * The events of `wanted` that a hooks object (`{ <event>: [group, …] }`, Claude Code's layout, which Codex
 * and Gemini CLI share) has no hook of ours for; `isOurs` tells one hook entry (`{ command, … }`).
 */
export function eventsWithoutOurs(
  hooks: unknown,
  wanted: readonly string[],
  isOurs: (hook: unknown) => boolean,
): string[] {
  const byEvent = typeof hooks === 'object' && hooks !== null ? (hooks as Record<string, unknown>) : {};
  return wanted.filter((event) => {
    const groups = byEvent[event];
    return !(
      Array.isArray(groups) &&
      groups.some((group) => {
        const entries = (group as { hooks?: unknown } | null)?.hooks;
        return Array.isArray(entries) && entries.some(isOurs);
      })
    );
  });
}

/**
 * Exactly the shape setup's hook command has (`node <hook entry> <Event> --agent <agent>
 * --by-claude-checkpoint-setup`, see setup-edits.ts), for any installation's path: nothing that merely
 * ends like it. With `agent`, only that agent's.
 */
export function isOurHookCommand(command: unknown, agent?: string): boolean {
  if (typeof command !== 'string') return false;
  const match =
    /^node (?:[\w@%+=:,./-]+|'(?:[^']|'\\'')*') [A-Za-z]+ --agent ([a-z]+) --by-claude-checkpoint-setup$/.exec(
      command,
    );
  return match !== null && (agent === undefined || match[1] === agent);
}
