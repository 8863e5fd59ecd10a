import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { askClientRoots } from '../../src/mcp/client-roots.js';

afterEach(() => {
  vi.useRealTimers();
});

// Review: a client that offers roots but never sends notifications/initialized made every tool call wait
// the whole 5 s again. A real server and client over a real in-memory transport; the client's
// `notifications/initialized` is held back, as such a client does; only the clock is V8's fake one.
describe('askClientRoots with a client that never says it is initialized', () => {
  it('waits once, then answers at once with the fallback, until it says it is initialized', async () => {
    const server = new McpServer({ name: 'roots-test', version: '1.0.0' });
    const roots = askClientRoots(server, () => '/var/p');
    const client = new Client(
      { name: 'c', version: '1.0.0' },
      { capabilities: { roots: { listChanged: false } } },
    );
    client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///var/p' }] }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const send = clientSide.send.bind(clientSide);
    clientSide.send = async (message, options) => {
      if ('method' in message && message.method === 'notifications/initialized') return;
      return send(message, options);
    };
    const sendInitialized = () => send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    let firstDone = false;
    const first = roots().finally(() => {
      firstDone = true;
    });
    await vi.advanceTimersByTimeAsync(4999);
    expect(firstDone).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await first).toEqual([]);
    let secondDone = false;
    const second = roots().finally(() => {
      secondDone = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(secondDone).toBe(true);
    expect(await second).toEqual([]);
    vi.useRealTimers();
    // Review: an `initialized` that comes late, after the wait, is not raced by the remembered wait.
    await sendInitialized();
    expect(await roots()).toEqual(['file:///var/p']);
    await client.close();
    await server.close();
  });
});
