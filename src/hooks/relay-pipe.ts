import { getSystemErrorName } from 'node:util';
import { nodeBinding } from '../git/node-binding.js';
import type { RelayConnectionEvents, RelayTransport } from './relay-exchange.js';

// The relay's exchange (relay-exchange.ts) on libuv's pipe handle itself, the binding node:net is built
// on: loading node:net loads Node's whole stream stack (some thirty modules, 3 to 5 ms of a hook's
// start) for one connection that sends a line and reads a short answer. Used where the relay is (unix
// sockets: Linux and macOS; the relay is off on Windows), and only when this Node's bindings have the
// shape used here; otherwise the caller uses node:net (relay-net.ts). Whatever goes wrong stays safe:
// before the hook's GO the server runs nothing (the hook then runs the event itself), and after it the
// answer is the server's (relay-client.ts).

/** libuv's end of stream, the same on every platform. */
const UV_EOF = -4095;

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

interface PipeBindings {
  Pipe: new (type: number) => PipeHandle;
  PipeConnectWrap: new () => Request;
  WriteWrap: new () => Request;
  ShutdownWrap: new () => Request;
  SOCKET: number;
  /** Where the handle puts a read's length (or error) and its offset in the buffer it passes. */
  state: Int32Array;
  kReadBytesOrError: number;
  kArrayBufferOffset: number;
}

/**
 * A connection over this Node's pipe binding, with the same events as node:net's (relay-net.ts); `null`
 * when the binding is not there as expected.
 */
export function pipeTransport(): RelayTransport | null {
  const bindings = pipeBindings();
  if (!bindings) return null;
  const { Pipe, PipeConnectWrap, WriteWrap, ShutdownWrap, SOCKET, state } = bindings;
  const handle = new Pipe(SOCKET);
  let on: RelayConnectionEvents | undefined;
  let isClosed = false;
  // Requests still pending at close come back cancelled: nothing is told after the exchange destroyed it.
  const fail = (status: number) => {
    if (!isClosed) on?.error(errorName(status));
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

/** As node:net names it (ECONNRESET). */
function errorName(status: number): string {
  try {
    return getSystemErrorName(status);
  } catch {
    return `error ${status}`;
  }
}

/** Node's own pipe and stream bindings, if they have the shape and semantics used here (Node 20 to 24 do). */
function pipeBindings(): PipeBindings | null {
  try {
    const pipe = nodeBinding<Record<string, unknown>>('pipe_wrap');
    const stream = nodeBinding<Record<string, unknown>>('stream_wrap');
    const SOCKET = (pipe.constants as Record<string, unknown> | undefined)?.SOCKET;
    const { Pipe, PipeConnectWrap } = pipe;
    const { WriteWrap, ShutdownWrap, streamBaseState, kReadBytesOrError, kArrayBufferOffset } = stream;
    // Node 20's lib/internal/stream_base_commons.js: a write returns its error and flags in
    // streamBaseState[kLastWriteWasAsync] whether its request completes later (then through oncomplete).
    // A binding whose writes hand back a request and leave their error in kLastWriteErr has the same
    // functions with other semantics: writes would fail unseen.
    const isWriteAsInNode20 = typeof stream.kLastWriteWasAsync === 'number' && !('kLastWriteErr' in stream);
    const isPipe =
      typeof Pipe === 'function' &&
      ['connect', 'readStart', 'writeUtf8String', 'shutdown', 'close'].every(
        (name) => typeof (Pipe.prototype as Record<string, unknown>)[name] === 'function',
      );
    if (
      !isPipe ||
      !isWriteAsInNode20 ||
      typeof PipeConnectWrap !== 'function' ||
      typeof WriteWrap !== 'function' ||
      typeof ShutdownWrap !== 'function' ||
      typeof SOCKET !== 'number' ||
      !(streamBaseState instanceof Int32Array) ||
      typeof kReadBytesOrError !== 'number' ||
      typeof kArrayBufferOffset !== 'number'
    )
      return null;
    return {
      Pipe: Pipe as PipeBindings['Pipe'],
      PipeConnectWrap: PipeConnectWrap as PipeBindings['PipeConnectWrap'],
      WriteWrap: WriteWrap as PipeBindings['WriteWrap'],
      ShutdownWrap: ShutdownWrap as PipeBindings['ShutdownWrap'],
      SOCKET,
      state: streamBaseState,
      kReadBytesOrError,
      kArrayBufferOffset,
    };
  } catch {
    return null;
  }
}
