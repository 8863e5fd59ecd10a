import { realpathSync } from 'node:fs';
import path from 'node:path';
import { GENERATOR } from '../version.js';
import { parseHookArgs } from './hook-args.js';
import { MAX_INPUT_BYTES } from './hook-io.js';

// The hook relay: a hook process hands its event to the project's running MCP server over a private
// unix socket, and the server runs it in-process, warm, where the hook would otherwise load and start
// everything again. What the server runs is exactly what the hook would have run: same event, input,
// environment and working directory. The hook runs the event itself when no server answers.

/** Bumped when the request or reply changes shape; a server of another version declines. */
export const RELAY_PROTOCOL = 2;

// The exchange (protocol 2): the hook sends its request and a newline; a server that would run it answers
// READY; the hook, if it still waits, answers GO and ends its side; only then does the server run it and
// send the reply. A hook that hears no READY in time (a stopped or swamped server) hangs up and runs the
// event itself: the server, finding no GO, never runs it, so nothing is recorded twice. Requests the
// server declines (another version, a step-aside) get their reply at once instead of READY.
export const RELAY_READY = '?';
export const RELAY_GO = '!';
/**
 * Every reply is one line of JSON: the hook takes it as whole at its newline, without waiting for the
 * connection's end, which the server's event loop sends only once the work after an early answer
 * (HookContext.answerEarly) lets it run (issue 26). The end still settles a reply without one.
 */
export const RELAY_ANSWER_END = '\n';
/** How long a hook waits for READY before it runs the event itself. */
export const RELAY_ACCEPT_WAIT_MS = 1_000;
/** The hook input's own cap, plus room for the environment. */
export const MAX_RELAY_MESSAGE_BYTES = MAX_INPUT_BYTES + 1024 * 1024;

export interface RelayRequest {
  protocol: number;
  /** The package version: a server of another version declines rather than run other code. */
  version: string;
  argv: string[];
  stdin: string;
  env: Record<string, string>;
  cwd: string;
  /** The plugin's CLI beside the hook, for work the hook hands to a detached process. */
  cliPath: string;
  /**
   * The id a Bash hook's record takes in the command journal (core/journal-id.ts): a hook whose server
   * dies after GO, before it answers, writes the record itself under the same id, which the journal
   * takes once, so the command is neither lost nor recorded twice.
   */
  recordId?: string;
}

export type RelayReply =
  | { handled: true; stdout: string; stderr: string }
  | { handled: false; reason: string };

/** How long a hook waits for the answer after GO: longer than any event's own budget (PreCompact's 25 s). */
export const RELAY_REPLY_WAIT_MS = 30_000;

/** How one exchange ended, for the hook that asked. */
export type Exchange =
  | { kind: 'unsent' }
  /** Nothing took the request in time; it will never be run there (see RELAY_READY). */
  | { kind: 'unaccepted' }
  /** Taken, then not answered; `isServerGone` when the server closed or reset the connection (it died). */
  | { kind: 'lost'; why: string; isServerGone?: boolean }
  | { kind: 'answered'; reply: RelayReply };

/**
 * How an exchange ends once the whole answer is read; `accepted` when the server had said READY. The
 * answer is checked to be a reply: whatever holds the socket is a process, not a promise of our server.
 */
export function endOfAnswer(text: string, accepted: boolean): Exchange {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    // Before READY the server had not run anything; after it, whatever it did is its own.
    return accepted
      ? { kind: 'lost', why: 'its answer was cut short', isServerGone: true }
      : { kind: 'unaccepted' };
  }
  const reply = relayReplyOf(answer);
  // Declined after READY and GO: the hook must not run the event itself (it may have run there), so it
  // is lost, never declined; our server declines only before READY.
  if (reply && !reply.handled && accepted)
    return { kind: 'lost', why: 'it declined after taking the request' };
  if (reply) return { kind: 'answered', reply };
  return accepted ? { kind: 'lost', why: 'its answer was not a reply' } : { kind: 'unaccepted' };
}

function relayReplyOf(answer: unknown): RelayReply | null {
  if (typeof answer !== 'object' || answer === null) return null;
  const { handled, stdout, stderr, reason } = answer as Record<string, unknown>;
  if (handled === true && typeof stdout === 'string' && typeof stderr === 'string')
    return { handled, stdout, stderr };
  if (handled === false) return { handled, reason: typeof reason === 'string' ? reason : '' };
  return null;
}

export const PACKAGE_VERSION = GENERATOR.version;

// The hook host: where no MCP server listens for a project (an agent without our server, or hooks run
// alone), the first hook starts a small detached process that listens in the server's place and runs the
// project's hooks warm, then ends after a while with nothing to do, or when a server asks for the socket.

/** The argument that makes the hooks' entry a hook host: `hook.cjs --hook-host <project folder> [<delay ms>]`. */
export const HOST_ARG = '--hook-host';
/**
 * A host started by a session start waits this long before it listens, and then only if nobody does:
 * the agent may be starting our MCP server at that moment, and the server's relay comes first.
 */
export const HOST_SESSION_START_DELAY_MS = 3_000;

/** What an MCP server sends a hook host listening in its place: the host stops listening, the server starts. */
export interface StepAsideRequest {
  protocol: number;
  stepAside: true;
}

/** The reason a host gives when it steps aside. */
export const STEPPED_ASIDE = 'stepped aside';

export function isStepAsideRequest(request: unknown): request is StepAsideRequest {
  return typeof request === 'object' && request !== null && (request as StepAsideRequest).stepAside === true;
}

/** Beside the socket: a host being started (so that a burst of hooks starts one), and the host's log. */
export function hostStartMarker(socketPath: string): string {
  return `${socketPath}.starting`;
}

/** Beside the socket while a host listens there; its time is the host's last use. */
export function hostMarkerPath(socketPath: string): string {
  return socketPath.replace(/\.sock$/, '.host');
}

/**
 * At most this many hook hosts run at once for a user (each is a Node process of some 50 MB): a host that
 * starts past it has the least recently used ones end (issue 26).
 */
export const MAX_HOOK_HOSTS = 4;

export function hostLogPath(socketPath: string): string {
  return socketPath.replace(/\.sock$/, '.host.log');
}

/**
 * The folder whose server a hook asks: the one named by --root, CHECKPOINT_PROJECT_ROOT or
 * CLAUDE_PROJECT_DIR, else the input's `cwd`, else the process's folder (the order the hooks resolve
 * their project in), with links resolved. `null` when it does not exist.
 */
export function relayProjectDir(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  stdin: string,
  cwd: string,
): string | null {
  const given =
    parseHookArgs(argv).options.root ||
    env.CHECKPOINT_PROJECT_ROOT?.trim() ||
    env.CLAUDE_PROJECT_DIR?.trim() ||
    inputCwd(stdin) ||
    cwd;
  try {
    return realpathSync(path.resolve(cwd, given));
  } catch {
    return null;
  }
}

function inputCwd(stdin: string): string | undefined {
  try {
    const parsed = JSON.parse(stdin) as { cwd?: unknown };
    return typeof parsed.cwd === 'string' && parsed.cwd !== '' ? parsed.cwd : undefined;
  } catch {
    return undefined;
  }
}

/** Where the hooks' entry leaves the relay's outcome for the front (hook-front.ts), so it asks once. */
const RELAYED_BY_ENTRY = Symbol.for('claude-checkpoint.hook-relayed');

/** Leaves the relay's outcome (relay-client.ts's RelayOutcome) for the front and the hooks' bundle. */
export function handOverRelayOutcome(outcome: object): void {
  (globalThis as Record<symbol, unknown>)[RELAYED_BY_ENTRY] = outcome;
}

/** The outcome the entry or front handed over, if either asked. */
export function relayOutcomeHandedOver<T extends object>(): T | undefined {
  return (globalThis as Record<symbol, unknown>)[RELAYED_BY_ENTRY] as T | undefined;
}

/** What the hooks' bundle is told of a server that took its hook and died before answering. */
export function lostRelayOf(outcome: unknown): { why: string; recordId: string } | undefined {
  const lost = (outcome as { lost?: { why: string; recordId: string } } | undefined)?.lost;
  return lost && typeof lost.recordId === 'string' ? lost : undefined;
}
