import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentEnv,
  BEFORE_RM,
  checkpointCli,
  expectLeftOutTurn,
  expectPreCommandRestore,
  LEFT_OUT_TURN,
  leftOutSteps,
  promptAgent,
  promptAgentRun,
  writeBigFile,
} from '../helpers/agent-cli.js';
import { type FakeModel, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * A snapshot before a destructive shell command (issue 25) in a real Gemini CLI session, set up by
 * `claude-checkpoint setup gemini`: in one turn the scripted model writes a new file, appends to a tracked
 * one, then runs `rm -rf src`. Gemini CLI's BeforeTool hook takes the pre-command snapshot; restoring it
 * brings both back, which the prompt's snapshot alone would not. Then the turn of LEFT_OUT_TURN: `rm big.bin`
 * of a file over the size cap runs, its snapshot holds it (an `"ask"` had Gemini CLI 0.61 wait for ever in
 * a non-interactive run), and the whole tree's warning reaches the person.
 */

const { feature: FEATURE, app: APP_AFTER } = BEFORE_RM;

let model: FakeModel;
let project: string;
let env: NodeJS.ProcessEnv;

const cli = async (...args: string[]) => {
  const result = await checkpointCli(project, env, args);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};

beforeAll(async () => {
  model = await startFakeModel(
    (prompt) =>
      prompt === LEFT_OUT_TURN.prompt
        ? leftOutSteps((command) => ({
            tool: 'run_shell_command',
            input: { command, description: 'Tidy up' },
          }))
        : prompt === 'Start over without the sources'
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
  // No hook host outlives the test.
  env = agentEnv('gemini', home, model, { CHECKPOINT_HOOK_HOST: '0', ...LEFT_OUT_TURN.env });
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
    await promptAgent('gemini', { cwd: project, env, model }, 'Start over without the sources');
    await expectPreCommandRestore(project, env);
  });

  it("`rm big.bin` of a file over the size cap runs, nothing hangs, and its snapshot brings it back; the whole tree's warning reaches the person", async () => {
    const big = writeBigFile(project);
    const run = await promptAgentRun('gemini', { cwd: project, env, model }, LEFT_OUT_TURN.prompt);
    // Gemini CLI gives a BeforeTool hook's additionalContext to nobody: the model hears nothing of it.
    await expectLeftOutTurn(project, env, run.requests, big, { warnedOfWholeTree: false });
    // The person: the hook's systemMessage before `git reset --hard`, on stderr in a non-interactive run;
    // nothing before `rm big.bin`, whose snapshot holds the file.
    expect(run.stderr).toContain(
      'Hook system message: ⚠ claude-checkpoint: the snapshot taken before this command does not hold `keep.bin`',
    );
    expect(run.stderr).not.toContain('`big.bin`');
  });
});
