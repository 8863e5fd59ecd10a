import { lstatSync } from 'node:fs';
import path from 'node:path';

// The relay socket's path and the check on its folder, with no settings to load: the hooks' entry
// (hook-loader.ts) finds a project's server with these alone. relay-socket.ts builds on them.

/** Unix socket paths are capped at 104 bytes (macOS) or 108 (Linux), the terminating NUL included. */
const MAX_SOCKET_PATH_BYTES = 103;

/**
 * The socket for `projectDir` in the store at `storeBase`, or `null` when its path is too long for a unix
 * socket. The key only has to match between the two sides (any of the user's servers would run a hook
 * correctly, since it runs with the hook's own input and environment): FNV-1a of the folder's real path,
 * no crypto to load.
 */
export function relaySocketIn(storeBase: string, projectDir: string): string | null {
  const socket = path.join(storeBase, 'run', `${fnv1a64(projectDir)}.sock`);
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

/** 64-bit FNV-1a over the UTF-8 bytes, as 16 hex digits. */
export function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}
