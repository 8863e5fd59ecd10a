import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentEnv,
  checkpointCli,
  expectBriefFromTranscript,
  expectFilledFromTranscript,
  expectSecretNowhere,
  NEVER_SAVES,
  promptAgent,
  storedCheckpoint as stored,
} from '../helpers/agent-cli.js';
import { type FakeModel, type Plan, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * Real Gemini CLI sessions (`gemini -p`) whose scripted model never calls the save tool: the AfterAgent
 * hook that `setup gemini` wires fills the checkpoint from the session's chat file, and the next
 * session's model receives it. Assertions are on what the model received (the logged requests) and on
 * what is on disk. The model is gemini-2.5-flash: Gemini CLI 0.61.0 offers write_todos to Gemini 2 models.
 */

const { token: TOKEN, prompt: PROMPT, status: STATUS } = NEVER_SAVES;
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

const gemini = (cwd: string, prompt: string) =>
  promptAgent('gemini', { cwd, env, model }, prompt, ['-m', 'gemini-2.5-flash']);

beforeAll(async () => {
  model = await startFakeModel(plan, { format: 'gemini', latencyMs: 100 });
  home = tempDir('gemini-home-');
  env = agentEnv('gemini', home, model);
  project = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  other = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  mkdirSync(path.join(home, '.gemini'));
  writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
  );
  const setup = await checkpointCli(home, env, ['setup', 'gemini']);
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
    expectFilledFromTranscript(saved, ['Write the route', 'Test the route', 'Document it']);
  });

  it('the secret in the prompt reached neither the checkpoint nor the store', () => {
    expectSecretNowhere(project, env.CHECKPOINT_STORE_DIR as string, TOKEN);
  });

  it('a new session: the model receives the goal, every task with its status, and the status sentence', async () => {
    const requests = await gemini(project, 'Where were we?');
    expectBriefFromTranscript(
      requests,
      ['Write the route', 'Test the route', 'Document it'],
      ["✓ `echo 'health: 200'`"],
    );
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
