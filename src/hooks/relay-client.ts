import { lstatSync } from 'node:fs';
import path from 'node:path';
import { journalId } from '../core/journal-id.js';
import { isPrivateFolder, relaySocketIn } from '../store/relay-socket-path.js';
import { uniqueSuffix } from '../store/temp-name.js';
import { exchange } from './relay-exchange.js';
import { netTransport } from './relay-net.js';
import { pipeTransport } from './relay-pipe.js';
import {
  type Exchange,
  PACKAGE_VERSION,
  RELAY_PROTOCOL,
  type RelayRequest,
  relayProjectDir,
} from './relay-protocol.js';

export interface RelayAsk {
  argv: string[];
  stdin: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  cliPath: string;
  /** The store's folder, where the socket is; `null` with the relay off (relayDisabled). */
  storeBase: string | null;
  /**
   * Told the server's answer the moment it is whole, before the connection is closed: the hooks' entry
   * exits there, since closing a socket has Node set up `process.stderr`, over a millisecond.
   */
  onAnswered?: (answer: { stdout: string; stderr: string }) => void;
  /**
   * Loads `node:net` only once a socket is there, and only where the pipe's own binding cannot be used
   * (relay-pipe.ts). Through `require`: a dynamic import would start the
   * ES module loader, which costs a hook more than the module itself.
   */
  loadNet: () => typeof import('node:net');
}

export type { Exchange } from './relay-protocol.js';
export { handOverRelayOutcome, relayOutcomeHandedOver } from './relay-protocol.js';

export type RelayOutcome =
  | { answered: { stdout: string; stderr: string } }
  /**
   * No server took it; the hook runs itself. `vacant` names the socket and project when nothing listens
   * there (no socket, or a dead one's), where a hook host could (relay-protocol.ts). `lost` when the
   * server took it and died before answering: the hook writes only the command's record, under the
   * id it gave the server (a Bash hook; any other says so), and runs nothing else.
   */
  | {
      answered: null;
      vacant: { socket: string; projectDir: string } | null;
      lost?: { why: string; recordId: string };
    };

/**
 * Offers a hook to the project's running MCP server (or hook host). Not answered when no server took it:
 * there is none, it cannot be reached, or it declined before running anything (another version); the
 * hook then runs itself. Once the request is sent, the answer is the server's, even a failure: running
 * the hook here too could record a command twice. Only a server that died before answering (`lost`)
 * leaves the hook one thing to do: write its command's record under the id the request named.
 */
export async function relayHook(ask: RelayAsk): Promise<RelayOutcome> {
  const declined = { answered: null, vacant: null };
  if (ask.storeBase === null) return declined;
  const projectDir = relayProjectDir(ask.argv, ask.env, ask.stdin, ask.cwd);
  const socket = projectDir ? relaySocketIn(ask.storeBase, projectDir) : null;
  if (!projectDir || !socket) return declined;
  const vacant = { answered: null, vacant: { socket, projectDir } };
  // No socket, no `net`: a hook without a server pays one lstat for asking.
  if (!isSocket(socket)) return vacant;
  if (!isPrivateFolder(path.dirname(socket))) return declined;
  const request: RelayRequest = {
    protocol: RELAY_PROTOCOL,
    version: PACKAGE_VERSION,
    argv: ask.argv,
    stdin: ask.stdin,
    // As it is: JSON leaves out a variable set to undefined, and copying the environment first cost a
    // hook 0.4M instructions.
    env: ask.env as Record<string, string>,
    cwd: ask.cwd,
    cliPath: ask.cliPath,
    recordId: journalId(new Date(), uniqueSuffix()),
  };
  const message = JSON.stringify(request);
  const onSettled = (settled: Exchange) => {
    if (settled.kind === 'answered' && settled.reply.handled) ask.onAnswered?.(settled.reply);
  };
  const reply = await exchange(pipeTransport() ?? netTransport(ask.loadNet()), socket, message, onSettled);
  if (reply.kind === 'unsent') return vacant;
  // Something holds the socket but did not take the request in time: this hook runs it, and starts no host.
  if (reply.kind === 'unaccepted') return declined;
  if (reply.kind === 'lost' && reply.isServerGone && request.recordId)
    return { answered: null, vacant: null, lost: { why: reply.why, recordId: request.recordId } };
  if (reply.kind === 'lost') {
    // Alive, or not telling: whatever it did with the event stands, and it may not have finished it.
    const stderr = `claude-checkpoint hook: the MCP server did not answer (${reply.why}): it may not have finished this hook (a command may not have been recorded).\n`;
    return { answered: { stdout: '', stderr } };
  }
  return reply.reply.handled
    ? { answered: { stdout: reply.reply.stdout, stderr: reply.reply.stderr } }
    : declined;
}

function isSocket(file: string): boolean {
  try {
    return lstatSync(file).isSocket();
  } catch {
    return false;
  }
}
