import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
 * Real Codex sessions (`codex exec`), set up by `claude-checkpoint setup codex` in a throwaway HOME,
 * driven by a scripted stand-in for the Responses API. Codex runs hooks only once the user has reviewed
 * them in its /hooks screen; these sessions pass --dangerously-bypass-hook-trust in place of that review.
 */

const CODEX = path.join(repoRoot, '.cache/agents/codex/node_modules/.bin/codex');
const CLI = path.join(repoRoot, 'dist/cli.js');

const plan = sessionPlan({ tool: 'exec_command', input: { cmd: FAILING } });

let model: FakeModel;
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;
let configBefore: string;
const codexFile = (name: string) => path.join(home, '.codex', name);

async function codex(prompt: string, extra: string[] = []) {
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
    { cwd: project, env },
  );
  expect(result.code, `codex exited ${result.code}: ${result.stderr.slice(-2000)}`).toBe(0);
  return model.requests.slice(before).filter((request) => request.url.includes('/responses'));
}

beforeAll(async () => {
  if (!existsSync(CODEX))
    throw new Error('Codex is not installed: run `npm run test:agents`, which installs it first');
  model = await startFakeModel(plan, { format: 'responses', latencyMs: 200 });
  // Not under /tmp: Codex refuses to put its helper binaries in a temporary folder.
  home = tempDir('codex-home-');
  project = createRepo({ committed: { 'src/app.ts': 'v1\n', 'src/util.ts': 'u1\n' } });
  env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    FAKE_MODEL_KEY: 'fake-key-for-tests',
    CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    NO_COLOR: '1',
  };
  // The user's own config: a model provider (our stand-in) and a server of theirs, which setup must keep.
  mkdirSync(path.join(home, '.codex'));
  configBefore = `# mine
model = "fake-model"
model_provider = "fake"
# The checkpoint server starts with the session: wait for it under load, so its tools are offered.
mcp_optional_startup_grace_ms = 20000

[model_providers.fake]
name = "fake"
base_url = "${model.url}/v1"
wire_api = "responses"
env_key = "FAKE_MODEL_KEY"

[mcp_servers.other]
command = "true"
`;
  writeFileSync(codexFile('config.toml'), configBefore);
  const setup = await runProcess(process.execPath, [CLI, 'setup', 'codex'], { cwd: project, env });
  expect(setup.code, setup.stderr).toBe(0);
  expect(setup.stdout).toContain('open /hooks and approve the claude-checkpoint hooks');
});

afterAll(async () => {
  await model?.close();
});

describe('a real Codex session, set up by `setup codex`, with a scripted model', () => {
  it('session 1: the prompt is snapshotted, and the failing command is recorded with its exit code (from the transcript)', async () => {
    await codex('Run the auth tests');
    const list = await runProcess(process.execPath, [CLI, 'list', '--json'], { cwd: project, env });
    expect(JSON.parse(list.stdout).snapshots).toEqual(
      expect.arrayContaining([expect.objectContaining({ trigger: 'prompt', label: 'Run the auth tests' })]),
    );
    const saved = JSON.parse(readFileSync(path.join(project, '.claude-checkpoint'), 'utf8'));
    expect(saved.recentCommands).toEqual([
      expect.objectContaining({ command: FAILING, exitCode: 3, note: 'output: FAIL auth.test.ts' }),
    ]);
  });

  it('session 2, a fresh start: the load tool result the model receives has the brief, with the edited file flagged', async () => {
    await saveAndEditBetweenSessions(CLI, project, env);
    const requests = await codex('Resume the work');
    expectResumedThroughLoad(
      requests.map((request) => request.raw),
      'function_call_output',
    );
  });

  it('session 3, resumed: the brief arrives by itself, with the edited file flagged', async () => {
    const requests = await codex('What next?', ['resume', '--last']);
    const first = (requests[0] as LoggedRequest).raw;
    expect(first).toContain('Session checkpoint restored automatically after session resume');
    expect(first).toContain('re-read before editing: `src/util.ts`');
  });

  it('setup --uninstall gives config.toml back byte for byte and removes the hooks file it created', async () => {
    const result = await runProcess(process.execPath, [CLI, 'setup', 'codex', '--uninstall'], {
      cwd: project,
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(codexFile('config.toml'), 'utf8')).toBe(configBefore);
    expect(existsSync(codexFile('hooks.json'))).toBe(false);
  });
});
