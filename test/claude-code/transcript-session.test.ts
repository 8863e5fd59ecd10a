import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectFilledFromTranscript,
  expectSecretNowhere,
  NEVER_SAVES,
  storedCheckpoint as stored,
} from '../helpers/agent-cli.js';
import { pluginSessionSetup, pluginTool, runClaude } from '../helpers/claude-code.js';
import { type FakeModel, type LoggedRequest, type Plan, received } from '../helpers/fake-model.js';
import { createRepo } from '../helpers/fixtures.js';

/**
 * Real Claude Code sessions whose scripted model never calls the save tool: the plugin's Stop hook fills
 * the checkpoint from the session's transcript, and the next session's model receives it. Assertions are
 * on what the model received (the logged requests) and on what is on disk.
 */

const LOAD = pluginTool('load_session_checkpoint');
const SAVE = pluginTool('save_session_checkpoint');
const { token: TOKEN, prompt: PROMPT, status: STATUS } = NEVER_SAVES;

const tasksThenBash = [
  {
    tool: 'TaskCreate',
    input: { subject: 'Write the route', description: 'GET /health', activeForm: 'Writing' },
  },
  { tool: 'TaskCreate', input: { subject: 'Test the route', description: 'a test', activeForm: 'Testing' } },
  { tool: 'TaskCreate', input: { subject: 'Document it', description: 'README', activeForm: 'Documenting' } },
  { tool: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
  { tool: 'TaskUpdate', input: { taskId: '2', status: 'in_progress' } },
  { tool: 'Bash', input: { command: "echo 'health: 200'", description: 'Check the route' } },
];

const plan: Plan = (prompt) => {
  if (prompt === PROMPT) return [...tasksThenBash, { text: STATUS }];
  if (prompt === 'Start the OAuth work')
    return [
      { tool: SAVE, input: { goal: 'Ship GitHub OAuth login' } },
      {
        tool: 'TaskCreate',
        input: { subject: 'Callback route', description: 'the OAuth callback', activeForm: 'Writing' },
      },
      { text: 'Callback route started.' },
    ];
  if (prompt === 'Where were we?') return [{ tool: LOAD, input: {} }, { text: 'Resumed.' }];
  return [{ text: 'Noted.' }];
};

const modelRequests = (requests: readonly LoggedRequest[]) =>
  requests.filter(
    (request) => request.url.startsWith('/v1/messages') && !request.url.includes('count_tokens'),
  );

let model: FakeModel;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ({ model, project, env } = await pluginSessionSetup(plan, { 'src/app.ts': 'v1\n' }));
});

afterAll(async () => {
  await model?.close();
});

describe('a Claude Code session whose model never saves', () => {
  it('print mode: the Stop hook records the goal, the tasks, the status and the command before the session ends', async () => {
    const run = await runClaude(
      ['-p', PROMPT, '--allowedTools', 'Bash TaskCreate TaskUpdate', '--output-format', 'json'],
      { cwd: project, env },
    );
    expect(run.code, run.stderr).toBe(0);
    // Read at once: the Stop hook ran before `claude -p` ended, nothing was left to the background.
    const saved = stored(project);
    expectFilledFromTranscript(saved, ['Write the route', 'Test the route', 'Document it']);
  });

  it('the secret in the prompt reached neither the checkpoint nor the store', () => {
    expectSecretNowhere(project, env.CHECKPOINT_STORE_DIR as string, TOKEN);
  });

  it('a new session: the model receives the goal, every task with its status, and the status sentence', async () => {
    const before = model.requests.length;
    const run = await runClaude(['-p', 'Where were we?', '--allowedTools', LOAD], { cwd: project, env });
    expect(run.code, run.stderr).toBe(0);
    const requests = modelRequests(model.requests.slice(before));
    // At startup, the notice names the goal and where it came from.
    expect(received(requests[0] as LoggedRequest)).toContain(
      'Goal (from the session transcript): Add a health check route to the API',
    );
    // The load tool's result arrives as JSON (its structured content): newlines in it are escaped.
    const all = requests.map(received).join('\n').replaceAll('\\n', '\n').replaceAll('\\"', '"');
    for (const part of [
      '## Goal (from the session transcript)\nAdd a health check route to the API (the deploy token is «redacted»)',
      '## Tasks (from the session transcript)',
      '[x] Write the route',
      '[~] Test the route',
      '[ ] Document it',
      `## Where things stand (from the session transcript)\n${STATUS}`,
      "✓ `echo 'health: 200'`",
    ])
      expect(all).toContain(part);
    expect(all).not.toContain(TOKEN);
  });

  it('a model that saved its own goal keeps it; the tasks it wrote later fill the list it did not save', async () => {
    const other = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
    const run = await runClaude(['-p', 'Start the OAuth work', '--allowedTools', `${SAVE} TaskCreate`], {
      cwd: other,
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    const saved = stored(other);
    expect(saved.goal.primary).toBe('Ship GitHub OAuth login');
    expect(saved.goal.tasks).toEqual([{ description: 'Callback route', status: 'pending' }]);
    expect(saved.summary).toBe('Callback route started.');
    expect(saved.meta.derived.goal).toBeUndefined();
  });
});
