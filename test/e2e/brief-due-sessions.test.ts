import { describe, expect, it } from 'vitest';
import { runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// Copilot CLI and Gemini CLI start no session after a compaction: the brief comes back with the next
// prompt. A read-only trial found that prompt was any session's, of any agent, in the project. The built
// hooks as `setup` wires them, with the payloads the agents send (docs/agents/copilot.md, gemini.md).

const BROUGHT_BACK = 'restored automatically after the conversation was compacted';

async function project() {
  const root = createRepo({ committed: { 'a.ts': 'a\n' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  const saved = await runCli(['save', '--goal', 'Keep the goal through compaction'], { cwd: root, env });
  expect(saved.code, saved.stderr).toBe(0);
  const hook = async (
    agent: string,
    event: string,
    session: string,
    payload: Record<string, unknown> = {},
  ) => {
    const run = await runNodeScript(SHIPPED_HOOK_ENTRY, [event, '--agent', agent], {
      cwd: root,
      env,
      input: JSON.stringify({ session_id: session, cwd: root, hook_event_name: event, ...payload }),
    });
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  };
  const copilotCompacts = (session: string) =>
    hook('copilot', 'PreCompact', session, { trigger: 'auto', custom_instructions: '' });
  const copilotPrompt = async (session: string) =>
    (await hook('copilot', 'UserPromptSubmit', session, { prompt: 'next' })).includes(BROUGHT_BACK);
  const geminiCompresses = (session: string) => hook('gemini', 'PreCompress', session, { trigger: 'manual' });
  const geminiPrompt = async (session: string) =>
    (await hook('gemini', 'BeforeAgent', session, { prompt: 'next' })).includes(BROUGHT_BACK);
  return { copilotCompacts, copilotPrompt, geminiCompresses, geminiPrompt };
}

describe('the brief after a compaction goes to the session that was compacted', () => {
  it("Copilot CLI: another session's prompt does not take it; the compacted session's next prompt does", async () => {
    const { copilotCompacts, copilotPrompt } = await project();
    await copilotCompacts('A');
    expect(await copilotPrompt('B')).toBe(false);
    expect(await copilotPrompt('A')).toBe(true);
    expect(await copilotPrompt('A')).toBe(false);
  });

  it("nor does another agent's: a Copilot CLI compaction, then a Gemini CLI prompt", async () => {
    const { copilotCompacts, copilotPrompt, geminiPrompt } = await project();
    await copilotCompacts('A');
    expect(await geminiPrompt('A')).toBe(false);
    expect(await geminiPrompt('G')).toBe(false);
    expect(await copilotPrompt('A')).toBe(true);
  });

  it('several sessions compacted at once each get it with their own next prompt', async () => {
    const { copilotCompacts, copilotPrompt, geminiCompresses, geminiPrompt } = await project();
    await copilotCompacts('A');
    await copilotCompacts('B');
    await geminiCompresses('G');
    expect(await copilotPrompt('B')).toBe(true);
    expect(await geminiPrompt('G')).toBe(true);
    expect(await copilotPrompt('A')).toBe(true);
    expect(await copilotPrompt('B')).toBe(false);
  });
});
