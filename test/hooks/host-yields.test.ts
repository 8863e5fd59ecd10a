import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHookHost } from '../../src/hooks/hook-host.js';
import { hostLogPath, hostMarkerPath } from '../../src/hooks/relay-protocol.js';
import { askToStepAside, startHookRelay } from '../../src/hooks/relay-server.js';
import { KeyedQueue } from '../../src/store/lock.js';
import { relaySocketPath } from '../../src/store/relay-socket.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// Two hosts started for one project at once (a session start's, which waits 3 s before it listens, and
// a Bash hook's right after): the second listens, the first finds the socket taken and ends. The marker
// and the log are the listening host's: its stderr is that log (found in a trial on Node 20, 22 and 24,
// 2026-12-07: the first host removed both, and the second wrote its reports to a deleted file).

describe('a hook host that finds another listening', () => {
  it('removes its own empty log where the MCP server listens (no host marker)', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const server = await startHookRelay({ env, cwd: root, projectDir: root, queue: new KeyedQueue() });
    if (!server) throw new Error('the relay did not start');
    const socket = relaySocketPath(env, root) as string;
    writeFileSync(hostLogPath(socket), '', { mode: 0o600 });
    await runHookHost(root, env);
    expect(existsSync(hostLogPath(socket))).toBe(false);
    await server.close();
  });

  it("leaves the listening host's marker and log alone", async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = {
      CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
      // Idle for a minute: it ends when asked to step aside, below, not by the clock.
      CHECKPOINT_HOOK_HOST_IDLE_SECONDS: '60',
    };
    const socket = relaySocketPath(env, root) as string;
    mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    // What the launch gives the listening host: its log, empty until it has something to report.
    writeFileSync(hostLogPath(socket), '', { mode: 0o600 });
    const listening = runHookHost(root, env);
    for (let waited = 0; !existsSync(hostMarkerPath(socket)) && waited < 10_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(existsSync(hostMarkerPath(socket))).toBe(true);

    await runHookHost(root, env); // the late one: the socket is taken
    expect(existsSync(hostMarkerPath(socket))).toBe(true);
    expect(existsSync(hostLogPath(socket))).toBe(true);

    // The listening host, once idle, ends and cleans up after itself.
    // Asked to step aside (as for an MCP server), the listening host ends and cleans up after itself.
    expect(await askToStepAside(socket)).toBe(true);
    await listening;
    expect(existsSync(hostMarkerPath(socket))).toBe(false);
    expect(existsSync(hostLogPath(socket))).toBe(false);
  });
});
