import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// The recorded Codex and Gemini CLI sessions (see test/transcripts/codex.test.ts and gemini.test.ts),
// moved into a test project, read by the hooks `setup` wires for each agent, with their own payloads.
const TOKEN = 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q';
const ANSWER = 'The route answers 200 and its tests pass; the docs are next, with the route and its query.';
const AGENTS = [
  {
    agent: 'codex',
    fixture: 'codex-rollout.jsonl',
    recordedProject: '/tmp/checkpoint-repo-nhtbwG',
    endOfTurn: 'Stop',
    answer: (text: string) => ({ last_assistant_message: text }),
  },
  {
    agent: 'gemini',
    fixture: 'gemini-chat.jsonl',
    recordedProject: '/tmp/checkpoint-repo-07v6Ts',
    endOfTurn: 'AfterAgent',
    answer: (text: string) => ({ prompt: 'Thanks', prompt_response: text }),
  },
] as const;

function setUp(agent: (typeof AGENTS)[number]) {
  const root = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  const transcript = path.join(tempDir(`${agent.agent}-sessions-`), 'session-1.jsonl');
  const recorded = readFileSync(new URL(`../fixtures/transcripts/${agent.fixture}`, import.meta.url), 'utf8');
  writeFileSync(
    transcript,
    recorded.replaceAll(agent.recordedProject, root).replaceAll("«the user's token»", TOKEN),
  );
  writeFileSync(path.join(root, 'src/health.ts'), 'export const health = () => 200;\n');
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  const hook = (event: string, extra: Record<string, unknown> = {}) =>
    runCli(['hook', event, '--agent', agent.agent], {
      cwd: root,
      env,
      input: JSON.stringify({
        session_id: 'session-1',
        transcript_path: transcript,
        cwd: root,
        hook_event_name: event,
        ...extra,
      }),
    });
  const stored = () => JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));
  return { root, transcript, env, hook, stored };
}

describe.each(AGENTS)('the $agent hooks fill the checkpoint from its transcript', (agent) => {
  it(`${agent.endOfTurn}: the goal, the tasks, the turn's answer and the commands, redacted`, async () => {
    const { hook, stored, root } = setUp(agent);
    // The file's newest turn ("Thanks", "Noted.") called no tool: the answer the hook hands over counts
    // when it says something of the work (trial 4, item 8).
    const result = await hook(agent.endOfTurn, agent.answer(ANSWER));
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const saved = stored();
    expect(saved.goal).toEqual({
      primary: 'Add a health check route (token «redacted»)',
      tasks: [
        { description: 'Write the route', status: 'done' },
        { description: 'Test the route', status: 'in_progress' },
        { description: 'Document it', status: 'pending' },
      ],
    });
    expect(saved.summary).toBe(ANSWER);
    expect(saved.recentCommands).toContainEqual(
      expect.objectContaining({ command: "echo 'health: 200'", exitCode: 0 }),
    );
    expect(saved.recentCommands).toContainEqual(
      expect.objectContaining({ command: "echo 'FAIL auth.test.ts' && exit 3", exitCode: 3 }),
    );
    expect(saved.meta.derived).toEqual({ goal: 'session-1', tasks: 'session-1', summary: 'session-1' });
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).not.toContain(TOKEN);
  });

  it('a missing or foreign transcript changes nothing already saved', async () => {
    const { root, env, transcript, hook } = setUp(agent);
    await runCli(['save', '--goal', 'Keep this goal'], { cwd: root, env });
    const before = readFileSync(path.join(root, '.claude-checkpoint'), 'utf8');
    const missing = await hook(agent.endOfTurn, { transcript_path: path.join(root, 'nope.jsonl') });
    expect(missing.code).toBe(0);
    expect(missing.stderr).toContain('could not be read');
    writeFileSync(transcript, 'PK\u0003\u0004 not a transcript\n{"type":"');
    expect((await hook(agent.endOfTurn)).code).toBe(0);
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).toBe(before);
  });
});

describe('Gemini CLI: SessionEnd', () => {
  it('also records the files write_file and replace wrote inside the project', async () => {
    const { hook, stored } = setUp(AGENTS[1]);
    expect((await hook('SessionEnd', { reason: 'exit' })).code).toBe(0);
    const files = stored().modifiedFiles as Array<{ path: string; status: string }>;
    expect(files).toContainEqual(expect.objectContaining({ path: 'src/health.ts', status: '??' }));
    expect(stored().goal.tasks).toHaveLength(3);
  });
});
