/** The agents `setup` installs into (Claude Code has its plugin). Apart, so the CLI's help loads no setup code. */
export const SETUP_AGENTS = ['codex', 'copilot', 'gemini', 'opencode'] as const;
export type SetupAgent = (typeof SETUP_AGENTS)[number];
