import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { INPUT_UNFINISHED_KEY } from '../../src/hooks/input.js';
import { PACKAGE_VERSION, RELAY_PROTOCOL, type RelayReply } from '../../src/hooks/relay-protocol.js';
import { runRelayed } from '../../src/hooks/relay-server.js';
import { executeHook } from '../../src/hooks/run.js';
import { KeyedQueue } from '../../src/store/lock.js';
import { runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { bashInput, commandsInFile } from '../helpers/relay.js';

// A relayed Bash hook is answered the moment its command is on disk (issue 26): the answer goes out from
// within answerEarly, before the server merges the record into the checkpoint. Through the real handler,
// watched at the moment it says the agent may go on.

async function project() {
  const root = createRepo({ committed: { 'a.ts': 'a' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') };
  await runCli(['save', '--goal', 'Answer early'], { cwd: root, env });
  return { root, env };
}

/** A hook's request as the hook's entry sends it to the server. */
const requestFor = (place: { root: string; env: Record<string, string> }, event: string, stdin: string) => ({
  protocol: RELAY_PROTOCOL,
  version: PACKAGE_VERSION,
  argv: [event],
  stdin,
  env: place.env,
  cwd: place.root,
  cliPath: '',
});

describe('the relay answers a Bash hook early', () => {
  it('sends the answer within answerEarly, with the command journaled and the checkpoint not yet rewritten', async () => {
    const { root, env } = await project();
    const sent: RelayReply[] = [];
    const seen: Array<{ sent: number; journaled: number; inCheckpoint: string[] }> = [];
    const watched: typeof executeHook = (event, options, stdin, deps, context) =>
      executeHook(event, options, stdin, deps, {
        ...context,
        answerEarly: () => {
          context?.answerEarly?.();
          const journal = path.join(root, '.claude-checkpoint.journal');
          seen.push({
            sent: sent.length,
            journaled: existsSync(journal)
              ? readdirSync(journal).filter((n) => n.endsWith('.json')).length
              : 0,
            inCheckpoint: commandsInFile(root),
          });
        },
      });
    const request = requestFor({ root, env }, 'PostToolUse', bashInput(root, 'npm run lint'));
    await runRelayed(request, new KeyedQueue(), (reply) => sent.push(reply), watched);
    expect(seen).toEqual([{ sent: 1, journaled: 1, inCheckpoint: [] }]);
    expect(sent).toEqual([{ handled: true, stdout: '', stderr: '' }]);
    // Merged into the file before the handler ends, and answered once only.
    expect(commandsInFile(root)).toEqual(['npm run lint']);
    expect(existsSync(path.join(root, '.claude-checkpoint.journal'))).toBe(false);
  });

  it('carries what the hook said before it (an input cut short), which the agent then sees on stderr', async () => {
    const { root, env } = await project();
    const sent: RelayReply[] = [];
    // The agent's input ended before its JSON object did: the hook's reader kept its whole fields and
    // marked it so (hook-io.ts), as it sends it to the server.
    const request = requestFor(
      { root, env },
      'PostToolUse',
      JSON.stringify({
        cwd: root,
        tool_name: 'Bash',
        tool_input: { command: 'npm test' },
        [INPUT_UNFINISHED_KEY]: 120,
      }),
    );
    const serverLog: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      serverLog.push(String(chunk));
      return true;
    });
    try {
      await runRelayed(request, new KeyedQueue(), (reply) => sent.push(reply));
    } finally {
      write.mockRestore();
    }
    // Said once: to the agent, with the answer, not again in the server's log.
    expect(serverLog.join('')).not.toContain('before its JSON object did');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ handled: true, stdout: '' });
    expect((sent[0] as { stderr: string }).stderr).toMatch(
      /before its JSON object did: only its whole fields are used\n$/,
    );
    expect(commandsInFile(root)).toEqual(['npm test']);
  });

  it("sends the handler's output when it never answers early", async () => {
    const { root, env } = await project();
    const sent: RelayReply[] = [];
    const request = requestFor({ root, env }, 'SessionStart', JSON.stringify({ cwd: root, source: 'clear' }));
    await runRelayed(request, new KeyedQueue(), (reply) => sent.push(reply));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ handled: true });
    expect((sent[0] as { stdout: string }).stdout).toContain('Answer early');
  });
});
