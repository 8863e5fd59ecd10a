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
 * A relative value is ignored, as for HOME (see absoluteDirFromEnv).
 */
export function agentHome(env: NodeJS.ProcessEnv, agent: AgentWithHome): string {
  const home = () => homeFolder(env);
  switch (agent) {
    case 'codex':
      return absoluteDirFromEnv(env, 'CODEX_HOME') ?? path.join(home(), '.codex');
    case 'copilot':
      return absoluteDirFromEnv(env, 'COPILOT_HOME') ?? path.join(home(), '.copilot');
    case 'gemini':
      return path.join(absoluteDirFromEnv(env, 'GEMINI_CLI_HOME') ?? home(), '.gemini');
  }
}
