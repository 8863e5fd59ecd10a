import os from 'node:os';
import path from 'node:path';

export const STORE_ENV = 'CHECKPOINT_STORE_DIR';

/**
 * Where snapshots live: CHECKPOINT_STORE_DIR, else $XDG_STATE_HOME/claude-checkpoint, else
 * ~/.local/state/claude-checkpoint. Never inside the project, so the user's tree stays untouched.
 */
export function defaultStoreBase(env: NodeJS.ProcessEnv): string {
  const explicit = env[STORE_ENV]?.trim();
  if (explicit) return path.resolve(explicit);
  const state = env.XDG_STATE_HOME?.trim() || path.join(env.HOME?.trim() || os.homedir(), '.local', 'state');
  return path.join(state, 'claude-checkpoint');
}
