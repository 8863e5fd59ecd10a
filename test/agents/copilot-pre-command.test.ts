import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentEnv,
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
 * A snapshot before a destructive shell command (issue 25) in a real Copilot CLI session, set up by
 * `claude-checkpoint setup copilot`: in one turn the scripted model writes a new file and appends to a
 * tracked one through its shell tool, then runs `rm -rf src`. Copilot CLI's PreToolUse hook takes the
 * pre-command snapshot; restoring it brings both back, which the prompt's snapshot alone would not.
 * COPILOT_ALLOW_ALL=true trusts the folder in place of the user's answer. Then the turn of LEFT_OUT_TURN:
 * `rm big.bin` of a file over the size cap runs and its snapshot holds it (an `"ask"` was denied in print
 * mode); the whole tree's warning reaches the model as additionalContext.
 */

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
            tool: 'bash',
            input: { command, description: 'Tidy up' },
          }))
        : prompt === 'Start over without the sources'
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
  // No hook host outlives the test.
  env = agentEnv('copilot', home, model, { CHECKPOINT_HOOK_HOST: '0', ...LEFT_OUT_TURN.env });
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
    await promptAgent('copilot', { cwd: project, env, model }, 'Start over without the sources');
    await expectPreCommandRestore(project, env);
  });

  it("`rm big.bin` of a file over the size cap runs, and its snapshot brings it back; the whole tree's warning reaches the model", async () => {
    const big = writeBigFile(project);
    const run = await promptAgentRun('copilot', { cwd: project, env, model }, LEFT_OUT_TURN.prompt);
    await expectLeftOutTurn(project, env, run.requests, big, { warnedOfWholeTree: true });
    // The person: Copilot CLI has no field for a hook's message to the user; nothing was denied.
    expect(run.stdout).not.toContain('Denied by preToolUse hook');
  });
});
