import { streamBindings, UV_EOF, uvErrorName } from '../git/stream-bindings.js';
import type { RelayConnectionEvents, RelayTransport } from './relay-exchange.js';

// The relay's exchange (relay-exchange.ts) on libuv's pipe handle itself, the binding node:net is built
// on: loading node:net loads Node's whole stream stack (some thirty modules, 3 to 5 ms of a hook's
// start) for one connection that sends a line and reads a short answer. Used where the relay is (unix
// sockets: Linux and macOS; the relay is off on Windows), and only when this Node's bindings have the
// shape used here; otherwise the caller uses node:net (relay-net.ts). Whatever goes wrong stays safe:
// before the hook's GO the server runs nothing (the hook then runs the event itself), and after it the
// answer is the server's (relay-client.ts).

interface Request {
  oncomplete?: (status: number) => void;
  handle?: PipeHandle;
  async?: boolean;
}

interface PipeHandle {
  connect(request: Request, address: string): number;
  readStart(): number;
  writeUtf8String(request: Request, text: string): number;
  shutdown(request: Request): number;
  close(callback?: () => void): void;
  onread: (buffer: ArrayBuffer | undefined) => void;
}

/** What the relay calls on the pipe handle. */
const PIPE_METHODS = ['connect', 'readStart', 'writeUtf8String', 'shutdown', 'close'];

/**
 * A connection over this Node's pipe binding, with the same events as node:net's (relay-net.ts); `null`
 * when the binding is not there as expected.
 */
export function pipeTransport(): RelayTransport | null {
  const bindings = streamBindings<PipeHandle, Request>(PIPE_METHODS);
  if (!bindings) return null;
  const { Pipe, PipeConnectWrap, WriteWrap, ShutdownWrap, SOCKET, state } = bindings;
  const handle = new Pipe(SOCKET);
  let on: RelayConnectionEvents | undefined;
  let isClosed = false;
  // Requests still pending at close come back cancelled: nothing is told after the exchange destroyed it.
  const fail = (status: number) => {
    if (!isClosed) on?.error(uvErrorName(status));
  };
  return {
    connect(socketPath, events) {
      on = events;
      handle.onread = (buffer) => {
        const length = state[bindings.kReadBytesOrError] ?? 0;
        if (length === 0) return;
        if (length < 0 || !buffer) return length === UV_EOF ? events.end() : fail(length);
        events.data(Buffer.from(new Uint8Array(buffer, state[bindings.kArrayBufferOffset] ?? 0, length)));
      };
      const connecting = new PipeConnectWrap();
      connecting.oncomplete = (status) => {
        if (isClosed) return;
        if (status < 0) return fail(status);
        const reading = handle.readStart();
        // As node:net: connected, then a failed read is an error of the connection.
        events.connect();
        if (reading < 0) fail(reading);
      };
      const status = handle.connect(connecting, socketPath);
      if (status < 0) fail(status);
    },
    write(text) {
      if (isClosed) return;
      const request = new WriteWrap();
      request.handle = handle;
      request.async = false;
      request.oncomplete = (status) => {
        if (status < 0) fail(status);
      };
      const status = handle.writeUtf8String(request, text);
      if (status < 0) fail(status);
    },
    end() {
      if (isClosed) return;
      const request = new ShutdownWrap();
      request.handle = handle;
      request.oncomplete = (status) => {
        if (status < 0) fail(status);
      };
      const status = handle.shutdown(request);
      if (status < 0) fail(status);
    },
    destroy() {
      if (isClosed) return;
      isClosed = true;
      handle.onread = ignoreRead; // the binding takes only a function here
      handle.close();
    },
  };
}

function ignoreRead(): void {}
