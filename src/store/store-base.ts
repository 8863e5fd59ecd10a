import path from 'node:path';
import { absoluteDirFromEnv } from '../core/env-dirs.js';
import { SETTINGS } from '../core/settings.js';
import { homeFolder } from './home-folder.js';
import { userSetting } from './settings-file.js';

export const STORE_ENV = SETTINGS.storeDir.env;

/**
 * Where snapshots live: the storeDir setting (CHECKPOINT_STORE_DIR), else $XDG_STATE_HOME/claude-checkpoint,
 * else ~/.local/state/claude-checkpoint. Meant to lie outside the project; one set inside it is left out of
 * every scan of it (see store-within.ts).
 */
export function defaultStoreBase(env: NodeJS.ProcessEnv): string {
  const explicit = userSetting(env, 'storeDir');
  if (explicit) return explicit;
  const state = absoluteDirFromEnv(env, 'XDG_STATE_HOME') ?? path.join(homeFolder(env), '.local', 'state');
  return path.join(state, 'claude-checkpoint');
}

/** Where V8's code cache goes (store/code-cache.ts): the store's base folder, or `null` with the cache off. */
export function codeCacheBase(env: NodeJS.ProcessEnv): string | null {
  try {
    return userSetting(env, 'hookCodeCache') ? defaultStoreBase(env) : null;
  } catch {
    return null;
  }
}
