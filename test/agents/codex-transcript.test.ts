import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/agent-session.js';
import { repoRoot } from '../helpers/claude-code.js';
import { type FakeModel, type Plan, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * Real Codex sessions (`codex exec`) whose scripted model never calls the save tool: the Stop hook that
 * `setup codex` wires fills the checkpoint from the session's rollout file, and the next session's model
 * receives it. Assertions are on what the model received (the logged requests) and on what is on disk.
 * update_plan is turned on in the config, as Codex 0.169.0 leaves it off in `exec`. (apply_patch, which
 * Codex offers only to models it knows, is read in test/transcripts/codex.test.ts from a recorded session.)
 */

const CODEX = path.join(repoRoot, '.cache/agents/codex/node_modules/.bin/codex');
const CLI = path.join(repoRoot, 'dist/cli.js');
const TOKEN = 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q';
const PROMPT = `Add a health check route to the API (the deploy token is ${TOKEN})`;
const STATUS = 'The route answers 200; its tests pass, the docs are next.';
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

async function codex(cwd: string, prompt: string, extra: string[] = []) {
  const before = model.requests.length;
  const result = await runProcess(
    CODEX,
    [
      'exec',
      ...extra,
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--dangerously-bypass-hook-trust',
      prompt,
    ],
    { cwd, env },
  );
  expect(result.code, `codex exited ${result.code}: ${result.stderr.slice(-2000)}`).toBe(0);
  return model.requests.slice(before).filter((request) => request.url.includes('/responses'));
}

/** Every string in a request, and in the JSON that strings hold (Codex puts "Output:" before a tool's). */
function textsIn(value: unknown): string[] {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value.slice(Math.max(0, value.indexOf('{'))));
      if (parsed && typeof parsed === 'object') return [value, ...textsIn(parsed)];
    } catch {
      // plain text
    }
    return [value];
  }
  if (Array.isArray(value)) return value.flatMap(textsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(textsIn);
  return [];
}

const stored = (root: string) => JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));

beforeAll(async () => {
  model = await startFakeModel(plan, { format: 'responses', latencyMs: 100 });
  // Not under /tmp: Codex refuses to put its helper binaries in a temporary folder.
  home = tempDir('codex-home-');
  env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    FAKE_MODEL_KEY: 'fake-key-for-tests',
    CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    NO_COLOR: '1',
  };
  project = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  other = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  third = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  mkdirSync(path.join(home, '.codex'));
  writeFileSync(
    path.join(home, '.codex', 'config.toml'),
    `model = "fake-model"
model_provider = "fake"
# The checkpoint server starts with the session: wait for it under load, so its tools are offered.
mcp_optional_startup_grace_ms = 20000

[model_providers.fake]
name = "fake"
base_url = "${model.url}/v1"
wire_api = "responses"
env_key = "FAKE_MODEL_KEY"

[tools.update_plan]
enabled = true
`,
  );
  const setup = await runProcess(process.execPath, [CLI, 'setup', 'codex'], { cwd: home, env });
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
    expect(saved.goal.primary).toBe('Add a health check route to the API (the deploy token is «redacted»)');
    expect(saved.goal.tasks).toEqual([
      { description: 'Write the route', status: 'done' },
      { description: 'Test the route', status: 'in_progress' },
      { description: 'Document it', status: 'pending' },
    ]);
    expect(saved.summary).toBe(STATUS);
    expect(saved.recentCommands).toContainEqual(
      expect.objectContaining({ command: "echo 'health: 200'", exitCode: 0 }),
    );
    expect(saved.meta.derived).toEqual(
      expect.objectContaining({
        goal: expect.any(String),
        tasks: expect.any(String),
        summary: expect.any(String),
      }),
    );
  });

  it('the secret in the prompt reached neither the checkpoint nor the store', () => {
    expect(readFileSync(path.join(project, '.claude-checkpoint'), 'utf8')).not.toContain(TOKEN);
    const store = env.CHECKPOINT_STORE_DIR as string;
    for (const file of readdirSync(store, { recursive: true }) as string[])
      if (file.endsWith('.json')) expect(readFileSync(path.join(store, file), 'utf8')).not.toContain(TOKEN);
  });

  it('a new session: the model receives the goal, every task with its status, and the status sentence', async () => {
    const requests = await codex(project, 'Where were we?');
    // Tool results arrive as text holding JSON (the load tool's structured content): read into those too.
    const all = requests.map((request) => textsIn(request.body).join('\n')).join('\n');
    expect(requests[0]?.raw).toContain(
      'Goal (from the session transcript): Add a health check route to the API',
    );
    for (const part of [
      '## Goal (from the session transcript)\nAdd a health check route to the API (the deploy token is «redacted»)',
      '## Tasks (from the session transcript)',
      '[x] Write the route',
      '[~] Test the route',
      '[ ] Document it',
      `## Where things stand (from the session transcript)\n${STATUS}`,
      "✓ `echo 'health: 200'`",
    ])
      expect(all, part).toContain(part);
    expect(all).not.toContain(TOKEN);
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
