import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectResumedThroughLoad,
  FAILING,
  runProcess,
  saveAndEditBetweenSessions,
  sessionPlan,
} from '../helpers/agent-session.js';
import { repoRoot } from '../helpers/claude-code.js';
import { type FakeModel, type LoggedRequest, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * Real Copilot CLI sessions (`copilot -p`, offline, with a custom provider), set up by `claude-checkpoint
 * setup copilot` in a throwaway HOME, driven by a scripted stand-in for the Responses API. Copilot CLI runs
 * hooks and MCP servers only in a trusted folder; these sessions set COPILOT_ALLOW_ALL=true, which trusts
 * the folder, in place of the user's answer.
 */

const COPILOT = path.join(repoRoot, '.cache/agents/copilot/node_modules/.bin/copilot');
const CLI = path.join(repoRoot, 'dist/cli.js');

const plan = sessionPlan({ tool: 'bash', input: { command: FAILING, description: 'Run the auth tests' } });

let model: FakeModel;
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;
let mcpBefore: string;
const copilotFile = (...parts: string[]) => path.join(home, '.copilot', ...parts);

async function copilot(prompt: string, extra: string[] = []) {
  const before = model.requests.length;
  const result = await runProcess(COPILOT, [...extra, '-p', prompt], { cwd: project, env });
  expect(result.code, `copilot exited ${result.code}: ${result.stderr.slice(-2000)}`).toBe(0);
  return model.requests.slice(before).filter((request) => request.url.includes('/responses'));
}

beforeAll(async () => {
  if (!existsSync(COPILOT))
    throw new Error('Copilot CLI is not installed: run `npm run test:agents`, which installs it first');
  model = await startFakeModel(plan, { format: 'responses', latencyMs: 200 });
  home = tempDir('copilot-home-');
  project = createRepo({ committed: { 'src/app.ts': 'v1\n', 'src/util.ts': 'u1\n' } });
  env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `${model.url}/v1`,
    COPILOT_PROVIDER_WIRE_API: 'responses',
    COPILOT_PROVIDER_API_KEY: 'fake-key-for-tests',
    COPILOT_MODEL: 'fake-model',
    COPILOT_ALLOW_ALL: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    NO_COLOR: '1',
  };
  // The user's own MCP servers, which setup must keep.
  mkdirSync(copilotFile(), { recursive: true });
  mcpBefore =
    '{\n  "mcpServers": {\n    "other": { "type": "local", "command": "true", "args": [], "tools": ["*"] }\n  }\n}\n';
  writeFileSync(copilotFile('mcp-config.json'), mcpBefore);
  const setup = await runProcess(process.execPath, [CLI, 'setup', 'copilot'], { cwd: project, env });
  expect(setup.code, setup.stderr).toBe(0);
  expect(setup.stdout).toContain('Copilot CLI runs hooks and MCP servers only in a folder you trust');
});

afterAll(async () => {
  await model?.close();
});

describe('a real Copilot CLI session, set up by `setup copilot`, with a scripted model', () => {
  it('session 1: the prompt is snapshotted, and the failing command is recorded with its exit code (from the result text)', async () => {
    await copilot('Run the auth tests');
    const list = await runProcess(process.execPath, [CLI, 'list', '--json'], { cwd: project, env });
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
    const result = await runProcess(process.execPath, [CLI, 'setup', 'copilot', '--uninstall'], {
      cwd: project,
      env,
    });
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
    const setup = await runProcess(process.execPath, [CLI, 'setup', 'copilot', '--project'], {
      cwd: root,
      env: projectEnv,
    });
    expect(setup.code, setup.stderr).toBe(0);
    await runProcess(process.execPath, [CLI, 'save', '--goal', 'Keep the goal through compaction'], {
      cwd: root,
      env: projectEnv,
    });
  });

  afterAll(async () => {
    await longModel?.close();
  });

  const ask = async (prompt: string, resume: boolean) => {
    const before = longModel.requests.length;
    const result = await runProcess(COPILOT, [...(resume ? ['--continue'] : []), '-p', prompt], {
      cwd: root,
      env: projectEnv,
    });
    expect(result.code, `copilot exited ${result.code}: ${result.stderr.slice(-2000)}`).toBe(0);
    return longModel.requests.slice(before).filter((request) => request.url.includes('/responses'));
  };

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
    const [next] = await ask('What next?', true);
    expect(count(next?.raw)).toBe(1);
    expect(next?.raw).toContain('Keep the goal through compaction');
    const [after] = await ask('And then?', true);
    // The window is small: Copilot CLI may compact again in these two turns, and then the brief is due again.
    const again = compactions() - compactedBefore;
    expect(count(after?.raw)).toBeLessThanOrEqual(1 + again);
  });
});
