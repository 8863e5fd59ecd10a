import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { claudeProjectDir } from '../../src/app/conversation-fork.js';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// Safety audit of 2026-12-07, item 6: a hook payload's transcript_path decided where `rewind
// --conversation` wrote the new session: any folder, outside the project and ~/.claude. A fork is
// written only where the agent keeps its sessions, beside a transcript that is a plain file there.

const SESSION = 'b4c9ace5-a499-4748-b228-b65376c1eb91';
const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'claude-code-session.jsonl');

/** Two prompts through the hook in `root`, their payloads naming `transcript`: two prompt snapshots. */
async function prompted(root: string, transcript: string, env: Record<string, string>) {
  for (const prompt of ['Step 1 first', 'Step 2 second']) {
    writeFileSync(path.join(root, 'b.txt'), `${prompt}\n`);
    const input = JSON.stringify({
      session_id: SESSION,
      transcript_path: transcript,
      cwd: root,
      hook_event_name: 'UserPromptSubmit',
      prompt,
    });
    const hook = await runCli(['hook', 'UserPromptSubmit'], { cwd: root, env, input });
    expect(hook.code, hook.stderr).toBe(0);
  }
  return root;
}

describe('rewind --conversation', () => {
  it('a transcript outside Claude Code’s projects folder: nothing is written beside it, and the reason says why', async () => {
    const home = tempDir('home-');
    const env = { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const anywhere = tempDir('anywhere-');
    const transcript = path.join(anywhere, `${SESSION}.jsonl`);
    copyFileSync(FIXTURE, transcript);
    const root = await prompted(createRepo({ committed: { 'b.txt': 'b\n' } }), transcript, env);
    const result = await runCli(['rewind', 'latest', '--conversation', '--yes', '--session', SESSION], {
      cwd: root,
      env,
    });
    expect(readdirSync(anywhere)).toEqual([`${SESSION}.jsonl`]);
    expect(`${result.stdout}${result.stderr}`).toMatch(
      /outside .*\.claude.projects, where Claude Code keeps its sessions/,
    );
    // Newcomer trial: a conversation asked for and not written is a failure, not exit 0.
    expect(result.stdout).toContain('Conversation: not restored.');
    expect(result.code).toBe(1);
    const planned = await runCli(['rewind', 'latest', '--conversation', '--dry-run', '--session', SESSION], {
      cwd: root,
      env,
    });
    expect(planned.code).toBe(1);

    // --both: the code is restored, the conversation is not; both are said, and the exit is 1.
    writeFileSync(path.join(root, 'b.txt'), 'edited after the prompt\n');
    const both = await runCli(['rewind', 'latest', '--both', '--yes', '--session', SESSION], {
      cwd: root,
      env,
    });
    expect(both.stdout).toContain('Code: restored, 1 file(s) changed.');
    expect(both.stdout).toContain('Conversation: not restored.');
    expect(both.stderr).toContain(
      'The code was restored (see the undo above), but the conversation was not.',
    );
    expect(both.code).toBe(1);
    expect(readdirSync(anywhere)).toEqual([`${SESSION}.jsonl`]);
  });

  it('the same transcript in Claude Code’s projects folder (CLAUDE_CONFIG_DIR) is forked beside it', async () => {
    const config = tempDir('claude-config-');
    const env = {
      HOME: tempDir('home-'),
      CLAUDE_CONFIG_DIR: config,
      CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    };
    const root = createRepo({ committed: { 'b.txt': 'b\n' } });
    const folder = claudeProjectDir(env, root);
    mkdirSync(folder, { recursive: true });
    const transcript = path.join(folder, `${SESSION}.jsonl`);
    copyFileSync(FIXTURE, transcript);
    await prompted(root, transcript, env);
    const result = await runCli(['rewind', 'latest', '--conversation', '--yes', '--session', SESSION], {
      cwd: root,
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(folder).length).toBe(2);
    // The prompt that opened the session: nothing came before it, so no session is wanted, and none
    // written is no failure (the agents' real sessions showed it: exit 1 there was wrong).
    const first = await runCli(['rewind', 'latest~1', '--conversation', '--yes', '--session', SESSION], {
      cwd: root,
      env,
    });
    expect(first.stdout).toContain('This prompt opened the session: nothing came before it.');
    expect(first.code, first.stderr).toBe(0);
    expect(readdirSync(folder).length).toBe(2);
  });
});
