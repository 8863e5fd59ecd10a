import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentEnv,
  CHECKPOINT_CLI as CLI,
  checkpointCli,
  expectBriefFromTranscript,
  expectFilledFromTranscript,
  expectSecretNowhere,
  NEVER_SAVES,
  promptAgent,
  storedCheckpoint as stored,
} from '../helpers/agent-cli.js';
import {
  expectResumedThroughLoad,
  FAILING,
  saveAndEditBetweenSessions,
  sessionPlan,
} from '../helpers/agent-session.js';
import { type FakeModel, type LoggedRequest, type Plan, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * Real Copilot CLI sessions (`copilot -p`, offline, with a custom provider), set up by `claude-checkpoint
 * setup copilot` in a throwaway HOME, driven by a scripted stand-in for the Responses API. Copilot CLI runs
 * hooks and MCP servers only in a trusted folder; these sessions set COPILOT_ALLOW_ALL=true, which trusts
 * the folder, in place of the user's answer.
 */

const plan = sessionPlan({ tool: 'bash', input: { command: FAILING, description: 'Run the auth tests' } });

let model: FakeModel;
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;
let mcpBefore: string;
const copilotFile = (...parts: string[]) => path.join(home, '.copilot', ...parts);

const copilot = (prompt: string, extra: string[] = []) =>
  promptAgent('copilot', { cwd: project, env, model }, prompt, extra);

beforeAll(async () => {
  model = await startFakeModel(plan, { format: 'responses', latencyMs: 200 });
  home = tempDir('copilot-home-');
  project = createRepo({ committed: { 'src/app.ts': 'v1\n', 'src/util.ts': 'u1\n' } });
  env = agentEnv('copilot', home, model);
  // The user's own MCP servers, which setup must keep.
  mkdirSync(copilotFile(), { recursive: true });
  mcpBefore =
    '{\n  "mcpServers": {\n    "other": { "type": "local", "command": "true", "args": [], "tools": ["*"] }\n  }\n}\n';
  writeFileSync(copilotFile('mcp-config.json'), mcpBefore);
  const setup = await checkpointCli(project, env, ['setup', 'copilot']);
  expect(setup.code, setup.stderr).toBe(0);
  expect(setup.stdout).toContain('Copilot CLI runs hooks and MCP servers only in a folder you trust');
});

afterAll(async () => {
  await model?.close();
});

describe('a real Copilot CLI session, set up by `setup copilot`, with a scripted model', () => {
  it('session 1: the prompt is snapshotted, and the failing command is recorded with its exit code (from the result text)', async () => {
    await copilot('Run the auth tests');
    const list = await checkpointCli(project, env, ['list', '--json']);
    expect(JSON.parse(list.stdout).snapshots).toEqual(
      expect.arrayContaining([expect.objectContaining({ trigger: 'prompt', label: 'Run the auth tests' })]),
    );
    const file = path.join(project, '.claude-checkpoint');
    for (const deadline = Date.now() + 10_000; !existsSync(file) && Date.now() < deadline; )
      await new Promise((resolve) => setTimeout(resolve, 50));
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.recentCommands).toEqual([
      expect.objectContaining({
        command: FAILING,
        exitCode: 3,
        note: 'Run the auth tests; output: FAIL auth.test.ts',
      }),
    ]);
  });

  it('session 2, a fresh start: the load tool result the model receives has the brief, with the edited file flagged', async () => {
    await saveAndEditBetweenSessions(CLI, project, env);
    const requests = await copilot('Resume the work');
    expectResumedThroughLoad(
      requests.map((request) => request.raw),
      'function_call_output',
    );
  });

  it('session 3, resumed: the brief arrives by itself, with the edited file flagged', async () => {
    const requests = await copilot('What next?', ['--continue']);
    const first = (requests[0] as LoggedRequest).raw;
    expect(first).toContain('Session checkpoint restored automatically after session resume');
    expect(first).toContain('re-read before editing: `src/util.ts`');
  });

  it('setup --uninstall gives mcp-config.json back byte for byte and removes its hooks file', async () => {
    const result = await checkpointCli(project, env, ['setup', 'copilot', '--uninstall']);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(copilotFile('mcp-config.json'), 'utf8')).toBe(mcpBefore);
    expect(existsSync(copilotFile('hooks', 'claude-checkpoint.json'))).toBe(false);
  });
});

/**
 * A project set up with `setup copilot --project` only (nothing in the user's Copilot folder): the
 * server comes from the project's .mcp.json, the hooks from .github/hooks. The stand-in answers at length
 * and Copilot CLI is told its model has a small window (COPILOT_PROVIDER_MAX_PROMPT_TOKENS), so that a
 * few prompts bring an automatic compaction, as a long session would.
 */
describe('a real Copilot CLI session in a project set up with `setup copilot --project`', () => {
  const LONG = 'lorem ipsum dolor sit amet '.repeat(2000);
  let longModel: FakeModel;
  let projectEnv: NodeJS.ProcessEnv;
  let root: string;

  beforeAll(async () => {
    longModel = await startFakeModel(
      (prompt) => (prompt.startsWith('Tell me more') ? [{ text: LONG }] : [{ text: 'Noted.' }]),
      { format: 'responses', latencyMs: 50 },
    );
    root = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
    projectEnv = {
      ...env,
      HOME: tempDir('copilot-home-'),
      COPILOT_PROVIDER_BASE_URL: `${longModel.url}/v1`,
      COPILOT_PROVIDER_MAX_PROMPT_TOKENS: '40000',
      CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    };
    const setup = await checkpointCli(root, projectEnv, ['setup', 'copilot', '--project']);
    expect(setup.code, setup.stderr).toBe(0);
    await checkpointCli(root, projectEnv, ['save', '--goal', 'Keep the goal through compaction']);
  });

  afterAll(async () => {
    await longModel?.close();
  });

  const ask = (prompt: string, resume: boolean) =>
    promptAgent(
      'copilot',
      { cwd: root, env: projectEnv, model: longModel },
      prompt,
      resume ? ['--continue'] : [],
    );

  it("the model is offered the tools from the project's .mcp.json", async () => {
    const [first] = await ask('Hello', false);
    const tools = ((first?.body?.tools ?? []) as Array<{ name?: string }>).map((tool) => tool.name);
    expect(tools).toContain('claude-checkpoint-load_session_checkpoint');
  });

  it('an automatic compaction (PreCompact) brings the brief back with the next prompt, that one only', async () => {
    const BROUGHT_BACK = 'restored automatically after the conversation was compacted';
    const count = (text = '') => text.split(BROUGHT_BACK).length - 1;
    // Three long answers fill the window: Copilot CLI compacts during the third turn.
    const turns: LoggedRequest[] = [];
    for (const turn of [1, 2, 3]) turns.push(...(await ask(`Tell me more (${turn})`, true)));
    expect(turns.map((request) => count(request.raw))).toEqual(turns.map(() => 0));
    const sessions = path.join(projectEnv.HOME ?? '', '.copilot', 'session-state');
    const events = () =>
      readdirSync(sessions)
        .map((id) => path.join(sessions, id, 'events.jsonl'))
        .filter((file) => existsSync(file))
        .map((file) => readFileSync(file, 'utf8'))
        .join('\n');
    const compactions = () => events().split('"session.compaction_start"').length - 1;
    const compactedBefore = compactions();
    expect(compactedBefore).toBeGreaterThan(0);
    // The PreCompact hook marks the brief due to the session in the project's store. Copilot CLI may end a turn while
    // that hook is still at work (CI, on a loaded machine, once asked the next prompt before the mark):
    // the next prompt after the mark is the one that brings the brief back. A hook that never marked it
    // fails here.
    const marks = (project: string) =>
      path.join(projectEnv.CHECKPOINT_STORE_DIR ?? '', 'projects', project, 'briefs-due');
    const marked = () =>
      readdirSync(path.join(projectEnv.CHECKPOINT_STORE_DIR ?? '', 'projects')).some(
        (project) => existsSync(marks(project)) && readdirSync(marks(project)).length > 0,
      );
    for (const deadline = Date.now() + 30_000; !marked() && Date.now() < deadline; )
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(marked()).toBe(true);
    const [next] = await ask('What next?', true);
    expect(count(next?.raw)).toBe(1);
    expect(next?.raw).toContain('Keep the goal through compaction');
    const [after] = await ask('And then?', true);
    // The window is small: Copilot CLI may compact again in these two turns, and then the brief is due again.
    const again = compactions() - compactedBefore;
    expect(count(after?.raw)).toBeLessThanOrEqual(1 + again);
  });
});

/**
 * Sessions whose scripted model keeps its todo list with Copilot CLI's `sql` tool, runs a command and
 * never calls the save tool: the Stop hook (agentStop) fills the checkpoint from the session's events
 * file, and the next session's model receives it.
 */
describe('a real Copilot CLI session whose model never saves', () => {
  const { token: TOKEN, prompt: PROMPT, status: STATUS } = NEVER_SAVES;
  const todoPlan: Plan = (prompt, callable) => {
    if (prompt === PROMPT)
      return [
        {
          tool: 'sql',
          input: {
            description: 'Insert todos',
            query:
              "INSERT INTO todos (id, title, description) VALUES ('route', 'Writing the route', 'GET /health'), ('test', 'Testing the route', 'a test'), ('docs', 'Documenting it', 'README');",
          },
        },
        {
          tool: 'sql',
          input: {
            description: 'Update todos',
            query:
              "UPDATE todos SET status = 'done' WHERE id = 'route'; UPDATE todos SET status = 'in_progress' WHERE id = 'test';",
          },
        },
        { tool: 'bash', input: { command: "echo 'health: 200'", description: 'Check the route' } },
        { text: STATUS },
      ];
    if (prompt === 'Start the OAuth work') {
      const save = [...callable].find((name) => name.endsWith('save_session_checkpoint'));
      return [
        ...(save ? [{ tool: save, input: { goal: 'Ship GitHub OAuth login' } }] : []),
        {
          tool: 'sql',
          input: {
            description: 'Insert todo',
            query: "INSERT INTO todos (id, title) VALUES ('cb', 'Callback route')",
          },
        },
        { text: 'Callback route started.' },
      ];
    }
    if (prompt === 'Where were we?') {
      const load = [...callable].find((name) => name.endsWith('load_session_checkpoint'));
      return load ? [{ tool: load, input: {} }, { text: 'Resumed.' }] : [{ text: 'No load tool offered.' }];
    }
    return [{ text: 'Noted.' }];
  };
  let todoModel: FakeModel;
  let todoEnv: NodeJS.ProcessEnv;
  let root: string;
  const ask = (dir: string, prompt: string) =>
    promptAgent('copilot', { cwd: dir, env: todoEnv, model: todoModel }, prompt);

  beforeAll(async () => {
    todoModel = await startFakeModel(todoPlan, { format: 'responses', latencyMs: 100 });
    root = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
    todoEnv = {
      ...env,
      HOME: tempDir('copilot-home-'),
      COPILOT_PROVIDER_BASE_URL: `${todoModel.url}/v1`,
      CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    };
    const setup = await checkpointCli(root, todoEnv, ['setup', 'copilot']);
    expect(setup.code, setup.stderr).toBe(0);
  });

  afterAll(async () => {
    await todoModel?.close();
  });

  it('the Stop hook records the goal, the todos with their statuses, the status and the command', async () => {
    await ask(root, PROMPT);
    const saved = stored(root);
    expectFilledFromTranscript(saved, ['Writing the route', 'Testing the route', 'Documenting it']);
    // The secret in the prompt reached neither the checkpoint nor our store.
    expectSecretNowhere(root, todoEnv.CHECKPOINT_STORE_DIR as string, TOKEN);
  });

  it('a new session: the model receives the goal, every task with its status and the status sentence', async () => {
    const requests = await ask(root, 'Where were we?');
    expectBriefFromTranscript(requests, ['Writing the route', 'Testing the route', 'Documenting it']);
  });

  it('a model that saved its own goal keeps it; the todos it wrote later fill the list it did not save', async () => {
    const other = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
    await ask(other, 'Start the OAuth work');
    const saved = stored(other);
    expect(saved.goal.primary).toBe('Ship GitHub OAuth login');
    expect(saved.goal.tasks).toEqual([{ description: 'Callback route', status: 'pending' }]);
    expect(saved.summary).toBe('Callback route started.');
    expect(saved.meta.derived.goal).toBeUndefined();
  });
});
