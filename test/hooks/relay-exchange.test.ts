import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { relayHook } from '../../src/hooks/relay-client.js';
import { exchange, type RelayTransport } from '../../src/hooks/relay-exchange.js';
import { netTransport } from '../../src/hooks/relay-net.js';
import { pipeTransport } from '../../src/hooks/relay-pipe.js';
import { type Exchange, MAX_RELAY_MESSAGE_BYTES } from '../../src/hooks/relay-protocol.js';
import { relaySocketIn } from '../../src/store/relay-socket-path.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// The hook's side of the relay's exchange (relay-exchange.ts) over both transports: node:net
// (relay-net.ts), and the pipe binding the hooks' entry uses in its place (relay-pipe.ts). Each must end
// the same way against the same server, a real one on a real unix socket.

type Send = (socket: string, message: string, onSettled?: (result: Exchange) => void) => Promise<Exchange>;
const over =
  (transport: () => RelayTransport): Send =>
  (socket, message, onSettled) =>
    exchange(transport(), socket, message, onSettled);
/** Node 20 and 22 have the pipe binding's shape; others (Node 24: its stream state differs) use node:net. */
const PIPE_HERE = pipeTransport() !== null;
const TRANSPORTS: Array<[string, Send]> = [
  ['node:net', over(() => netTransport(net))],
  ...(PIPE_HERE
    ? [['the pipe binding', over(() => pipeTransport() as RelayTransport)] as [string, Send]]
    : []),
];

it('has the pipe binding on the Node majors the hooks’ entry was tested on (20 and 22)', () => {
  if (['20', '22'].includes(process.versions.node.split('.')[0] ?? '') && process.platform !== 'win32')
    expect(PIPE_HERE).toBe(true);
});

/** A server on a fresh socket; `serve` is given each connection, with what was read so far. */
async function serverOn(
  serve: (connection: net.Socket, read: () => string) => void,
  socket = path.join(tempDir('relay-exchange-'), 's.sock'),
): Promise<string> {
  const open = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (connection) => {
    open.add(connection);
    let text = '';
    connection.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    connection.on('error', () => undefined);
    serve(connection, () => text);
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  onTestFinished(() => {
    for (const connection of open) connection.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return socket;
}

/** The server's side as the relay has it: READY after the request's line, the answer after GO and the end. */
function answering(answer: string, seen: string[] = []) {
  return (connection: net.Socket, read: () => string) => {
    let ready = false;
    connection.on('data', () => {
      if (!ready && read().includes('\n')) {
        ready = true;
        connection.write('?');
      }
    });
    connection.on('end', () => {
      seen.push(read());
      connection.end(answer);
    });
  };
}

describe.each(TRANSPORTS)('the relay exchange over %s', (_, send) => {
  it('sends the request, says GO once the server is ready, and reads the whole answer', async () => {
    const seen: string[] = [];
    const answer = { handled: true, stdout: 'out', stderr: 'é'.repeat(100_000) };
    const socket = await serverOn(answering(JSON.stringify(answer), seen));
    // Larger than a socket's buffer: the write completes later than it starts.
    const request = JSON.stringify({ stdin: 'x'.repeat(3 * 1024 * 1024) });
    expect(await send(socket, request)).toEqual({ kind: 'answered', reply: answer });
    expect(seen).toEqual([`${request}\n!`]);
  });

  it('reads an answer given at once, without READY (a declined request)', async () => {
    const declined = { handled: false, reason: 'this server is version 0.0.0' };
    const socket = await serverOn((connection, read) =>
      connection.on('data', () => {
        if (read().includes('\n')) connection.end(JSON.stringify(declined));
      }),
    );
    expect(await send(socket, '{}')).toEqual({ kind: 'answered', reply: declined });
  });

  it("takes the answer as whole at its newline, before the server's end (issue 26)", async () => {
    // The server's end waits on its event loop, busy with the work after an early answer: the hook must
    // not wait for it. The line arrives in two parts; the connection is never ended.
    const answer = { handled: true, stdout: 'out', stderr: '' };
    const text = JSON.stringify(answer);
    const socket = await serverOn((connection, read) => {
      let ready = false;
      connection.on('data', () => {
        if (!ready && read().includes('\n')) {
          ready = true;
          connection.write('?');
        } else if (ready && read().endsWith('!')) {
          connection.write(text.slice(0, 10));
          setTimeout(() => connection.write(`${text.slice(10)}\n`), 50);
        }
      });
    });
    expect(await send(socket, '{}')).toEqual({ kind: 'answered', reply: answer });
  });

  it('is unsent with no socket, with a socket nobody listens on, and with a file that is no socket', async () => {
    const dir = tempDir('relay-exchange-');
    expect(await send(path.join(dir, 'none.sock'), '{}')).toEqual({ kind: 'unsent' });
    // What a killed server leaves: its socket file, with nobody listening.
    const dead = path.join(dir, 'dead.sock');
    spawnSync(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(dead)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    expect(lstatSync(dead).isSocket()).toBe(true);
    expect(await send(dead, '{}')).toEqual({ kind: 'unsent' });
    writeFileSync(path.join(dir, 'file.sock'), 'not a socket');
    expect(await send(path.join(dir, 'file.sock'), '{}')).toEqual({ kind: 'unsent' });
  });

  it('is unaccepted when the server takes the connection and never says READY', async () => {
    const socket = await serverOn(() => undefined);
    expect(await send(socket, '{}')).toEqual({ kind: 'unaccepted' });
  });

  it('is unaccepted when the server hangs up before READY', async () => {
    const socket = await serverOn((connection) => connection.on('data', () => connection.destroy()));
    expect(await send(socket, '{}')).toEqual({ kind: 'unaccepted' });
  });

  it('is lost, never declined, when the server declines after READY and GO (the hook must not run it too)', async () => {
    const socket = await serverOn(answering(JSON.stringify({ handled: false, reason: 'changed its mind' })));
    expect(await send(socket, '{}')).toEqual({ kind: 'lost', why: 'it declined after taking the request' });
  });

  it('is lost when the server took the request and hangs up without an answer', async () => {
    const socket = await serverOn(answering(''));
    expect(await send(socket, '{}')).toEqual({
      kind: 'lost',
      why: 'its answer was cut short',
      isServerGone: true,
    });
  });

  it('is lost, named by the error, when the connection fails after READY', async () => {
    // The server says READY and closes: the hook's GO finds the connection gone.
    const socket = await serverOn((connection, read) =>
      connection.on('data', () => {
        if (read().includes('\n')) connection.write('?', () => connection.destroy());
      }),
    );
    expect(await send(socket, '{}')).toEqual({ kind: 'lost', why: 'EPIPE', isServerGone: true });
  });

  it('is lost, without reading on, when the answer is past MAX_RELAY_MESSAGE_BYTES', async () => {
    const socket = await serverOn(answering('x'.repeat(MAX_RELAY_MESSAGE_BYTES + 1)));
    expect(await send(socket, '{}')).toEqual({ kind: 'lost', why: 'its answer was too large' });
  });
});

describe.each(TRANSPORTS)('an answer that is JSON but no reply, over %s', (_, send) => {
  // Regression (issue 26): `null` made the hook's onSettled throw inside the exchange, and its promise
  // never settled.
  it('is lost after READY, unaccepted without it, and the caller is told the same', async () => {
    const told: Exchange[] = [];
    const afterReady = await serverOn(answering('null'));
    expect(await send(afterReady, '{}', (result) => told.push(result))).toEqual({
      kind: 'lost',
      why: 'its answer was not a reply',
    });
    const atOnce = await serverOn((connection, read) =>
      connection.on('data', () => {
        if (read().includes('\n')) connection.end('[1]');
      }),
    );
    expect(await send(atOnce, '{}', (result) => told.push(result))).toEqual({ kind: 'unaccepted' });
    expect(told.map((result) => result.kind)).toEqual(['lost', 'unaccepted']);
  });
});

describe('a hook handed over to something answering null', () => {
  it('says the server did not answer, and never hangs', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const storeBase = tempDir('checkpoint-store-');
    const socket = relaySocketIn(storeBase, root) ?? '';
    mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    await serverOn(answering('null'), socket);
    const outcome = await relayHook({
      argv: ['PostToolUse'],
      stdin: JSON.stringify({ cwd: root }),
      env: {},
      cwd: root,
      cliPath: '',
      storeBase,
      loadNet: () => net,
    });
    expect(outcome).toEqual({
      answered: {
        stdout: '',
        stderr: expect.stringContaining('did not answer (its answer was not a reply)'),
      },
    });
  });
});

describe('the pipe binding of a Node whose stream binding has another shape', () => {
  // A fork (or a later Node) whose writes report their error in streamBaseState[kLastWriteErr] and hand
  // back their request, rather than return the error and flag an asynchronous write: the same functions,
  // other semantics. The stream binding Node 20 to 24 have, with that change made to it.
  it.each([
    ['reports write errors in kLastWriteErr', { kLastWriteErr: 5 }],
    ['has no kLastWriteWasAsync', { kLastWriteWasAsync: undefined }],
  ])('is not used where the stream binding %s (node:net is)', (_, change) => {
    const node = process as unknown as { binding(name: string): Record<string, unknown> };
    const binding = node.binding;
    node.binding = (name) => {
      const real = binding.call(process, name);
      return name === 'stream_wrap' ? { ...real, ...change } : real;
    };
    try {
      expect(pipeTransport()).toBeNull();
    } finally {
      node.binding = binding;
    }
  });
});
