// Which event of each agent comes before a tool runs, and its shell tools there: what the hooks' loader
// needs to know before it loads the gate (pre-command-gate.ts, its own bundle in the plugin).

/** The event the gate acts on (ours, and Claude Code's). */
export const PRE_COMMAND_EVENT = 'PreToolUse';

/**
 * Each agent's event before a tool runs, and the names of its shell tools there (checked against the
 * agents' own code: Claude Code's Bash and PowerShell tools; Gemini CLI's BeforeTool for
 * run_shell_command; Codex's and Copilot CLI's Claude-compatible PreToolUse, Copilot CLI's `powershell`
 * tool on Windows; the OpenCode plugin hands over Claude's shape). `isAnyCase`: the names are matched
 * whatever their case (Copilot CLI's PascalCase hooks send Claude's `Bash`/`PowerShell`, its camelCase
 * ones `bash`/`powershell`).
 */
export const PRE_TOOL: Readonly<
  Record<string, { event: string; tools: readonly string[]; isAnyCase?: boolean }>
> = {
  claude: { event: 'PreToolUse', tools: ['Bash', 'PowerShell'] },
  codex: { event: 'PreToolUse', tools: ['Bash'] },
  copilot: { event: 'PreToolUse', tools: ['bash', 'shell', 'powershell'], isAnyCase: true },
  gemini: { event: 'BeforeTool', tools: ['run_shell_command'] },
  opencode: { event: 'PreToolUse', tools: ['Bash'] },
};

/** Whether `tool` is one of the agent's shell tools (an unnamed agent is Claude Code). */
export function isShellTool(agent: string | undefined, tool: string): boolean {
  const known = PRE_TOOL[agent ?? 'claude'];
  if (!known) return false;
  return known.tools.includes(known.isAnyCase ? tool.toLowerCase() : tool);
}

/** Whether `event` is the agent's event before a tool runs (an unnamed agent is Claude Code). */
export function isPreCommandEvent(agent: string | undefined, event: string): boolean {
  return PRE_TOOL[agent ?? 'claude']?.event === event;
}
