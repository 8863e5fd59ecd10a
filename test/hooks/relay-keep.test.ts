import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fnv1a64, isListening } from '../../src/hooks/relay-protocol.js';
import { keepHookRelay, startHookRelay } from '../../src/hooks/relay-server.js';
import { KeyedQueue } from '../../src/store/lock.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// In-process, over a real unix socket: the MCP server's relay and a hook host for the same project.

describe("the MCP server's relay beside a hook host", () => {
  it('waits while a host holds the socket, and takes it once the host has ended', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: process.env.HOME ?? '' };
    const socket = path.join(env.CHECKPOINT_STORE_DIR, 'run', `${fnv1a64(root)}.sock`);
    const host = await startHookRelay({ env, cwd: root, queue: new KeyedQueue(), host: { idleMs: 300 } });
    expect(host?.socketPath).toBe(socket);

    const server = keepHookRelay({ env, cwd: root, queue: new KeyedQueue() }, 50);
    expect(await server.started).toBeNull();
    await host?.ended; // idle for 300 ms: gone, and its socket with it
    for (let waited = 0; server.current() === null && waited < 5_000; waited += 25)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(server.current()?.socketPath).toBe(socket);
    expect(await isListening(socket, net)).toBe(true);

    await server.stop();
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
