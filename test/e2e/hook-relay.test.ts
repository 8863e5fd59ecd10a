import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { serializeJournalRecord } from '../../src/core/journal.js';
import { recordedCommands as recordedCommandsOf } from '../../src/core/merge.js';
import { pipeTransport } from '../../src/hooks/relay-pipe.js';
import type { RelayRequest } from '../../src/hooks/relay-protocol.js';
import { CheckpointStore } from '../../src/store/checkpoint-store.js';
import { fnv1a64 } from '../../src/store/relay-socket.js';
import { runCli, runNodeScript } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';
import { builtinsTrace } from '../helpers/loads.js';
import {
  askRelay,
  bashHook,
  bashHooksAtOnce,
  bashThroughRelay,
  commandsInFile,
  gitFailingAt,
  mergeJournal,
  otherVersionRequest,
  promptThroughRelay,
  recordedCommands,
  relayOnlyHook,
  startRelayServer,
} from '../helpers/relay.js';

// The hook relay through real processes: the built MCP server over stdio, the plugin's hook.cjs, and a
// real unix socket. A copy of hook.cjs with no bundle beside it can only work through the server, which
// is how these tests tell a relayed hook from one that ran itself.

async function project() {
  const root = createRepo({ committed: { 'a.ts': 'a' } });
  const store = tempDir('checkpoint-store-');
  const env = { CHECKPOINT_STORE_DIR: store };
  await runCli(['save', '--goal', 'Relay'], { cwd: root, env });
  return { root, store, env, socket: path.join(store, 'run', `${fnv1a64(root)}.sock`) };
}

/** bashThroughRelay, with the Node modules the hook loaded (after `preload`, if given). */
async function bashThroughRelayTraced(
  root: string,
  env: Record<string, string>,
  command: string,
  preload?: string,
) {
  const trace = builtinsTrace();
  const requires = [preload, trace.preload].filter(Boolean).map((file) => `--require=${file}`);
  const result = await bashThroughRelay(root, { ...env, NODE_OPTIONS: requires.join(' ') }, command);
  return { result, builtins: trace.builtins() };
}

describe('hooks handed to the running MCP server', () => {
  it('runs every event in the server: a command recorded, a snapshot taken, the brief returned', async () => {
    const { root, env, socket } = await project();
    await startRelayServer(root, env);
    expect(existsSync(socket)).toBe(true);
    const hook = relayOnlyHook();

    const bash = await bashThroughRelay(root, env, 'npm test');
    expect(bash).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['npm test']);

    writeTree(root, { 'b.ts': 'new file' });
    const prompt = await promptThroughRelay(root, env, 'add b');
    expect(prompt).toMatchObject({ code: 0, stderr: '' });
    // The server answers once the snapshot's content is taken and writes the rest of it after: an edit
    // made as soon as the hook is done is not in it, and a listing waits for it.
    writeTree(root, { 'b.ts': 'edited after the prompt' });
    const listed = await runCli(['list'], { cwd: root, env });
    expect(listed.stdout).toContain('add b');
    await runCli(['restore', 'latest', 'b.ts', '--yes'], { cwd: root, env });
    expect(readFileSync(path.join(root, 'b.ts'), 'utf8')).toBe('new file');

    const start = await runNodeScript(hook, ['SessionStart'], {
      cwd: root,
      env,
      input: JSON.stringify({ cwd: root, source: 'clear' }),
    });
    expect(JSON.parse(start.stdout).hookSpecificOutput.additionalContext).toContain('## Goal\nRelay');
    // The hook never loaded a bundle: it left no code cache behind (the CLI's own, from the set-up, aside).
    const cacheDir = path.join(env.CHECKPOINT_STORE_DIR, 'cache');
    const caches = existsSync(cacheDir) ? readdirSync(cacheDir) : [];
    expect(caches.filter((name) => name.startsWith('hook-'))).toEqual([]);
  });

  it('answers a prompt once its content is taken; a failure after that goes to its own log', async () => {
    const { root, env } = await project();
    // git as it is, except that writing a tree fails: the step after the content is taken.
    const fakeBin = gitFailingAt('write-tree');
    const { log } = await startRelayServer(root, { ...env, PATH: `${fakeBin}:${process.env.PATH ?? ''}` });
    writeTree(root, { 'a.ts': 'changed' });
    const prompt = await promptThroughRelay(root, env, 'fails late');
    // The hook was answered, with nothing to say, before the failure.
    expect(prompt).toMatchObject({ code: 0, stdout: '', stderr: '' });
    for (let waited = 0; !log().includes('UserPromptSubmit') && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(log()).toMatch(/claude-checkpoint hook UserPromptSubmit: git write-tree failed.*simulated/);
  });

  it('records all of 20 commands that finish at once, each once', async () => {
    const { root, env } = await project();
    await startRelayServer(root, env);
    const all = Array.from({ length: 20 }, (_, i) => `step ${i}`);
    const results = await bashHooksAtOnce(root, env, all);
    expect(results.every((result) => result.code === 0 && result.stderr === '')).toBe(true);
    expect(recordedCommands(root).sort()).toEqual([...all].sort());
  });

  it.skipIf(pipeTransport() === null)(
    'hands a Bash hook over without loading node:net, any of Node’s stream modules, node:module or node:vm',
    async () => {
      const { root, env } = await project();
      await startRelayServer(root, env);
      const { result, builtins } = await bashThroughRelayTraced(root, env, 'npm test');
      expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(recordedCommands(root)).toEqual(['npm test']);
      for (const name of ['net', 'stream', 'stream/promises', 'internal/stream_base_commons'])
        expect(builtins).not.toContain(name);
      // Only a hook nobody took needs them (the front, through the code cache): node:module brings parts
      // of the ES module loader with it.
      for (const name of ['module', 'vm', 'internal/modules/esm/loader'])
        expect(builtins).not.toContain(name);
    },
  );

  it('hands the event over through node:net where this Node has no pipe binding to use', async () => {
    const { root, env } = await project();
    await startRelayServer(root, env);
    // A Node whose stream binding is not there (the shape relay-pipe.ts expects may change).
    const preload = path.join(tempDir('no-binding-'), 'no-binding.cjs');
    writeFileSync(
      preload,
      "const binding = process.binding;\nprocess.binding = (name) => { if (name === 'stream_wrap') throw new Error('gone'); return binding.call(process, name); };\n",
    );
    const { result, builtins } = await bashThroughRelayTraced(root, env, 'npm test', preload);
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(recordedCommands(root)).toEqual(['npm test']);
    expect(builtins).toContain('net');
  });

  // Regression (issue 26): Node's bindings are deprecated, and the warning comes on the next tick, past
  // any try/catch; with --throw-deprecation the hook crashed and the command was not recorded.
  it.each([['--pending-deprecation'], ['--pending-deprecation --throw-deprecation']])(
    'records the command, silent, with NODE_OPTIONS=%s, through the server and without one',
    async (flags) => {
      const { root, env } = await project();
      const strict = { ...env, NODE_OPTIONS: flags };
      // Without a server the hook reads its input through the pipe binding (hook-io.ts) and runs itself.
      const alone = await bashHook(root, strict, 'run by the hook');
      expect(alone).toMatchObject({ code: 0, stdout: '', stderr: '' });
      await startRelayServer(root, env);
      const relayed = await bashThroughRelay(root, strict, 'run by the server');
      expect(relayed).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(recordedCommands(root)).toEqual(['run by the hook', 'run by the server']);
    },
  );

  it('runs the hook itself when the server is gone, and a new server replaces the socket of the dead one', async () => {
    const { root, env, socket } = await project();
    const { pid } = await startRelayServer(root, env);
    process.kill(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(socket)).toBe(true); // a killed server cannot clean up

    const bash = await bashHook(root, env, 'after the crash');
    expect(bash).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['after the crash']);

    await startRelayServer(root, env);
    const relayed = await bashThroughRelay(root, env, 'through the new server');
    expect(relayed).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['after the crash', 'through the new server']);
  });

  it('never records a command twice: a server that takes the request, records it and hangs up without an answer', async () => {
    const { root, env, socket } = await project();
    mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    // Takes the request (READY, then the hook's GO), writes its record under the id the hook named, as
    // our server does, and hangs up without an answer, as a server killed then would.
    const silent = net.createServer({ allowHalfOpen: true }, (connection) => {
      let request = '';
      connection.on('data', (chunk: Buffer) => {
        request += chunk.toString('utf8');
        if (chunk.includes(0x0a)) connection.write('?');
      });
      connection.on('end', () => {
        const { recordId } = JSON.parse(request.slice(0, request.indexOf('\n'))) as RelayRequest;
        const recorded = recordedCommandsOf(
          [{ command: 'maybe run by the server', exitCode: 0 }],
          new Date(),
        );
        new CheckpointStore(root).addToJournal(recordId as string, serializeJournalRecord(recorded));
        connection.destroy();
      });
    });
    await new Promise<void>((resolve) => silent.listen(socket, resolve));

    const bash = await bashHook(root, env, 'maybe run by the server');
    expect(bash.code).toBe(0);
    expect(bash.stderr).toContain('the MCP server stopped before it answered');
    expect(recordedCommands(root)).toEqual(['maybe run by the server']);
    // The next hook, which runs itself, journals its command; merged by the lock's next holder: still once.
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    await bashHook(root, { ...env, CHECKPOINT_HOOK_HOST: '0' }, 'next');
    await mergeJournal(root);
    expect(commandsInFile(root)).toEqual(['maybe run by the server', 'next']);
  });

  it('runs the hook itself when something holds the socket but never takes the request (a stopped server)', async () => {
    const { root, env, socket } = await project();
    mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    // Accepts the connection and reads nothing: what a stopped (SIGSTOP) or swamped process looks like.
    const held: net.Socket[] = [];
    const stuck = net.createServer((connection) => held.push(connection));
    await new Promise<void>((resolve) => stuck.listen(socket, resolve));
    onTestFinished(() => {
      for (const connection of held) connection.destroy(); // never read, so never ended
      return new Promise<void>((resolve) => stuck.close(() => resolve()));
    });

    const bash = await bashHook(root, env, 'run by the hook');
    expect(bash).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['run by the hook']);
  });

  it('a server of another version declines before running anything, and the hook runs itself', async () => {
    const { root, env, socket } = await project();
    await startRelayServer(root, env);
    const reply = await askRelay(socket, otherVersionRequest(root, env, 'from another version'));
    expect(reply).toMatchObject({ handled: false });
    expect(recordedCommands(root)).toEqual([]);
    expect(await askRelay(socket, 'not json')).toMatchObject({ handled: false });
  });

  it('uses no socket whose folder others can enter, and none at all with CHECKPOINT_HOOK_RELAY=0', async () => {
    const open = await project();
    mkdirSync(path.dirname(open.socket), { recursive: true });
    chmodSync(path.dirname(open.socket), 0o755);
    await startRelayServer(open.root, open.env);
    expect(existsSync(open.socket)).toBe(false);
    const doctor = await runCli(['doctor', '--json'], { cwd: open.root, env: open.env });
    expect(JSON.parse(doctor.stdout).checks).toContainEqual(
      expect.objectContaining({
        name: 'hook relay',
        level: 'warn',
        fix: expect.stringMatching(/^chmod 700/),
      }),
    );

    const off = await project();
    await startRelayServer(off.root, { ...off.env, CHECKPOINT_HOOK_RELAY: '0' });
    expect(existsSync(path.join(off.store, 'run')) ? readdirSync(path.join(off.store, 'run')) : []).toEqual(
      [],
    );
    const hook = await bashThroughRelay(off.root, off.env, 'no relay');
    expect(hook.code).not.toBe(0); // no server took it, and this copy has no bundle to run it with
  });

  it('a second server in the same project leaves the first one its socket, and removes nothing when it ends', async () => {
    const { root, env, socket } = await project();
    await startRelayServer(root, env);
    const second = await startRelayServer(root, env);
    await second.client.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(socket)).toBe(true);
    const relayed = await bashThroughRelay(root, env, 'through the first server');
    expect(relayed).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['through the first server']);
  });

  it('doctor says whether a running server takes the hooks', async () => {
    const { root, env } = await project();
    const relay = async () =>
      (
        JSON.parse((await runCli(['doctor', '--json'], { cwd: root, env })).stdout).checks as Array<{
          name: string;
          level: string;
          detail: string;
        }>
      ).find((check) => check.name === 'hook relay');
    expect(await relay()).toMatchObject({
      level: 'ok',
      detail: expect.stringMatching(/no MCP server is running/),
    });
    const { client } = await startRelayServer(root, env);
    expect(await relay()).toMatchObject({
      level: 'ok',
      detail: expect.stringMatching(/a running MCP server or hook host takes/),
    });
    await client.close();
    const off = await runCli(['doctor', '--json'], {
      cwd: root,
      env: { ...env, CHECKPOINT_HOOK_RELAY: '0' },
    });
    expect(JSON.parse(off.stdout).checks).toContainEqual(
      expect.objectContaining({ name: 'hook relay', detail: expect.stringMatching(/^off/) }),
    );
  });

  it('removes its socket when the agent ends the session', async () => {
    const { root, env, socket } = await project();
    const { client } = await startRelayServer(root, env);
    expect(existsSync(socket)).toBe(true);
    await client.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(socket)).toBe(false);
  });
});
