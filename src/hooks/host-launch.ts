import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { isGitOnPath } from '../git/git-on-path.js';
import { readTextOrNull, removeQuietly } from '../store/fs-seam.js';
import { hostDisabled, isHomeOrRoot, isPrivateFolder } from '../store/relay-socket.js';
import { ensureStoreFolders } from '../store/store-folder.js';
import { HOST_ARG, HOST_SESSION_START_DELAY_MS, hostLogPath, hostStartMarker } from './relay-protocol.js';

/** A start younger than this is still under way; an older marker was left by a host that never came up. */
const START_GRACE_MS = 15_000;
const MAX_LOG_BYTES = 1024 * 1024;
/** What a session start's marker says: its host waits before it listens. */
const DELAYED_START = 'delayed';

export interface HostLaunch {
  /** The hooks' entry (hook.cjs), which becomes a host with HOST_ARG. */
  entry: string;
  /** Where nothing listens now, and the project it is for (RelayOutcome's `vacant`). */
  socket: string;
  projectDir: string;
  event: string;
  env: NodeJS.ProcessEnv;
  /** Loads `node:child_process` only when a host is started. */
  loadChildProcess: () => typeof import('node:child_process');
}

/**
 * Starts a hook host for the project (see relay-protocol.ts) in the background, unless hosts are off or
 * one is being started already: a burst of hooks starts one host, which the marker beside the socket
 * ensures. One started by a session start waits a little before it listens, and listens only if our MCP
 * server, which the agent may be starting meanwhile, has not. None starts where git is not on PATH. Never fails the hook: a host that cannot
 * start leaves the hooks running themselves, as before.
 */
export function launchHookHost(launch: HostLaunch): boolean {
  const { socket, env } = launch;
  if (hostDisabled(env) || isHomeOrRoot(launch.projectDir, env)) return false;
  // A host keeps the environment it was started with: started where git cannot run, it failed every
  // later hook handed to it, from a shell whose PATH has git too (issue 26).
  if (!isGitOnPath(env)) return false;
  const delayMs = /^sessionstart$/i.test(launch.event) ? HOST_SESSION_START_DELAY_MS : 0;
  const dir = path.dirname(socket);
  try {
    // Security: the store's base and run/ are real folders (a link in either's place is refused).
    ensureStoreFolders([path.dirname(dir), dir]);
    if (!isPrivateFolder(dir) || !claimStart(hostStartMarker(socket), delayMs > 0)) return false;
  } catch {
    return false;
  }
  let log: number | undefined;
  try {
    log = openLog(hostLogPath(socket));
    const child = launch.loadChildProcess().spawn(
      process.execPath,
      [launch.entry, HOST_ARG, launch.projectDir, String(delayMs)],
      // Its own process group, no terminal, no pipes back: the hook's process ends without waiting for it.
      { detached: true, stdio: ['ignore', 'ignore', log], cwd: dir, env },
    );
    child.on('error', () => removeQuietly(hostStartMarker(socket)));
    child.unref();
    return true;
  } catch {
    removeQuietly(hostStartMarker(socket));
    return false;
  } finally {
    if (log !== undefined) closeSync(log);
  }
}

/**
 * Creates the start marker, or finds a start under way. A marker past its grace is taken over, and so is
 * a session start's (`delayed`) by any other hook: nothing listened when that hook came, so no server is
 * coming, and its host should not wait. The session start's host, once awake, finds this one listening.
 */
function claimStart(marker: string, delayed: boolean): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(
        marker,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      const stats = lstatSync(marker, { throwIfNoEntry: false });
      const fresh = stats !== undefined && Date.now() - stats.mtimeMs < START_GRACE_MS;
      if (fresh && (delayed || readTextOrNull(marker) !== DELAYED_START)) return false;
      removeQuietly(marker);
      continue;
    }
    try {
      if (delayed) writeSync(fd, DELAYED_START);
    } finally {
      closeSync(fd);
    }
    return true;
  }
  return false;
}

/** The host's stderr: what it has to say after a hook was answered. Kept under MAX_LOG_BYTES. */
function openLog(file: string): number {
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
    0o600,
  );
  if (fstatSync(fd).size > MAX_LOG_BYTES) ftruncateSync(fd, 0);
  return fd;
}
