/**
 * The Claude Code hook events the plugin registers and `claude-checkpoint hook <event>` understands: the
 * engine's events, the Claude Code adapter's, and the ones `doctor` expects wired.
 */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreCompact',
  'PostToolUse',
  'PostToolUseFailure',
  'Stop',
  'SessionEnd',
  // A snapshot before a Bash command that may destroy work (hooks/pre-command.ts).
  'PreToolUse',
] as const;

export type HookEvent = (typeof HOOK_EVENTS)[number];
