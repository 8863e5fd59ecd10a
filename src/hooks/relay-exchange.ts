import {
  type Exchange,
  endOfAnswer,
  MAX_RELAY_MESSAGE_BYTES,
  RELAY_ACCEPT_WAIT_MS,
  RELAY_ANSWER_END,
  RELAY_GO,
  RELAY_READY,
  RELAY_REPLY_WAIT_MS,
} from './relay-protocol.js';

const ANSWER_END = RELAY_ANSWER_END.charCodeAt(0);

/** What a transport tells the exchange about its connection; nothing after the exchange destroyed it. */
export interface RelayConnectionEvents {
  /** Connected and reading: the request can be sent. */
  connect(): void;
  data(chunk: Buffer): void;
  /** The server ended its side: the answer is whole, if its newline had not already said so. */
  end(): void;
  /** Connecting, reading or writing failed; `why` as node:net names it (ECONNRESET). */
  error(why: string): void;
}

/**
 * One connection to a unix socket, as the relay's exchange uses it: node:net's socket (relay-net.ts) or
 * libuv's pipe handle under it (relay-pipe.ts). Writes and the end are queued in order; their failures
 * come back as `error`.
 */
export interface RelayTransport {
  connect(socketPath: string, on: RelayConnectionEvents): void;
  write(text: string): void;
  /** Ends the hook's side once what was written is sent. */
  end(): void;
  destroy(): void;
}

/**
 * Sends one message and reads the whole answer (the exchange in relay-protocol.ts): `unsent` when nothing
 * could be sent, `unaccepted` when the server did not take it within RELAY_ACCEPT_WAIT_MS. `onSettled`
 * is told the outcome before the connection is closed.
 */
export function exchange(
  transport: RelayTransport,
  socketPath: string,
  message: string,
  onSettled?: (result: Exchange) => void,
): Promise<Exchange> {
  return new Promise((resolve) => {
    let isConnected = false;
    let isAccepted = false;
    let isSettled = false;
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Exchange) => {
      if (isSettled) return;
      isSettled = true;
      clearTimeout(timer);
      onSettled?.(result);
      transport.destroy();
      resolve(result);
    };
    const answered = () => finish(endOfAnswer(Buffer.concat(chunks).toString('utf8'), isAccepted));
    let timer = setTimeout(() => finish({ kind: 'unaccepted' }), RELAY_ACCEPT_WAIT_MS);
    transport.connect(socketPath, {
      connect: () => {
        if (isSettled) return;
        isConnected = true;
        transport.write(`${message}\n`);
      },
      data: (chunk) => {
        if (isSettled) return;
        if (!isAccepted && chunks.length === 0 && chunk[0] === RELAY_READY.charCodeAt(0)) {
          isAccepted = true;
          clearTimeout(timer);
          timer = setTimeout(
            () => finish({ kind: 'lost', why: `no answer within ${RELAY_REPLY_WAIT_MS / 1000} s` }),
            RELAY_REPLY_WAIT_MS,
          );
          transport.write(RELAY_GO);
          // A GO that failed at once (EPIPE) settled the exchange and destroyed the connection.
          if (isSettled) return;
          transport.end();
          chunk = chunk.subarray(1);
        }
        size += chunk.length;
        if (size > MAX_RELAY_MESSAGE_BYTES) finish({ kind: 'lost', why: 'its answer was too large' });
        else {
          chunks.push(chunk);
          // The answer is one line: whole at its newline, before the server's end (RELAY_ANSWER_END).
          if (chunk.includes(ANSWER_END)) answered();
        }
      },
      end: () => answered(),
      // Before the connection nothing was asked; after it, see RELAY_READY.
      error: (why) => {
        if (!isConnected) finish({ kind: 'unsent' });
        else finish(isAccepted ? { kind: 'lost', why, isServerGone: true } : { kind: 'unaccepted' });
      },
    });
  });
}
