import { closeSync, constants, existsSync, lstatSync, openSync, readdirSync, utimesSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { settingErrors } from '../core/settings.js';
import { removeQuietly } from '../store/fs-seam.js';
import { KeyedQueue } from '../store/lock.js';
import { isListening, relaySocketPath } from '../store/relay-socket.js';
import { readSettings, userSetting } from '../store/settings-file.js';
import { hostLogPath, hostMarkerPath, hostStartMarker, MAX_HOOK_HOSTS } from './relay-protocol.js';
import { askToStepAside, type HookRelay, startHookRelay } from './relay-server.js';

/**
 * A hook host's whole life (see relay-protocol.ts): after `delayMs`, listens for `projectDir`'s hooks in
 * an MCP server's place until it has been idle for a while, then ends. Ends at once when something else
 * listens there already. Asked to stop, it finishes the hooks it is running first. Listening, it marks
 * itself beside its socket, and has the least recently used hosts end past MAX_HOOK_HOSTS.
 */
export async function runHookHost(projectDir: string, env: NodeJS.ProcessEnv, delayMs = 0): Promise<void> {
  let relay: HookRelay | null = null;
  const socket = relaySocketPath(env, projectDir);
  const marker = socket ? hostMarkerPath(socket) : null;
  const idleMs = hostIdleMs(env);
  for (const problem of settingErrors(readSettings(env).problems))
    process.stderr.write(`claude-checkpoint hook host: ${problem.message}\n`); // its log
  try {
    // Started by a session start: the agent's MCP server, if it has one, listens first (the start
    // marker keeps other hooks from starting another host meanwhile).
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    relay = await startHookRelay({
      env,
      cwd: projectDir,
      projectDir,
      queue: new KeyedQueue(),
      host: { idleMs, onServe: () => marker && touch(marker) },
    });
  } finally {
    // Listening or not, this start is over: a later hook may start another host.
    if (socket) removeQuietly(hostStartMarker(socket));
  }
  // Another process took the socket first. A listening host's marker and log are its own (its stderr may
  // be that log): left alone. Where the MCP server listens, there is no marker, and an empty log is this
  // host's, removed as it ends.
  if (!relay || !marker) {
    if (socket && marker && !existsSync(marker)) removeEmptyLog(socket);
    return;
  }
  try {
    touch(marker);
    const stop = () => void relay.close();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    await endLeastRecentlyUsedHosts(marker).catch(() => undefined);
    await relay.ended;
  } finally {
    removeQuietly(marker);
    if (socket) removeEmptyLog(socket);
  }
}

/** Creates the marker, or sets its time to now: the host's last use. */
function touch(marker: string): void {
  try {
    const now = new Date();
    utimesSync(marker, now, now);
  } catch {
    try {
      closeSync(openSync(marker, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o600));
    } catch {
      // only the cap's order depends on it
    }
  }
}

/**
 * Hosts pile up one per project otherwise (12 projects, 12 processes, some 570 MB): past MAX_HOOK_HOSTS,
 * the ones used longest ago step aside, as they would for a server. A marker whose host died is removed.
 */
async function endLeastRecentlyUsedHosts(ownMarker: string): Promise<void> {
  const dir = path.dirname(ownMarker);
  const others = readdirSync(dir)
    .filter((name) => name.endsWith('.host'))
    .map((name) => path.join(dir, name))
    .filter((marker) => marker !== ownMarker)
    .map((marker) => ({ marker, usedMs: lstatSync(marker, { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => a.usedMs - b.usedMs);
  let excess = others.length + 1 - MAX_HOOK_HOSTS;
  for (const { marker } of others) {
    if (excess <= 0) return;
    const socket = marker.replace(/\.host$/, '.sock');
    if (await askToStepAside(socket)) excess--;
    else if (!(await isListening(socket, net))) {
      removeQuietly(marker);
      excess--;
    }
  }
}

/** A log with nothing in it outlives its host for nobody (issue 26); one that holds a failure stays. */
function removeEmptyLog(socket: string): void {
  const log = hostLogPath(socket);
  if (lstatSync(log, { throwIfNoEntry: false })?.size === 0) removeQuietly(log);
}

/**
 * How long a host waits for the next hook before it ends, in ms. A wrong value gives the one below it
 * (a host has nobody to refuse it to; `doctor` says so).
 */
export function hostIdleMs(env: NodeJS.ProcessEnv): number {
  return userSetting(env, 'hookHostIdleSeconds') * 1000;
}
