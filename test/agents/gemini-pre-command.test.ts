import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/agent-session.js';
import { repoRoot } from '../helpers/claude-code.js';
import { type FakeModel, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * A snapshot before a destructive shell command (issue 25) in a real Gemini CLI session, set up by
 * `claude-checkpoint setup gemini`: in one turn the scripted model writes a new file, appends to a tracked
 * one, then runs `rm -rf src`. Gemini CLI's BeforeTool hook takes the pre-command snapshot; restoring it
 * brings both back, which the prompt's snapshot alone would not.
 */

const GEMINI = path.join(repoRoot, '.cache/agents/gemini/node_modules/.bin/gemini');
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
  if (!existsSync(GEMINI))
    throw new Error('Gemini CLI is not installed: run `npm run test:agents`, which installs it first');
  model = await startFakeModel(
    (prompt) =>
      prompt === 'Start over without the sources'
        ? [
            { tool: 'write_file', input: { file_path: 'src/feature.ts', content: FEATURE } },
            { tool: 'write_file', input: { file_path: 'src/app.ts', content: APP_AFTER } },
            {
              tool: 'run_shell_command',
              input: { command: 'rm -rf src', description: 'Remove the sources' },
            },
            { tool: 'run_shell_command', input: { command: 'ls -la', description: 'Look around' } },
            { text: 'Removed.' },
          ]
        : [{ text: 'Noted.' }],
    { format: 'gemini', latencyMs: 100 },
  );
  const home = tempDir('gemini-home-');
  project = createRepo({ committed: { 'src/app.ts': 'v1\n', 'README.md': '# app\n' } });
  env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    GEMINI_API_KEY: 'fake-key-for-tests',
    GOOGLE_GEMINI_BASE_URL: model.url,
    GEMINI_CLI_NO_RELAUNCH: 'true',
    CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    // No hook host outlives the test.
    CHECKPOINT_HOOK_HOST: '0',
    NO_COLOR: '1',
  };
  mkdirSync(path.join(home, '.gemini'));
  writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    '{ "security": { "auth": { "selectedType": "gemini-api-key" } } }\n',
  );
  await cli('setup', 'gemini');
});

afterAll(async () => {
  await model?.close();
});

describe('a real Gemini CLI session: a snapshot before rm -rf', () => {
  it('setup adds the BeforeTool hook for the shell tool', () => {
    const settings = readFileSync(path.join(env.HOME ?? '', '.gemini', 'settings.json'), 'utf8');
    expect(settings).toMatch(/plugin\/dist\/hook\.cjs BeforeTool --agent gemini/);
  });

  it('the pre-command snapshot holds what the turn wrote, and restoring it brings it back', async () => {
    const result = await runProcess(
      GEMINI,
      ['-p', 'Start over without the sources', '--yolo', '--skip-trust'],
      { cwd: project, env, stdin: '' },
    );
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
