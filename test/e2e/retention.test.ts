import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

/** Retention counts prompts per session, as Claude Code keeps its 100 checkpoints per session. */

beforeAll(assertBuilt);

describe('retention keeps the newest prompts of every session (issue 26, trial 4)', () => {
  it('pre-command snapshots and another session’s prompts push no prompt out', async () => {
    const root = createRepo({ committed: { a: 'a\n' } });
    const env = {
      CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
      HOME: tempDir('home-'),
      CHECKPOINT_SNAPSHOT_MAX_COUNT: '5',
    };
    const hook = async (session: string, event: string, fields: Record<string, unknown>) => {
      const input = JSON.stringify({ session_id: session, cwd: root, hook_event_name: event, ...fields });
      const run = await runNodeScript(SHIPPED_HOOK_ENTRY, [event], { cwd: root, env, input });
      expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    };
    let content = 'a\n';
    for (let i = 1; i <= 4; i++) {
      await hook('sA', 'UserPromptSubmit', { prompt: `prompt ${i}` });
      for (let k = 1; k <= 2; k++) {
        content += `${i}${k}\n`;
        writeTree(root, { a: content });
        await hook('sA', 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -f a.bak' } });
        writeTree(root, { 'a.bak': '' });
      }
    }
    // Several within one second (its ids carry only the second): still the 5 newest, by their exact times.
    for (let i = 1; i <= 7; i++) await hook('sB', 'UserPromptSubmit', { prompt: `other ${i}` });
    const run = await runCli(['rewind', '--list', '--all', '--json', '--root', root], { cwd: root, env });
    expect(run.code, run.stderr).toBe(0);
    const sessions = JSON.parse(run.stdout).sessions.map((session: { entries: Array<{ prompt: string }> }) =>
      session.entries.map((entry) => entry.prompt),
    );
    expect(sessions).toEqual([
      ['other 7', 'other 6', 'other 5', 'other 4', 'other 3'],
      ['prompt 4', 'prompt 3', 'prompt 2', 'prompt 1'],
    ]);
    // The pre-command snapshots are still there, with their turns.
    const list = await runCli(['list', '--json', '--root', root], { cwd: root, env });
    const triggers = JSON.parse(list.stdout).snapshots.map(
      (snapshot: { trigger: string }) => snapshot.trigger,
    );
    expect(triggers.filter((trigger: string) => trigger === 'pre-command')).toHaveLength(8);
  });
});
