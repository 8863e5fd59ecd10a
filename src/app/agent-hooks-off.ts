import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { agentHome } from '../store/agent-homes.js';
import { readJsoncObject } from './jsonc.js';

/** A setting that switches an agent's hooks off: the file that holds it and the setting, as written. */
export interface HooksOff {
  file: string;
  setting: string;
}

/**
 * Where Codex or Gemini CLI is told to run no hooks at all, ours included; `null` when neither scope says
 * so. The project's file is read first: it overrides the user's for the same key in both agents, so the
 * first file that sets the key decides.
 * - Codex: `[features]` `hooks = false` in config.toml ("Hooks are enabled by default. If you need to turn
 *   them off in config.toml, set [features] hooks = false"; `codex_hooks` is its deprecated alias:
 *   https://developers.openai.com/codex/hooks).
 * - Gemini CLI: `"hooksConfig": { "enabled": false }` in settings.json ("When disabled, no hooks will be
 *   executed": gemini-cli packages/cli/src/config/settingsSchema.ts, `hooksConfig.enabled`).
 */
export async function hooksSwitchedOff(
  agent: 'codex' | 'gemini',
  env: NodeJS.ProcessEnv,
  projectRoot: string,
): Promise<HooksOff | null> {
  const folder = agent === 'codex' ? '.codex' : '.gemini';
  const name = agent === 'codex' ? 'config.toml' : 'settings.json';
  for (const file of [path.join(projectRoot, folder, name), path.join(agentHome(env, agent), name)]) {
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) continue;
    const found = agent === 'codex' ? await codexHooksFeature(text) : geminiHooksEnabled(text);
    if (found === undefined) continue;
    return found.enabled ? null : { file, setting: found.setting };
  }
  return null;
}

/** `[features].hooks` (or its older name `codex_hooks`) of a Codex config.toml; undefined when unset or unreadable. */
async function codexHooksFeature(text: string): Promise<Found | undefined> {
  // The text only tells whether to load a TOML parser; the table is found as TOML reads it.
  if (!text.includes('hooks')) return undefined;
  const { parse } = await import('smol-toml');
  let features: Record<string, unknown> | undefined;
  try {
    features = (parse(text) as { features?: Record<string, unknown> }).features;
  } catch {
    return undefined;
  }
  for (const key of ['hooks', 'codex_hooks']) {
    const value = features?.[key];
    if (typeof value === 'boolean') return { enabled: value, setting: `[features] ${key} = false` };
  }
  return undefined;
}

/** `hooksConfig.enabled` of a Gemini CLI settings.json; undefined when unset or unreadable. */
function geminiHooksEnabled(text: string): Found | undefined {
  const settings = readJsoncObject(text) as { hooksConfig?: { enabled?: unknown } } | undefined;
  const value = settings?.hooksConfig?.enabled;
  return typeof value === 'boolean'
    ? { enabled: value, setting: '"hooksConfig": { "enabled": false }' }
    : undefined;
}

/** What a file says of the switch: on or off, and the setting that says it off. */
interface Found {
  enabled: boolean;
  setting: string;
}
