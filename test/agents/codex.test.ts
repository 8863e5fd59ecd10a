import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentEnv,
  CHECKPOINT_CLI as CLI,
  checkpointCli,
  codexProviderConfig,
  promptAgent,
} from '../helpers/agent-cli.js';
import {
  expectResumedThroughLoad,
  FAILING,
  saveAndEditBetweenSessions,
  sessionPlan,
} from '../helpers/agent-session.js';
import { type FakeModel, type LoggedRequest, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * Real Codex sessions (`codex exec`), set up by `claude-checkpoint setup codex` in a throwaway HOME,
 * driven by a scripted stand-in for the Responses API. Codex runs hooks only once the user has reviewed
 * them in its /hooks screen; these sessions pass --dangerously-bypass-hook-trust in place of that review.
 */

const plan = sessionPlan({ tool: 'exec_command', input: { cmd: FAILING } });

let model: FakeModel;
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;
let configBefore: string;
const codexFile = (name: string) => path.join(home, '.codex', name);

const codex = (prompt: string, extra: string[] = []) =>
  promptAgent('codex', { cwd: project, env, model }, prompt, extra);

beforeAll(async () => {
  model = await startFakeModel(plan, { format: 'responses', latencyMs: 200 });
  // Not under /tmp: Codex refuses to put its helper binaries in a temporary folder.
  home = tempDir('codex-home-');
  project = createRepo({ committed: { 'src/app.ts': 'v1\n', 'src/util.ts': 'u1\n' } });
  env = agentEnv('codex', home, model);
  // The user's own config: a model provider (our stand-in) and a server of theirs, which setup must keep.
  mkdirSync(path.join(home, '.codex'));
  configBefore = `# mine
${codexProviderConfig(
  model,
  // The checkpoint server starts with the session: wait for it under load, so its tools are offered.
  'mcp_optional_startup_grace_ms = 20000\n',
  '\n[mcp_servers.other]\ncommand = "true"\n',
)}`;
  writeFileSync(codexFile('config.toml'), configBefore);
  const setup = await checkpointCli(project, env, ['setup', 'codex']);
  expect(setup.code, setup.stderr).toBe(0);
  expect(setup.stdout).toContain('open /hooks and approve the claude-checkpoint hooks');
});

afterAll(async () => {
  await model?.close();
});

describe('a real Codex session, set up by `setup codex`, with a scripted model', () => {
  it('session 1: the prompt is snapshotted, and the failing command is recorded with its exit code (from the transcript)', async () => {
    await codex('Run the auth tests');
    const list = await checkpointCli(project, env, ['list', '--json']);
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
    const result = await checkpointCli(project, env, ['setup', 'codex', '--uninstall']);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(codexFile('config.toml'), 'utf8')).toBe(configBefore);
    expect(existsSync(codexFile('hooks.json'))).toBe(false);
  });
});
