import { getSystemErrorName } from 'node:util';
import { nodeBinding } from './node-binding.js';

// Node's pipe and stream bindings, the ones node:net and child_process are built on, as the two fast
// paths that skip those modules use them: the hooks' relay socket (hooks/relay-pipe.ts) and git in the
// CLI's processes (spawn-direct.ts). Each caller says which methods of the pipe handle it needs.

/** libuv's end of stream, the same on every platform. */
export const UV_EOF = -4095;

/** The pipe and stream bindings; `Pipe` and the requests are typed by the caller. */
export interface StreamBindings<PipeHandle, Request> {
  Pipe: new (type: number) => PipeHandle;
  PipeConnectWrap: new () => Request;
  WriteWrap: new () => Request;
  ShutdownWrap: new () => Request;
  /** The pipe type of a unix socket (or a child's stdio). */
  SOCKET: number;
  /** Where a handle puts a read's length (or error) and its offset in the buffer it passes. */
  state: Int32Array;
  kReadBytesOrError: number;
  kArrayBufferOffset: number;
}

/**
 * This Node's pipe and stream bindings, if they have the shape and semantics used here, with `methods`
 * on the pipe handle; `null` otherwise (the caller then uses the public module).
 */
export function streamBindings<PipeHandle, Request>(
  methods: readonly string[],
): StreamBindings<PipeHandle, Request> | null {
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
      methods.every((name) => typeof (Pipe.prototype as Record<string, unknown>)[name] === 'function');
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
      Pipe: Pipe as StreamBindings<PipeHandle, Request>['Pipe'],
      PipeConnectWrap: PipeConnectWrap as StreamBindings<PipeHandle, Request>['PipeConnectWrap'],
      WriteWrap: WriteWrap as StreamBindings<PipeHandle, Request>['WriteWrap'],
      ShutdownWrap: ShutdownWrap as StreamBindings<PipeHandle, Request>['ShutdownWrap'],
      SOCKET,
      state: streamBaseState,
      kReadBytesOrError,
      kArrayBufferOffset,
    };
  } catch {
    return null;
  }
}

/** A libuv status as Node's public modules name it (ECONNRESET, ENOENT). */
export function uvErrorName(status: number): string {
  try {
    return getSystemErrorName(status);
  } catch {
    return `error ${status}`;
  }
}
