import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentEnv,
  checkpointCli,
  codexProviderConfig,
  expectBriefFromTranscript,
  expectFilledFromTranscript,
  expectSecretNowhere,
  NEVER_SAVES,
  promptAgent,
  storedCheckpoint as stored,
  textsIn,
} from '../helpers/agent-cli.js';
import { type FakeModel, type Plan, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * Real Codex sessions (`codex exec`) whose scripted model never calls the save tool: the Stop hook that
 * `setup codex` wires fills the checkpoint from the session's rollout file, and the next session's model
 * receives it. Assertions are on what the model received (the logged requests) and on what is on disk.
 * update_plan is turned on in the config, as Codex 0.169.0 leaves it off in `exec`. (apply_patch, which
 * Codex offers only to models it knows, is read in test/transcripts/codex.test.ts from a recorded session.)
 */

const { token: TOKEN, prompt: PROMPT, status: STATUS } = NEVER_SAVES;
const COMPACTED = 'Plan the health check route';
const plan3 = (first: string, second: string, third: string) => ({
  plan: [
    { step: 'Write the route', status: first },
    { step: 'Test the route', status: second },
    { step: 'Document it', status: third },
  ],
});

const plan: Plan = (prompt, callable) => {
  const tool = (suffix: string) => [...callable].find((name) => name.endsWith(suffix)) ?? suffix;
  if (prompt === PROMPT)
    return [
      { tool: 'update_plan', input: plan3('in_progress', 'pending', 'pending') },
      { tool: 'exec_command', input: { cmd: "echo 'health: 200'" } },
      { tool: 'update_plan', input: plan3('completed', 'in_progress', 'pending') },
      { text: STATUS },
    ];
  if (prompt === 'Start the OAuth work')
    return [
      { tool: tool('save_session_checkpoint'), input: { goal: 'Ship GitHub OAuth login' } },
      { tool: 'update_plan', input: { plan: [{ step: 'Callback route', status: 'in_progress' }] } },
      { text: 'Callback route started.' },
    ];
  if (prompt === COMPACTED)
    return [{ tool: 'update_plan', input: plan3('in_progress', 'pending', 'pending') }, { text: 'Planned.' }];
  if (prompt === 'Where were we?')
    return [{ tool: tool('load_session_checkpoint'), input: {} }, { text: 'Resumed.' }];
  return [{ text: 'Noted.' }];
};

let model: FakeModel;
let home: string;
let env: NodeJS.ProcessEnv;
let project: string;
let other: string;
let third: string;

const codex = (cwd: string, prompt: string, extra: string[] = []) =>
  promptAgent('codex', { cwd, env, model }, prompt, extra);

beforeAll(async () => {
  model = await startFakeModel(plan, { format: 'responses', latencyMs: 100 });
  // Not under /tmp: Codex refuses to put its helper binaries in a temporary folder.
  home = tempDir('codex-home-');
  env = agentEnv('codex', home, model);
  project = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  other = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  third = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  mkdirSync(path.join(home, '.codex'));
  writeFileSync(
    path.join(home, '.codex', 'config.toml'),
    codexProviderConfig(
      model,
      // The checkpoint server starts with the session: wait for it under load, so its tools are offered.
      'mcp_optional_startup_grace_ms = 20000\n',
      '\n[tools.update_plan]\nenabled = true\n',
    ),
  );
  const setup = await checkpointCli(home, env, ['setup', 'codex']);
  expect(setup.code, setup.stderr).toBe(0);
  expect(readFileSync(path.join(home, '.codex', 'hooks.json'), 'utf8')).toContain('Stop --agent codex');
});

afterAll(async () => {
  await model?.close();
});

describe('a Codex session whose model never saves', () => {
  it('the Stop hook records the goal, the plan, the status and the command when the turn ends', async () => {
    await codex(project, PROMPT);
    const saved = stored(project);
    expectFilledFromTranscript(saved, ['Write the route', 'Test the route', 'Document it']);
  });

  it('the secret in the prompt reached neither the checkpoint nor the store', () => {
    expectSecretNowhere(project, env.CHECKPOINT_STORE_DIR as string, TOKEN);
  });

  it('a new session: the model receives the goal, every task with its status, and the status sentence', async () => {
    const requests = await codex(project, 'Where were we?');
    expectBriefFromTranscript(
      requests,
      ['Write the route', 'Test the route', 'Document it'],
      ["✓ `echo 'health: 200'`"],
    );
  });

  it('a model that saved its own goal keeps it; the plan it wrote later fills the list it did not save', async () => {
    await codex(other, 'Start the OAuth work');
    const saved = stored(other);
    expect(saved.goal.primary).toBe('Ship GitHub OAuth login');
    expect(saved.goal.tasks).toEqual([{ description: 'Callback route', status: 'in_progress' }]);
    expect(saved.summary).toBe('Callback route started.');
    expect(saved.meta.derived?.goal).toBeUndefined();
  });
});

describe('a Codex session compacted before the model saved', () => {
  it('PreCompact records the goal and the plan from the rollout file; the brief after compaction carries them', async () => {
    // Every scripted answer reports 110 tokens: over this limit, Codex compacts after the plan call.
    const requests = await codex(third, COMPACTED, ['-c', 'model_auto_compact_token_limit=50']);
    const afterCompaction = requests
      .map((request) => textsIn(request.body).join('\n'))
      .find((text) =>
        text.includes('Session checkpoint restored automatically after the conversation was compacted'),
      );
    expect(afterCompaction).toBeDefined();
    for (const part of [
      `## Goal (from the session transcript)\n${COMPACTED}`,
      '## Tasks (from the session transcript)',
      '[~] Write the route',
      '[ ] Test the route',
      '[ ] Document it',
    ])
      expect(afterCompaction, part).toContain(part);
  });
});
