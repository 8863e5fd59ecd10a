import net from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  PACKAGE_VERSION,
  RELAY_ANSWER_END,
  RELAY_GO,
  RELAY_PROTOCOL,
  RELAY_READY,
  type RelayRequest,
} from '../../src/hooks/relay-protocol.js';
import { startHookRelay } from '../../src/hooks/relay-server.js';
import { KeyedQueue } from '../../src/store/lock.js';
import { runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { bashInput, commandsInFile, recordedCommands } from '../helpers/relay.js';

// In-process, over a real unix socket: the MCP server's relay told to close (its agent exits) while a hook
// is in the middle of the exchange. server.ts exits the process as soon as close() settles.

async function project() {
  const root = createRepo({ committed: { 'a.ts': 'a' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: process.env.HOME ?? '' };
  await runCli(['save', '--goal', 'Close'], { cwd: root, env });
  return { root, env };
}

const bashRequest = (root: string, env: Record<string, string>, command: string): RelayRequest => ({
  protocol: RELAY_PROTOCOL,
  version: PACKAGE_VERSION,
  argv: ['PostToolUse'],
  stdin: bashInput(root, command),
  env,
  cwd: root,
  cliPath: '',
});

/** A hook's side of the exchange, step by step: connected, then `send`, `untilReady`, `go`, `answer`. */
async function hookConnection(socket: string) {
  const connection = net.createConnection(socket);
  await new Promise<void>((resolve, reject) => {
    connection.once('connect', resolve);
    connection.once('error', reject);
  });
  let text = '';
  const changed: Array<() => void> = [];
  connection.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const wake of changed.splice(0)) wake();
  });
  const ended = new Promise<string>((resolve) => connection.on('end', () => resolve(text)));
  return {
    send: (request: unknown) => connection.write(`${JSON.stringify(request)}\n`),
    /** What the server said first: READY, or its whole answer to a declined request. */
    firstWord: async () => {
      while (text === '') await new Promise<void>((resolve) => changed.push(resolve));
      return text[0];
    },
    untilReady: async () => {
      while (!text.startsWith(RELAY_READY)) await new Promise<void>((resolve) => changed.push(resolve));
    },
    go: () => connection.end(RELAY_GO),
    answer: async () => {
      const answer = (await ended).slice(text.startsWith(RELAY_READY) ? 1 : 0);
      // One line (RELAY_ANSWER_END): the hook takes it as whole at its newline.
      expect(answer.endsWith(RELAY_ANSWER_END)).toBe(true);
      expect(answer.indexOf(RELAY_ANSWER_END)).toBe(answer.length - 1);
      return JSON.parse(answer);
    },
  };
}

describe('a relay closed while a hook is in its exchange', () => {
  it('records the command of a hook told READY whose GO comes after close() began (the agent exiting)', async () => {
    const { root, env } = await project();
    const relay = await startHookRelay({ env, cwd: root, queue: new KeyedQueue() });
    if (!relay) throw new Error('the relay did not start');
    const hook = await hookConnection(relay.socketPath);
    hook.send(bashRequest(root, env, 'npm test'));
    await hook.untilReady();

    const closed = relay.close();
    hook.go();
    await closed;
    // What server.ts does next is process.exit(): the command must be on disk by now, merged.
    expect(commandsInFile(root)).toEqual(['npm test']);
    expect(await hook.answer()).toMatchObject({ handled: true });
  });

  it('declines a request read once close() began: the hook runs the event itself', async () => {
    const { root, env } = await project();
    const relay = await startHookRelay({ env, cwd: root, queue: new KeyedQueue() });
    if (!relay) throw new Error('the relay did not start');
    const hook = await hookConnection(relay.socketPath);
    const closed = relay.close();
    hook.send(bashRequest(root, env, 'too late for the server'));
    expect(await hook.firstWord()).not.toBe(RELAY_READY);
    expect(await hook.answer()).toMatchObject({ handled: false });
    await closed;
    expect(recordedCommands(root)).toEqual([]);
  });
});
