import { chmodSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { type AppDeps, defaultDeps } from '../app/deps.js';
import { describeError } from '../core/errors.js';
import { JOURNAL_ID_PATTERN } from '../core/journal-id.js';
import { isGitOnPath } from '../git/git-on-path.js';
import type { KeyedQueue } from '../store/lock.js';
import {
  hostDisabled,
  isHomeOrRoot,
  isListening,
  isPrivateFolder,
  relayDisabled,
  relaySocketPath,
} from '../store/relay-socket.js';
import { defaultStoreBase } from '../store/store-base.js';
import { ensureStoreFolders } from '../store/store-folder.js';
import { parseHookArgs } from './hook-args.js';
import { exchange } from './relay-exchange.js';
import { netTransport } from './relay-net.js';
import {
  isStepAsideRequest,
  MAX_RELAY_MESSAGE_BYTES,
  PACKAGE_VERSION,
  RELAY_ACCEPT_WAIT_MS,
  RELAY_ANSWER_END,
  RELAY_GO,
  RELAY_PROTOCOL,
  RELAY_READY,
  type RelayReply,
  type RelayRequest,
  relayProjectDir,
  STEPPED_ASIDE,
  type StepAsideRequest,
} from './relay-protocol.js';
import { executeHook } from './run.js';

export interface HookRelay {
  socketPath: string;
  /**
   * Stops listening and waits for the hooks being run (up to the longest hook budget) and for those told
   * READY to say GO; a request read from then on is declined (the hook runs it itself).
   */
  close(): Promise<void>;
  /** Settles once the relay has stopped listening and finished its hooks, however it came to stop. */
  ended: Promise<void>;
}

/** What makes a relay a hook host (relay-protocol.ts) rather than part of an MCP server. */
export interface HostOptions {
  /** It stops after this long with no hook asked for or running. */
  idleMs: number;
  /** Called each time it runs a hook (the host keeps a last-used time by it). */
  onServe?: () => void;
}

/** PreCompact's budget, the longest a relayed hook can take. */
const DRAIN_MS = 25_000;

/**
 * Listens for the hooks of the project this MCP server was started in (see relay-protocol.ts), and runs
 * each in this process with the hook's own input, environment and folder. `queue` is the server's, so a
 * relayed hook and a tool call on the same project take turns. `null` when there is nothing to listen
 * for: the relay is off, the folder is the home or file-system root, another live server already
 * listens for it, or the store's folder is not private.
 *
 * A server's relay never keeps its process alive. A host's (`host`) does, until it has been idle for
 * `host.idleMs` or a hook of another version asks (that hook then starts a host of its own version).
 */
export async function startHookRelay(options: {
  env: NodeJS.ProcessEnv;
  cwd: string;
  queue: KeyedQueue;
  /** The project to listen for; by default the one the environment and `cwd` name. */
  projectDir?: string;
  host?: HostOptions;
}): Promise<HookRelay | null> {
  const { env, cwd, queue, host } = options;
  if (relayDisabled(env)) return null;
  const projectDir = options.projectDir ?? relayProjectDir([], env, '', cwd);
  if (!projectDir || isHomeOrRoot(projectDir, env)) return null;
  const socketPath = relaySocketPath(env, projectDir);
  if (!socketPath) return null;
  const dir = path.dirname(socketPath);
  try {
    // Security: the store's base and run/ are real folders (a link in either's place is refused).
    ensureStoreFolders([defaultStoreBase(env), dir]);
  } catch {
    return null;
  }
  if (!isPrivateFolder(dir)) return null;
  if (await isListening(socketPath, net)) return null; // another session's server has it
  try {
    unlinkSync(socketPath); // left by a server that died
  } catch {
    // none there
  }

  // Hooks being run, answered or not: a server told to stop finishes them first, so no command or
  // snapshot is cut short.
  const running = new Set<Promise<unknown>>();
  // Hooks told READY whose GO has not come yet: each settles at its GO (its run is in `running` from
  // then) or when the hook hangs up without one. A server told to stop waits for these too: its agent
  // exits right after a command, and a GO read after the process has exited loses the command (issue 26).
  const awaitingGo = new Set<Promise<void>>();
  // A host's idle time counts from its last hook; a connection that asks nothing (a server or `doctor`
  // checking whether anyone listens) does not keep it alive.
  let idleTimer: NodeJS.Timeout | undefined;
  let open = 0;
  let closing: Promise<void> | undefined;
  let hasOwnGit = false;
  const armIdleTimer = () => {
    clearTimeout(idleTimer);
    if (!host || closing !== undefined) return;
    idleTimer = setTimeout(() => {
      if (running.size > 0 || open > 0) armIdleTimer();
      else void relay.close();
    }, host.idleMs);
  };
  const server = net.createServer({ allowHalfOpen: true }, (connection) => {
    open++;
    connection.once('close', () => open--);
    serve(connection, (request) => {
      const decline = (reason: string) => ({ reply: { handled: false as const, reason } });
      if (isStepAsideRequest(request)) {
        if (!host) return decline('an MCP server keeps its socket');
        void relay.close();
        return decline(STEPPED_ASIDE);
      }
      const refusal = refusalOf(request);
      if (refusal) {
        // A host steps aside for another version: the hook runs itself and starts a host of its own.
        if (refusal.foreign && host) void relay.close();
        return decline(refusal.reason);
      }
      // Off means off (issue 26): a hook run with hosts turned off runs itself, and the host that was
      // started before ends, rather than serve the hooks the user asked it not to.
      if (host && hostDisabled(request.env)) {
        void relay.close();
        return decline('hook hosts are turned off');
      }
      // Stopping: the hook runs the event itself rather than wait on a server about to exit.
      if (closing !== undefined) return decline('the server is stopping');
      // git runs with this process's environment: where it cannot, and the hook's can, the hook runs the
      // event itself, before anything ran here (never twice), and a host ends so the next hook starts
      // one that can (issue 26: a host started with PATH=/nothing failed every later hook).
      // Once found, this process's git is taken as there (its PATH does not change): no lookup per hook.
      hasOwnGit ||= isGitOnPath(process.env);
      if (!hasOwnGit && isGitOnPath(request.env)) {
        if (host) void relay.close();
        return decline('git is not on the PATH this server was started with');
      }
      let settle: () => void = () => undefined;
      const waiting = new Promise<void>((resolve) => {
        settle = resolve;
      });
      awaitingGo.add(waiting);
      void waiting.then(() => awaitingGo.delete(waiting));
      return {
        run: (send) => {
          host?.onServe?.();
          const done = runRelayed(request, queue, send);
          running.add(done);
          settle();
          void done
            .finally(() => {
              running.delete(done);
              armIdleTimer();
            })
            .catch(() => undefined);
        },
        drop: settle,
      };
    });
  });
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(socketPath, () => resolve(true));
  });
  if (!listening) return null;
  try {
    chmodSync(socketPath, 0o600); // its folder already keeps others out; this says so twice
  } catch {
    // the folder's mode is what counts
  }
  // A server's relay has nothing to keep its process alive for: the MCP connection decides when the
  // server ends. A host lives for its relay.
  if (!host) server.unref();
  const removeSocket = () => {
    try {
      unlinkSync(socketPath);
    } catch {
      // already gone
    }
  };
  process.once('exit', removeSocket);
  let ended: () => void = () => undefined;
  const relay: HookRelay = {
    socketPath,
    ended: new Promise<void>((resolve) => {
      ended = resolve;
    }),
    close: () => {
      closing ??= (async () => {
        clearTimeout(idleTimer);
        process.removeListener('exit', removeSocket);
        server.close();
        removeSocket();
        // A hook told READY says GO at once; one that has not within the time a hook waits for READY
        // itself is stopped or gone.
        await settledWithin([...awaitingGo], RELAY_ACCEPT_WAIT_MS);
        await settledWithin([...running], DRAIN_MS);
        ended();
      })();
      return closing;
    },
  };
  armIdleTimer();
  return relay;
}

/**
 * The MCP server's relay, started now, or as soon as a hook host listening in its place has stepped
 * aside (asked to, it stops listening). Where another server listens, it looks again every `retryMs`,
 * and takes the socket once that one has ended. `current()` is the relay once it listens; `stop()`
 * ends the looking and the relay.
 */
export function keepHookRelay(
  options: Parameters<typeof startHookRelay>[0],
  retryMs = 30_000,
): { started: Promise<HookRelay | null>; current(): HookRelay | null; stop(): Promise<void> } {
  let relay: HookRelay | null = null;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const attempt = async () => {
    relay = await startHookRelay(options).catch(() => null);
    if (stopped) await relay?.close();
    else if (!relay && !relayDisabled(options.env)) {
      // A hook host listening in our place steps aside when asked: then look again at once.
      const stepped = await askHostToStepAside(options).catch(() => false);
      timer = setTimeout(() => void attempt(), stepped ? 50 : retryMs);
      timer.unref();
    }
    return relay;
  };
  return {
    started: attempt(),
    current: () => relay,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await relay?.close();
    },
  };
}

/** Whether a hook host listened for the project and has stepped aside when asked. */
async function askHostToStepAside(options: Parameters<typeof startHookRelay>[0]): Promise<boolean> {
  const projectDir = options.projectDir ?? relayProjectDir([], options.env, '', options.cwd);
  const socket = projectDir ? relaySocketPath(options.env, projectDir) : null;
  return socket ? askToStepAside(socket) : false;
}

/** Asks whoever listens on `socket` to step aside: true when a host did (a server never does). */
export async function askToStepAside(socket: string): Promise<boolean> {
  if (!isPrivateFolder(path.dirname(socket))) return false;
  const request: StepAsideRequest = { protocol: RELAY_PROTOCOL, stepAside: true };
  const reply = await exchange(netTransport(net), socket, JSON.stringify(request));
  return reply.kind === 'answered' && !reply.reply.handled && reply.reply.reason === STEPPED_ASIDE;
}

/** Settles once all of `promises` have, or after `ms`. */
async function settledWithin(promises: Array<Promise<unknown>>, ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * What the server does with a request: answer it at once without running it, or run it once the hook says
 * GO (`drop` when the hook hangs up without it).
 */
type Acceptance =
  | { reply: RelayReply }
  | { run: (send: (reply: RelayReply) => void) => void; drop: () => void };
type Runnable = Extract<Acceptance, { run: unknown }>;

/** One connection of the exchange described in relay-protocol.ts. */
function serve(
  connection: net.Socket,
  accept: (request: RelayRequest | StepAsideRequest) => Acceptance,
): void {
  const chunks: Buffer[] = [];
  const afterRequest: Buffer[] = [];
  let size = 0;
  let requestRead = false;
  let runOnGo: Runnable | null = null;
  const reply = (answer: RelayReply) => {
    if (!connection.destroyed) connection.end(`${JSON.stringify(answer)}${RELAY_ANSWER_END}`);
  };
  const decide = (text: string): Acceptance => {
    try {
      return accept(JSON.parse(text) as RelayRequest | StepAsideRequest);
    } catch {
      return { reply: { handled: false, reason: 'the request is not JSON' } };
    }
  };
  connection.on('error', () => undefined); // a hook that went away: nothing to answer
  connection.once('close', () => {
    runOnGo?.drop();
    runOnGo = null;
  });
  connection.on('data', (chunk: Buffer) => {
    if (requestRead) {
      afterRequest.push(chunk);
      return;
    }
    size += chunk.length;
    if (size > MAX_RELAY_MESSAGE_BYTES) {
      chunks.length = 0;
      reply({ handled: false, reason: `request over ${MAX_RELAY_MESSAGE_BYTES} bytes` });
      connection.destroy();
      return;
    }
    const newline = chunk.indexOf(0x0a);
    if (newline === -1) {
      chunks.push(chunk);
      return;
    }
    requestRead = true;
    chunks.push(chunk.subarray(0, newline));
    afterRequest.push(chunk.subarray(newline + 1));
    const decision = decide(Buffer.concat(chunks).toString('utf8'));
    if ('reply' in decision) reply(decision.reply);
    else {
      runOnGo = decision;
      connection.write(RELAY_READY);
    }
  });
  connection.on('end', () => {
    if (!requestRead) {
      // A hook of protocol 1 sends its request and ends: it is answered, never run (another version).
      requestRead = true;
      const decision = decide(Buffer.concat(chunks).toString('utf8'));
      if ('run' in decision) decision.drop();
      reply(
        'reply' in decision ? decision.reply : { handled: false, reason: 'no newline after the request' },
      );
      return;
    }
    const accepted = runOnGo;
    runOnGo = null;
    if (!accepted) return;
    // No GO: the hook stopped waiting and runs the event itself, so it must not run here too.
    if (Buffer.concat(afterRequest).toString('utf8') !== RELAY_GO) return accepted.drop();
    accepted.run(reply);
  });
}

/**
 * Runs a relayed hook, and `send`s what the hook is told: its output, or an empty answer as soon as the
 * handler says the agent may go on (HookContext.answerEarly). That one is sent from within answerEarly,
 * before the handler goes on: what follows it (merging a record into a large checkpoint, syncing a
 * folder) is synchronous file work that would otherwise run first (issue 26). Settles when the handler
 * has finished; what it has to say after an early answer goes to this server's stderr, the MCP
 * client's log.
 */
export function runRelayed(
  request: RelayRequest,
  queue: KeyedQueue,
  send: (reply: RelayReply) => void,
  execute: typeof executeHook = executeHook,
): Promise<void> {
  let answered = false;
  let toldEarly = '';
  const answer = (reply: RelayReply) => {
    if (answered) return;
    answered = true;
    send(reply);
  };
  const context = {
    cliPath: request.cliPath,
    recordId: request.recordId,
    answerEarly: (stderr = '') => {
      if (answered) return;
      toldEarly = stderr;
      answer({ handled: true, stdout: '', stderr });
    },
  };
  return Promise.resolve()
    .then(() => {
      const { event, options } = parseHookArgs(request.argv);
      const deps: AppDeps = defaultDeps({ env: request.env, cwd: () => request.cwd, queue });
      return execute(event, options, request.stdin, deps, context);
    })
    .catch((error: unknown) => ({ stdout: '', stderr: `claude-checkpoint hook: ${describeError(error)}\n` }))
    .then((output) => {
      if (!answered) answer({ handled: true, ...output });
      else {
        // What the hook said after its early answer, to this server's stderr (the MCP client's log).
        const after = output.stderr.startsWith(toldEarly)
          ? output.stderr.slice(toldEarly.length)
          : output.stderr;
        if (after) process.stderr.write(after);
      }
    });
}

/** Why a request is not run here, if it is not: another version's (`foreign`), or malformed. */
function refusalOf(request: RelayRequest): { reason: string; foreign?: boolean } | null {
  if (request.protocol !== RELAY_PROTOCOL || request.version !== PACKAGE_VERSION) {
    return { reason: `this server is version ${PACKAGE_VERSION}`, foreign: true };
  }
  return isValidRequest(request) ? null : { reason: 'malformed request' };
}

function isValidRequest(request: RelayRequest): boolean {
  return (
    Array.isArray(request.argv) &&
    request.argv.every((arg) => typeof arg === 'string') &&
    typeof request.stdin === 'string' &&
    typeof request.cwd === 'string' &&
    path.isAbsolute(request.cwd) &&
    typeof request.cliPath === 'string' &&
    // Security: it names a file in the project's journal.
    (request.recordId === undefined ||
      (typeof request.recordId === 'string' && JOURNAL_ID_PATTERN.test(request.recordId))) &&
    typeof request.env === 'object' &&
    request.env !== null &&
    Object.values(request.env).every((value) => typeof value === 'string')
  );
}
