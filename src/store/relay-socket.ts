import { realpathSync } from 'node:fs';
import path from 'node:path';
import { SETTINGS } from '../core/settings.js';
import { homeFolder } from './home-folder.js';
import { relaySocketIn } from './relay-socket-path.js';
import { userSetting } from './settings-file.js';
import { defaultStoreBase } from './store-base.js';

// Where a project's hook relay listens (a socket in the store's run/ folder) and whether it is on: what
// the hooks, the MCP server's relay and `doctor` share. The exchange itself is in hooks/relay-protocol.ts.

/** Set to 0 to turn the relay off (both the server's socket and the hooks' use of it). */
export const RELAY_ENV = SETTINGS.hookRelay.env;

export { fnv1a64, isPrivateFolder } from './relay-socket-path.js';

export function relayDisabled(env: NodeJS.ProcessEnv): boolean {
  return !userSetting(env, 'hookRelay') || process.platform === 'win32';
}

/** Set to 0 for no hook host: hooks without a server then run their events themselves. */
export const HOST_ENV = SETTINGS.hookHost.env;

export function hostDisabled(env: NodeJS.ProcessEnv): boolean {
  return relayDisabled(env) || !userSetting(env, 'hookHost');
}

/** The socket, in the store, where the given project's server listens and its hooks look for it. */
export function relaySocketPath(env: NodeJS.ProcessEnv, projectDir: string): string | null {
  return relaySocketIn(defaultStoreBase(env), projectDir);
}

/**
 * Whether a live server answers at `socketPath` (a dead one's socket file refuses connections). `net` is
 * passed in: the hooks' loader must not load it before it has found a socket.
 */
export function isListening(socketPath: string, net: typeof import('node:net')): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createConnection(socketPath, () => {
      probe.destroy();
      resolve(true);
    });
    probe.on('error', () => resolve(false));
  });
}

/** The home folder or the file-system root: never a project, so nobody listens for it (hooks refuse it too). */
export function isHomeOrRoot(dir: string, env: NodeJS.ProcessEnv): boolean {
  if (dir === path.parse(dir).root) return true;
  try {
    return dir === realpathSync(homeFolder(env));
  } catch {
    return false;
  }
}
