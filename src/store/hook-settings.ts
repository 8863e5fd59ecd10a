import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { absoluteDirFromEnv } from '../core/env-dirs.js';
import { parseJsonFile } from '../core/text.js';

// The settings the hooks' entry (hook-loader.ts) needs before it hands its event to the project's
// server, told without the settings registry (core/settings.ts), which costs a hook more to load than
// asking the server does. Only what the environment decides for certain is told here; in any other case
// (a settings file that sets one of them, a value that is wrong, no home folder named) the answer is
// `null`, and the hooks' front (hook-front.ts) reads the settings whole. A test holds the two equal.

/** The settings told here; what the user's settings file says of them is left to the registry. */
const ENTRY_SETTINGS = ['hookRelay', 'storeDir', 'hookCodeCache'] as const;
const ON = ['1', 'true', 'on', 'yes'];
const OFF = ['0', 'false', 'off', 'no'];
/** The user's settings file, in their configuration folder. */
export const USER_SETTINGS_FILE = 'config.json';
/** A settings file is a few lines; anything bigger is a mistake, not read. */
export const MAX_SETTINGS_BYTES = 64 * 1024;

export interface EntrySettings {
  /** The store's base folder (storeDir, else under $XDG_STATE_HOME or $HOME). */
  storeBase: string;
  /** hookRelay, and not Windows (relayDisabled). */
  isRelayOn: boolean;
  /** hookCodeCache. */
  isCodeCacheOn: boolean;
}

/**
 * ENTRY_SETTINGS, when the environment alone decides them: the user's settings file (if any) says
 * nothing of them, each variable is unset or a clear on/off (an absolute path for the store), and the
 * home folder is named. `null` otherwise: ask readSettings.
 */
export function entrySettings(env: NodeJS.ProcessEnv): EntrySettings | null {
  const configDir = configDirFromEnv(env);
  if (configDir === null || !isSilentOn(path.join(configDir, USER_SETTINGS_FILE))) return null;
  const isRelayOn = flag(env.CHECKPOINT_HOOK_RELAY);
  const isCodeCacheOn = flag(env.CHECKPOINT_HOOK_CODE_CACHE);
  const storeBase = storeBaseFromEnv(env);
  if (isRelayOn === null || isCodeCacheOn === null || storeBase === null) return null;
  return { storeBase, isRelayOn: isRelayOn && process.platform !== 'win32', isCodeCacheOn };
}

/** An on/off variable: its default (on) when unset, `null` when it is neither. */
function flag(value: string | undefined): boolean | null {
  const word = value?.trim().toLowerCase();
  if (!word || ON.includes(word)) return true;
  return OFF.includes(word) ? false : null;
}

function storeBaseFromEnv(env: NodeJS.ProcessEnv): string | null {
  const storeDir = env.CHECKPOINT_STORE_DIR?.trim();
  if (storeDir) return path.isAbsolute(storeDir) ? path.normalize(storeDir) : null;
  const home = absoluteDirFromEnv(env, 'HOME');
  const state = absoluteDirFromEnv(env, 'XDG_STATE_HOME') ?? (home ? path.join(home, '.local', 'state') : '');
  return state ? path.join(state, 'claude-checkpoint') : null;
}

/**
 * The user's configuration folder as the environment names it ($CHECKPOINT_CONFIG_DIR, else
 * $XDG_CONFIG_HOME/claude-checkpoint, else $HOME/.config/claude-checkpoint); `null` when only the
 * system's idea of the home folder could tell.
 */
export function configDirFromEnv(env: NodeJS.ProcessEnv): string | null {
  const explicit = absoluteDirFromEnv(env, 'CHECKPOINT_CONFIG_DIR');
  if (explicit) return explicit;
  const home = absoluteDirFromEnv(env, 'HOME');
  const base = absoluteDirFromEnv(env, 'XDG_CONFIG_HOME') ?? (home ? path.join(home, '.config') : '');
  return base ? path.join(base, 'claude-checkpoint') : null;
}

/** Whether the settings file is missing, or a JSON object that leaves ENTRY_SETTINGS to their defaults. */
function isSilentOn(file: string): boolean {
  let text: string;
  try {
    // Most users have none: asked without an exception, at every hook's and command's start (issue 26).
    if (!statSync(file, { throwIfNoEntry: false })) return true;
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
  if (text.length > MAX_SETTINGS_BYTES) return false;
  try {
    const json = parseJsonFile(text);
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
    return ENTRY_SETTINGS.every((name) => (json as Record<string, unknown>)[name] == null);
  } catch {
    return false;
  }
}
