import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import {
  bashHook,
  bashHooksAtOnce,
  commandsInFile,
  type JournalHoldPoint,
  journalHold,
  mergeJournal,
  startRelayServer,
} from '../helpers/relay.js';

// Regression (issue 26, the new-user trial of 2026-12-07): 20 Bash hooks and a server SIGKILLed 30, 80
// or 150 ms in lost 2, 1 and 5 commands, each hook saying only "the MCP server did not answer
// (ECONNRESET)", and a temp file holding a lost command stayed in the journal for good. Here the server
// is held at each step of writing the record (a preload stops it there) and killed: the command is then
// shown once, by the brief and in the checkpoint after the next merge, and the journal is gone.

async function project() {
  const root = createRepo({ committed: { 'a.ts': 'a' } });
  // No hook host: after the kill, the next hook runs itself, as it does with none allowed.
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), CHECKPOINT_HOOK_HOST: '0' };
  await runCli(['save', '--goal', 'Killed'], { cwd: root, env });
  return { root, env };
}

const count = (text: string, what: string) => text.split(what).length - 1;
/** Runs a Bash hook of `command` through a server held at `point` of writing its record, killed there. */
async function hookWhoseServerDies(
  root: string,
  env: Record<string, string>,
  point: JournalHoldPoint,
  command: string,
) {
  const hold = journalHold(point);
  const { pid } = await startRelayServer(root, { ...env, NODE_OPTIONS: `--require=${hold.preload}` });
  const hook = bashHook(root, env, command);
  await hold.reached();
  process.kill(pid, 'SIGKILL');
  return hook;
}

/** What the hook says it did, by where the server died: its record was in place after the rename. */
const hookDid = (point: JournalHoldPoint) =>
  point === 'after-rename' ? ', after it recorded the command' : '; this hook recorded the command itself';

const journalLeft = (root: string) => {
  const journal = path.join(root, '.claude-checkpoint.journal');
  return existsSync(journal) ? readdirSync(journal) : [];
};

const stoppedWhy = (stderr: string) => /\((ECONNRESET|its answer was cut short)\)/.exec(stderr)?.[1] ?? '?';

describe('a Bash hook whose MCP server is killed before it answers', () => {
  it.each<JournalHoldPoint>(['before-write', 'before-rename', 'after-rename'])(
    'records the command exactly once when the server dies %s of its record',
    async (point) => {
      const { root, env } = await project();
      const result = await hookWhoseServerDies(root, env, point, 'echo kill-1');
      expect(result.code).toBe(0);

      const brief = await runCli(['brief'], { cwd: root, env });
      expect(count(brief.stdout, 'echo kill-1')).toBe(1);

      // The next hook, with no server, journals its command; the lock's next holder merges the journal:
      // a killed writer's temp file is taken (its record whole) or removed, never left.
      expect(await bashHook(root, env, 'echo after')).toMatchObject({ code: 0, stderr: '' });
      await mergeJournal(root);
      expect(commandsInFile(root)).toEqual(['echo kill-1', 'echo after']);
      expect(journalLeft(root)).toEqual([]);
      // Said, not silent: the server's log may tell why it stopped, and whether its record was in place.
      expect(result.stderr).toBe(
        `claude-checkpoint hook PostToolUse: the MCP server stopped before it answered (${stoppedWhy(result.stderr)})${hookDid(point)}\n`,
      );
    },
  );

  // With no checkpoint yet, the hook's own write must end in a checkpoint, not wait in the journal (where
  // a copy it may repeat expires after ten minutes), and the journal must be gone.
  it.each<JournalHoldPoint>(['before-write', 'after-rename'])(
    'starts the checkpoint with the command in a project with none yet, the server dying %s of its record',
    async (point) => {
      const root = createRepo({ committed: { 'a.ts': 'a' } });
      const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), CHECKPOINT_HOOK_HOST: '0' };
      const result = await hookWhoseServerDies(root, env, point, 'echo first');
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(hookDid(point));
      expect(commandsInFile(root)).toEqual(['echo first']);
      expect(journalLeft(root)).toEqual([]);
    },
  );

  it('records each of 20 commands once when the server dies in the middle of their burst', async () => {
    const { root, env } = await project();
    const hold = journalHold('before-rename');
    const { pid } = await startRelayServer(root, { ...env, NODE_OPTIONS: `--require=${hold.preload}` });
    const commands = Array.from({ length: 20 }, (_, i) => `echo kill-${i}`);

    const hooks = bashHooksAtOnce(root, env, commands);
    // Held at its first record: hooks it had taken lose it when it dies, the others find it silent.
    await hold.reached();
    process.kill(pid, 'SIGKILL');
    for (const result of await hooks) expect(result.code).toBe(0);

    const full = await runCli(['load', '--format', 'full', '--json'], { cwd: root, env });
    const shown = JSON.parse(full.stdout).checkpoint.recentCommands.map(
      (c: { command: string }) => c.command,
    );
    expect([...shown].sort()).toEqual([...commands].sort());
    expect(await bashHook(root, env, 'echo after')).toMatchObject({ code: 0, stderr: '' });
    await mergeJournal(root);
    expect([...commandsInFile(root)].sort()).toEqual([...commands, 'echo after'].sort());
  });
});
