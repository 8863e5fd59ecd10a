import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentEnv, CHECKPOINT_CLI as CLI, checkpointCli, promptAgent } from '../helpers/agent-cli.js';
import {
  expectResumedThroughLoad,
  FAILING,
  saveAndEditBetweenSessions,
  sessionPlan,
} from '../helpers/agent-session.js';
import { type FakeModel, type LoggedRequest, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * Real Gemini CLI sessions, set up by `claude-checkpoint setup gemini` in a throwaway HOME, driven by a
 * scripted stand-in for the Gemini API. Assertions are on what the model received and what is on disk.
 */

// Gemini CLI offers the MCP tool as mcp_claude-checkpoint_load_session_checkpoint.
const plan = sessionPlan({
  tool: 'run_shell_command',
  input: { command: FAILING, description: 'Run the auth tests' },
});

const received = (request: LoggedRequest) => request.raw;

let model: FakeModel;
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;
let settingsBefore: string;
const settingsFile = () => path.join(home, '.gemini', 'settings.json');

const gemini = (prompt: string, extra: string[] = []) =>
  promptAgent('gemini', { cwd: project, env, model }, prompt, extra);

beforeAll(async () => {
  model = await startFakeModel(plan, { format: 'gemini', latencyMs: 200 });
  home = tempDir('gemini-home-');
  project = createRepo({ committed: { 'src/app.ts': 'v1\n', 'src/util.ts': 'u1\n' } });
  env = agentEnv('gemini', home, model);
  // A user's existing settings, with a server and a hook of their own, which setup must keep.
  mkdirSync(path.join(home, '.gemini'));
  settingsBefore = `{
  // mine
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "mcpServers": { "other": { "command": "other-server" } },
  "hooks": { "AfterTool": [{ "matcher": "write_file", "hooks": [{ "type": "command", "command": "true" }] }] }
}
`;
  writeFileSync(settingsFile(), settingsBefore);
  const setup = await checkpointCli(project, env, ['setup', 'gemini']);
  expect(setup.code, setup.stderr).toBe(0);
});

afterAll(async () => {
  await model?.close();
});

describe('a real Gemini CLI session, set up by `setup gemini`, with a scripted model', () => {
  it("setup keeps the user's own settings and comments, and adds the server and its hooks", () => {
    const settings = readFileSync(settingsFile(), 'utf8');
    expect(settings).toContain('// mine');
    expect(settings).toContain('"other-server"');
    expect(settings).toContain('"matcher": "write_file"');
    for (const event of [
      'SessionStart',
      'BeforeAgent',
      'PreCompress',
      'AfterTool',
      'AfterAgent',
      'SessionEnd',
    ])
      expect(settings).toMatch(new RegExp(`plugin\\/dist\\/hook\\.cjs ${event} --agent gemini`));
  });

  it('session 1: the prompt is snapshotted, and the failing shell command is recorded with its exit code', async () => {
    await gemini('Run the auth tests');
    const list = await checkpointCli(project, env, ['list', '--json']);
    expect(JSON.parse(list.stdout).snapshots).toEqual(
      expect.arrayContaining([expect.objectContaining({ trigger: 'prompt', label: 'Run the auth tests' })]),
    );
    const saved = JSON.parse(readFileSync(path.join(project, '.claude-checkpoint'), 'utf8'));
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
    const requests = await gemini('Resume the work');
    expectResumedThroughLoad(requests.map(received), 'functionResponse');
  });

  it('session 3, resumed: the brief arrives by itself, with the edited file flagged', async () => {
    const requests = await gemini('What next?', ['--resume', 'latest']);
    const first = received(requests[0] as LoggedRequest);
    expect(first).toContain('Session checkpoint restored automatically after session resume');
    expect(first).toContain('re-read before editing: `src/util.ts`');
  });

  it('setup --uninstall gives the settings back byte for byte', async () => {
    const result = await checkpointCli(project, env, ['setup', 'gemini', '--uninstall']);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(settingsFile(), 'utf8')).toBe(settingsBefore);
  });
});
