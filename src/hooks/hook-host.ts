import { lstatSync } from 'node:fs';
import { removeQuietly } from '../store/fs-seam.js';
import { KeyedQueue } from '../store/lock.js';
import { hostIdle, hostLogPath, hostStartMarker, relaySocketPath } from './relay-protocol.js';
import { type HookRelay, startHookRelay } from './relay-server.js';

/**
 * A hook host's whole life (see relay-protocol.ts): after `delayMs`, listens for `projectDir`'s hooks in
 * an MCP server's place until it has been idle for a while, then ends. Ends at once when something else
 * listens there already. Asked to stop, it finishes the hooks it is running first.
 */
export async function runHookHost(projectDir: string, env: NodeJS.ProcessEnv, delayMs = 0): Promise<void> {
  let relay: HookRelay | null = null;
  const idle = hostIdle(env);
  if (idle.problem) process.stderr.write(`claude-checkpoint hook host: ${idle.problem}\n`); // its log
  try {
    // Started by a session start: the agent's MCP server, if it has one, listens first (the start
    // marker keeps other hooks from starting another host meanwhile).
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    relay = await startHookRelay({
      env,
      cwd: projectDir,
      projectDir,
      queue: new KeyedQueue(),
      host: { idleMs: idle.ms },
    });
  } finally {
    // Listening or not, this start is over: a later hook may start another host.
    const socket = relaySocketPath(env, projectDir);
    if (socket) removeQuietly(hostStartMarker(socket));
  }
  try {
    if (!relay) return;
    const stop = () => void relay.close();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    await relay.ended;
  } finally {
    removeEmptyLog(projectDir, env);
  }
}

/** A log with nothing in it outlives its host for nobody (issue 26); one that holds a failure stays. */
function removeEmptyLog(projectDir: string, env: NodeJS.ProcessEnv): void {
  const socket = relaySocketPath(env, projectDir);
  if (!socket) return;
  const log = hostLogPath(socket);
  if (lstatSync(log, { throwIfNoEntry: false })?.size === 0) removeQuietly(log);
}
