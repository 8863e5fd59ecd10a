import { lstatSync } from 'node:fs';
import path from 'node:path';
import { isPrivateFolder, relayDisabled, relaySocketPath } from '../store/relay-socket.js';
import {
  MAX_RELAY_MESSAGE_BYTES,
  PACKAGE_VERSION,
  RELAY_ACCEPT_WAIT_MS,
  RELAY_GO,
  RELAY_PROTOCOL,
  RELAY_READY,
  type RelayReply,
  type RelayRequest,
  relayProjectDir,
} from './relay-protocol.js';

/** Longer than any event's own budget (PreCompact's 25 s), which the server applies. */
const REPLY_WAIT_MS = 30_000;

export interface RelayAsk {
  argv: string[];
  stdin: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  cliPath: string;
  /**
   * Loads `node:net` only once a socket is there. Through `require`: a dynamic import would start the
   * ES module loader, which costs a hook more than the module itself.
   */
  loadNet: () => typeof import('node:net');
}

export type RelayOutcome =
  | { answered: { stdout: string; stderr: string } }
  /**
   * No server took it; the hook runs itself. `vacant` names the socket and project when nothing listens
   * there (no socket, or a dead one's), where a hook host could (relay-protocol.ts).
   */
  | { answered: null; vacant: { socket: string; projectDir: string } | null };

/**
 * Offers a hook to the project's running MCP server (or hook host). Not answered when no server took it:
 * there is none, it cannot be reached, or it declined before running anything (another version); the
 * hook then runs itself. Once the request is sent, the answer is the server's, even a failure: running
 * the hook here too could record a command twice.
 */
export async function relayHook(ask: RelayAsk): Promise<RelayOutcome> {
  const declined = { answered: null, vacant: null };
  if (relayDisabled(ask.env)) return declined;
  const projectDir = relayProjectDir(ask.argv, ask.env, ask.stdin, ask.cwd);
  const socket = projectDir ? relaySocketPath(ask.env, projectDir) : null;
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
    env: Object.fromEntries(
      Object.entries(ask.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    cwd: ask.cwd,
    cliPath: ask.cliPath,
  };
  const reply = await exchange(ask.loadNet(), socket, JSON.stringify(request));
  if (reply.kind === 'unsent') return vacant;
  // Something holds the socket but did not take the request in time: this hook runs it, and starts no host.
  if (reply.kind === 'unaccepted') return declined;
  if (reply.kind === 'lost') {
    const stderr = `claude-checkpoint hook: the MCP server did not answer (${reply.why}).\n`;
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

export type Exchange =
  | { kind: 'unsent' }
  /** Nothing took the request in time; it will never be run there (see RELAY_READY). */
  | { kind: 'unaccepted' }
  | { kind: 'lost'; why: string }
  | { kind: 'answered'; reply: RelayReply };

/**
 * Sends one message and reads the whole answer (the exchange in relay-protocol.ts): `unsent` when nothing
 * could be sent, `unaccepted` when the server did not take it within RELAY_ACCEPT_WAIT_MS.
 */
export function exchange(
  net: typeof import('node:net'),
  socketPath: string,
  message: string,
): Promise<Exchange> {
  return new Promise((resolve) => {
    let sent = false;
    let accepted = false;
    let settled = false;
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      connection.destroy();
      resolve(result);
    };
    let timer = setTimeout(() => finish({ kind: 'unaccepted' }), RELAY_ACCEPT_WAIT_MS);
    const connection = net.createConnection(socketPath, () => {
      sent = true;
      connection.write(`${message}\n`);
    });
    connection.on('data', (chunk: Buffer) => {
      if (!accepted && chunks.length === 0 && chunk[0] === RELAY_READY.charCodeAt(0)) {
        accepted = true;
        clearTimeout(timer);
        timer = setTimeout(
          () => finish({ kind: 'lost', why: `no answer within ${REPLY_WAIT_MS / 1000} s` }),
          REPLY_WAIT_MS,
        );
        connection.end(RELAY_GO);
        chunk = chunk.subarray(1);
      }
      size += chunk.length;
      if (size > MAX_RELAY_MESSAGE_BYTES) finish({ kind: 'lost', why: 'its answer was too large' });
      else chunks.push(chunk);
    });
    connection.on('end', () => {
      try {
        finish({ kind: 'answered', reply: JSON.parse(Buffer.concat(chunks).toString('utf8')) as RelayReply });
      } catch {
        // Before READY the server had not run anything; after it, whatever it did is its own.
        finish(accepted ? { kind: 'lost', why: 'its answer was cut short' } : { kind: 'unaccepted' });
      }
    });
    connection.on('error', (error: NodeJS.ErrnoException) => {
      if (!sent) finish({ kind: 'unsent' });
      else finish(accepted ? { kind: 'lost', why: error.code ?? error.message } : { kind: 'unaccepted' });
    });
  });
}
