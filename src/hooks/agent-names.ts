/** The agents whose hooks this tool speaks. The caller always names one (`--agent`); it is never guessed. */
export const AGENTS = ['claude', 'codex', 'copilot', 'gemini', 'opencode'] as const;
export type Agent = (typeof AGENTS)[number];
