import { lstatSync } from 'node:fs';
import path from 'node:path';
import { SETTINGS } from '../core/settings.js';
import { userSetting } from './settings-file.js';
import { defaultStoreBase } from './store-base.js';

// Where a project's hook relay listens (a socket in the store's run/ folder) and whether it is on: what
// the hooks, the MCP server's relay and `doctor` share. The exchange itself is in hooks/relay-protocol.ts.

/** Set to 0 to turn the relay off (both the server's socket and the hooks' use of it). */
export const RELAY_ENV = SETTINGS.hookRelay.env;

/** Unix socket paths are capped at 104 bytes (macOS) or 108 (Linux), the terminating NUL included. */
const MAX_SOCKET_PATH_BYTES = 103;

export function relayDisabled(env: NodeJS.ProcessEnv): boolean {
  return !userSetting(env, 'hookRelay') || process.platform === 'win32';
}

/** Set to 0 for no hook host: hooks without a server then run their events themselves. */
export const HOST_ENV = SETTINGS.hookHost.env;

export function hostDisabled(env: NodeJS.ProcessEnv): boolean {
  return relayDisabled(env) || !userSetting(env, 'hookHost');
}

/**
 * The socket, in the store, where the given project's server listens and its hooks look for it. The key only has
 * to match between the two sides (any of the user's servers would run a hook correctly, since it runs
 * with the hook's own input and environment): FNV-1a of the folder's real path, no crypto to load.
 */
export function relaySocketPath(env: NodeJS.ProcessEnv, projectDir: string): string | null {
  const socket = path.join(defaultStoreBase(env), 'run', `${fnv1a64(projectDir)}.sock`);
  return Buffer.byteLength(socket) <= MAX_SOCKET_PATH_BYTES ? socket : null;
}

/**
 * Whether the socket's folder is ours alone: a real folder (not a link), owned by this user, closed to
 * everyone else. Otherwise another account could answer our hooks (and speak to the agent), or read them.
 */
export function isPrivateFolder(dir: string): boolean {
  try {
    const stats = lstatSync(dir);
    return (
      stats.isDirectory() &&
      (process.getuid === undefined || stats.uid === process.getuid()) &&
      (stats.mode & 0o077) === 0
    );
  } catch {
    return false;
  }
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

/** 64-bit FNV-1a over the UTF-8 bytes, as 16 hex digits. */
export function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}
