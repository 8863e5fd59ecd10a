import path from 'node:path';
import { absoluteDirFromEnv } from '../core/env-dirs.js';
import { homeFolder } from './home-folder.js';

/** The agents whose user-level folder an environment variable moves. */
export type AgentWithHome = 'codex' | 'copilot' | 'gemini';

/**
 * The folder an agent reads its user-level configuration and state from, as the agent finds it (one place
 * for setup, doctor, the hooks and conversation rewind, so all follow the same variable):
 * - Codex: `$CODEX_HOME`, else `~/.codex` ("CODEX_HOME … Sets the root for Codex state, including config",
 *   https://developers.openai.com/codex/environment-variables).
 * - Copilot CLI: `$COPILOT_HOME`, else `~/.copilot` (its changelog: "--config-dir is deprecated in favor of
 *   COPILOT_HOME").
 * - Gemini CLI: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`: the variable stands for the home folder, under
 *   which Gemini CLI makes its `.gemini` (gemini-cli docs/reference/configuration.md, and
 *   packages/core/src/utils/paths.ts, whose `homedir()` returns it and is joined with `.gemini`).
 * A relative `CODEX_HOME` or `GEMINI_CLI_HOME` is taken from the current folder, as the agent takes it
 * (Codex's `find_codex_home` canonicalises it there; Gemini CLI uses the value as given, which Node reads
 * from the current folder); a relative `COPILOT_HOME` is ignored, as for HOME (see absoluteDirFromEnv).
 */
export function agentHome(env: NodeJS.ProcessEnv, agent: AgentWithHome, cwd = process.cwd()): string {
  const home = () => homeFolder(env);
  switch (agent) {
    case 'codex':
      return dirFromEnv(env, 'CODEX_HOME', cwd) ?? path.join(home(), '.codex');
    case 'copilot':
      return absoluteDirFromEnv(env, 'COPILOT_HOME') ?? path.join(home(), '.copilot');
    case 'gemini':
      return path.join(dirFromEnv(env, 'GEMINI_CLI_HOME', cwd) ?? home(), '.gemini');
  }
}

/** The variables of the agents that take a relative value from the current folder. */
const FOLLOWS_CWD = { codex: 'CODEX_HOME', gemini: 'GEMINI_CLI_HOME' } as const;

/**
 * The variable that moves the agent's folder when it holds a relative path, with that value, else `null`:
 * setup says which folder it took it for, since the same value names another folder elsewhere.
 */
export function relativeAgentHome(
  env: NodeJS.ProcessEnv,
  agent: AgentWithHome,
): { variable: string; value: string } | null {
  if (agent === 'copilot') return null;
  const variable = FOLLOWS_CWD[agent];
  const value = env[variable]?.trim();
  return value && !path.isAbsolute(value) ? { variable, value } : null;
}

function dirFromEnv(env: NodeJS.ProcessEnv, name: string, cwd: string): string | undefined {
  const value = env[name]?.trim();
  return value ? path.resolve(cwd, value) : undefined;
}
