import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/agent-session.js';
import { repoRoot } from '../helpers/claude-code.js';
import { type FakeModel, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * A snapshot before a destructive shell command (issue 25) in a real Copilot CLI session, set up by
 * `claude-checkpoint setup copilot`: in one turn the scripted model writes a new file and appends to a
 * tracked one through its shell tool, then runs `rm -rf src`. Copilot CLI's PreToolUse hook takes the
 * pre-command snapshot; restoring it brings both back, which the prompt's snapshot alone would not.
 * COPILOT_ALLOW_ALL=true trusts the folder in place of the user's answer.
 */

const COPILOT = path.join(repoRoot, '.cache/agents/copilot/node_modules/.bin/copilot');
const CLI = path.join(repoRoot, 'dist/cli.js');
const FEATURE = 'export const feature = true;\n';
const APP_AFTER = 'v1\nexport const more = 2;\n';

let model: FakeModel;
let project: string;
let env: NodeJS.ProcessEnv;

const cli = async (...args: string[]) => {
  const result = await runProcess(process.execPath, [CLI, ...args], { cwd: project, env, stdin: '' });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};

beforeAll(async () => {
  if (!existsSync(COPILOT))
    throw new Error('Copilot CLI is not installed: run `npm run test:agents`, which installs it first');
  model = await startFakeModel(
    (prompt) =>
      prompt === 'Start over without the sources'
        ? [
            {
              tool: 'bash',
              input: {
                command: `printf 'export const feature = true;\\n' > src/feature.ts && printf 'export const more = 2;\\n' >> src/app.ts`,
                description: 'Write the feature',
              },
            },
            { tool: 'bash', input: { command: 'rm -rf src', description: 'Remove the sources' } },
            { tool: 'bash', input: { command: 'ls -la', description: 'Look around' } },
            { text: 'Removed.' },
          ]
        : [{ text: 'Noted.' }],
    { format: 'responses', latencyMs: 100 },
  );
  const home = tempDir('copilot-home-');
  project = createRepo({ committed: { 'src/app.ts': 'v1\n', 'README.md': '# app\n' } });
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
    // No hook host outlives the test.
    CHECKPOINT_HOOK_HOST: '0',
    NO_COLOR: '1',
  };
  await cli('setup', 'copilot');
});

afterAll(async () => {
  await model?.close();
});

describe('a real Copilot CLI session: a snapshot before rm -rf', () => {
  it('setup adds the PreToolUse hook', () => {
    const hooks = readFileSync(
      path.join(env.HOME ?? '', '.copilot', 'hooks', 'claude-checkpoint.json'),
      'utf8',
    );
    expect(hooks).toMatch(/plugin\/dist\/hook\.cjs PreToolUse --agent copilot/);
  });

  it('the pre-command snapshot holds what the turn wrote, and restoring it brings it back', async () => {
    const result = await runProcess(COPILOT, ['-p', 'Start over without the sources'], { cwd: project, env });
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    // The command ran: the hook never stops it.
    expect(existsSync(path.join(project, 'src'))).toBe(false);

    const { snapshots } = JSON.parse(await cli('list', '--json')) as {
      snapshots: Array<{ id: string; trigger: string; label?: string }>;
    };
    // One before rm -rf; none before the harmless ls; one where the turn ended.
    expect(snapshots.map((snapshot) => snapshot.trigger)).toEqual(['turn-end', 'pre-command', 'prompt']);
    const [, before, prompt] = snapshots;
    expect(before).toMatchObject({ label: 'rm -rf src' });

    await cli('restore', before?.id ?? '', '--yes');
    expect(readFileSync(path.join(project, 'src', 'feature.ts'), 'utf8')).toBe(FEATURE);
    expect(readFileSync(path.join(project, 'src', 'app.ts'), 'utf8')).toBe(APP_AFTER);

    // The prompt's snapshot, taken before the turn wrote them, would not have brought them back.
    await cli('restore', prompt?.id ?? '', '--yes');
    expect(existsSync(path.join(project, 'src', 'feature.ts'))).toBe(false);
    expect(readFileSync(path.join(project, 'src', 'app.ts'), 'utf8')).toBe('v1\n');
  });
});
