import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/agent-session.js';
import { repoRoot } from '../helpers/claude-code.js';
import { type FakeModel, type Plan, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * Real Gemini CLI sessions (`gemini -p`) whose scripted model never calls the save tool: the AfterAgent
 * hook that `setup gemini` wires fills the checkpoint from the session's chat file, and the next
 * session's model receives it. Assertions are on what the model received (the logged requests) and on
 * what is on disk. The model is gemini-2.5-flash: Gemini CLI 0.61.0 offers write_todos to Gemini 2 models.
 */

const GEMINI = path.join(repoRoot, '.cache/agents/gemini/node_modules/.bin/gemini');
const CLI = path.join(repoRoot, 'dist/cli.js');
const TOKEN = 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q';
const PROMPT = `Add a health check route to the API (the deploy token is ${TOKEN})`;
const STATUS = 'The route answers 200; its tests pass, the docs are next.';
const todos3 = (first: string, second: string, third: string) => ({
  todos: [
    { description: 'Write the route', status: first },
    { description: 'Test the route', status: second },
    { description: 'Document it', status: third },
  ],
});

const plan: Plan = (prompt, callable) => {
  const tool = (suffix: string) => [...callable].find((name) => name.endsWith(suffix)) ?? suffix;
  if (prompt === PROMPT)
    return [
      { tool: 'write_todos', input: todos3('in_progress', 'pending', 'pending') },
      {
        tool: 'write_file',
        input: { file_path: 'src/health.ts', content: 'export const health = () => 200;\n' },
      },
      { tool: 'run_shell_command', input: { command: "echo 'health: 200'", description: 'Check the route' } },
      { tool: 'write_todos', input: todos3('completed', 'in_progress', 'pending') },
      { text: STATUS },
    ];
  if (prompt === 'Start the OAuth work')
    return [
      { tool: tool('save_session_checkpoint'), input: { goal: 'Ship GitHub OAuth login' } },
      { tool: 'write_todos', input: { todos: [{ description: 'Callback route', status: 'in_progress' }] } },
      { text: 'Callback route started.' },
    ];
  if (prompt === 'Where were we?')
    return [{ tool: tool('load_session_checkpoint'), input: {} }, { text: 'Resumed.' }];
  return [{ text: 'Noted.' }];
};

let model: FakeModel;
let home: string;
let env: NodeJS.ProcessEnv;
let project: string;
let other: string;

async function gemini(cwd: string, prompt: string) {
  const before = model.requests.length;
  const result = await runProcess(
    GEMINI,
    ['-p', prompt, '--yolo', '--skip-trust', '-m', 'gemini-2.5-flash'],
    {
      cwd,
      env,
      stdin: '',
    },
  );
  expect(result.code, `gemini exited ${result.code}: ${result.stderr.slice(-2000)}`).toBe(0);
  return model.requests.slice(before).filter((request) => request.url.includes('streamGenerateContent'));
}

/** Every string in a request, and in the JSON that strings hold. */
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
  model = await startFakeModel(plan, { format: 'gemini', latencyMs: 100 });
  home = tempDir('gemini-home-');
  env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    GEMINI_API_KEY: 'fake-key-for-tests',
    GOOGLE_GEMINI_BASE_URL: model.url,
    GEMINI_CLI_NO_RELAUNCH: 'true',
    CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    NO_COLOR: '1',
  };
  project = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  other = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  mkdirSync(path.join(home, '.gemini'));
  writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
  );
  const setup = await runProcess(process.execPath, [CLI, 'setup', 'gemini'], { cwd: home, env, stdin: '' });
  expect(setup.code, setup.stderr).toBe(0);
  expect(readFileSync(path.join(home, '.gemini', 'settings.json'), 'utf8')).toContain(
    'AfterAgent --agent gemini',
  );
});

afterAll(async () => {
  await model?.close();
});

describe('a Gemini CLI session whose model never saves', () => {
  it('the AfterAgent hook records the goal, the todos, the status and the command when the turn ends', async () => {
    await gemini(project, PROMPT);
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
    const requests = await gemini(project, 'Where were we?');
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

  it('a model that saved its own goal keeps it; the todos it wrote later fill the list it did not save', async () => {
    await gemini(other, 'Start the OAuth work');
    const saved = stored(other);
    expect(saved.goal.primary).toBe('Ship GitHub OAuth login');
    expect(saved.goal.tasks).toEqual([{ description: 'Callback route', status: 'in_progress' }]);
    expect(saved.summary).toBe('Callback route started.');
    expect(saved.meta.derived?.goal).toBeUndefined();
  });
});
