import { readFileSync } from 'node:fs';
import path from 'node:path';

// The two settings the hooks' entry (hook-loader.ts) needs before it hands its event to the project's
// server, told without the settings registry (core/settings.ts), which costs a hook more to load than
// asking the server does. Only what the environment decides for certain is told here; in any other case
// (a settings file that sets them, a value that is off or wrong, no home folder named) the answer is
// `null`, and the hooks' front (hook-front.ts) reads the settings whole. A test holds the two equal.

/** The settings that ask the environment alone, and what they are read as (core/settings.ts). */
const RELAY_SETTINGS = ['hookRelay', 'storeDir'] as const;
const ON = ['1', 'true', 'on', 'yes'];
/** The user's settings file, in their configuration folder. */
export const USER_SETTINGS_FILE = 'config.json';
/** A settings file is a few lines; anything bigger is a mistake, not read. */
export const MAX_SETTINGS_BYTES = 64 * 1024;

/**
 * The store's folder, when the relay is on and both are decided by the environment alone: the user's
 * settings file (if any) says nothing of either, CHECKPOINT_HOOK_RELAY is unset or on, and
 * CHECKPOINT_STORE_DIR is unset or an absolute path. `null` otherwise: ask readSettings.
 */
export function relayStoreBase(env: NodeJS.ProcessEnv): string | null {
  if (process.platform === 'win32') return null; // no relay there
  const configDir = configDirFromEnv(env);
  if (configDir === null || !isSilentOn(path.join(configDir, USER_SETTINGS_FILE))) return null;
  const relay = env.CHECKPOINT_HOOK_RELAY?.trim().toLowerCase();
  if (relay && !ON.includes(relay)) return null;
  const storeDir = env.CHECKPOINT_STORE_DIR?.trim();
  if (storeDir) return path.isAbsolute(storeDir) ? path.normalize(storeDir) : null;
  const home = env.HOME?.trim();
  const state = env.XDG_STATE_HOME?.trim() || (home ? path.join(home, '.local', 'state') : '');
  return state ? path.join(state, 'claude-checkpoint') : null;
}

/**
 * The user's configuration folder as the environment names it ($CHECKPOINT_CONFIG_DIR, else
 * $XDG_CONFIG_HOME/claude-checkpoint, else $HOME/.config/claude-checkpoint); `null` when only the
 * system's idea of the home folder could tell.
 */
export function configDirFromEnv(env: NodeJS.ProcessEnv): string | null {
  const explicit = env.CHECKPOINT_CONFIG_DIR?.trim();
  if (explicit) return explicit;
  const home = env.HOME?.trim();
  const base = env.XDG_CONFIG_HOME?.trim() || (home ? path.join(home, '.config') : '');
  return base ? path.join(base, 'claude-checkpoint') : null;
}

/** Whether the settings file is missing, or a JSON object that leaves RELAY_SETTINGS to their defaults. */
function isSilentOn(file: string): boolean {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
  if (text.length > MAX_SETTINGS_BYTES) return false;
  try {
    const json = JSON.parse(text) as unknown;
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
    return RELAY_SETTINGS.every((name) => (json as Record<string, unknown>)[name] == null);
  } catch {
    return false;
  }
}
