import { existsSync } from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { keepHookRelay, startHookRelay } from '../../src/hooks/relay-server.js';
import { KeyedQueue } from '../../src/store/lock.js';
import { isListening } from '../../src/store/relay-socket.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// In-process, over a real unix socket: the MCP server's relay and a hook host for the same project.

describe("the MCP server's relay beside a hook host", () => {
  it('has a host that listens in its place step aside, and takes the socket at once', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: process.env.HOME ?? '' };
    const host = await startHookRelay({ env, cwd: root, queue: new KeyedQueue(), host: { idleMs: 60_000 } });
    expect(host).not.toBeNull();
    // Retrying only every minute: taking over within the test means the host was asked, not outwaited.
    const server = keepHookRelay({ env, cwd: root, queue: new KeyedQueue() }, 60_000);
    expect(await server.started).toBeNull();
    await host?.ended;
    for (let waited = 0; server.current() === null && waited < 5_000; waited += 25)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(server.current()?.socketPath).toBe(host?.socketPath);
    await server.stop();
  });

  it('a server relay does not step aside for another server', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: process.env.HOME ?? '' };
    const first = keepHookRelay({ env, cwd: root, queue: new KeyedQueue() }, 60_000);
    expect(await first.started).not.toBeNull();
    const second = keepHookRelay({ env, cwd: root, queue: new KeyedQueue() }, 60_000);
    expect(await second.started).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(second.current()).toBeNull();
    expect(first.current()).not.toBeNull();
    await Promise.all([first.stop(), second.stop()]);
  });

  it('a host idle for its time ends, however often something checks whether it listens', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: process.env.HOME ?? '' };
    const host = await startHookRelay({ env, cwd: root, queue: new KeyedQueue(), host: { idleMs: 300 } });
    const socket = host?.socketPath ?? '';
    let ended = false;
    void host?.ended.then(() => {
      ended = true;
    });
    // Checked every 50 ms, as doctor or a server does: connections that ask nothing.
    for (let waited = 0; !ended && waited < 5_000; waited += 50) {
      await isListening(socket, net);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(ended).toBe(true);
    expect(existsSync(socket)).toBe(false);
  });

  it('a server relay never ends by itself, only when closed', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: process.env.HOME ?? '' };
    const server = await startHookRelay({ env, cwd: root, queue: new KeyedQueue() });
    const ended = await Promise.race([
      server?.ended.then(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), 500)),
    ]);
    expect(ended).toBe(false);
    await server?.close();
    await server?.ended;
  });
});
