import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentEnv,
  checkpointCli,
  codexProviderConfig,
  expectLeftOutTurn,
  LEFT_OUT_TURN,
  leftOutSteps,
  promptAgentRun,
  writeBigFile,
} from '../helpers/agent-cli.js';
import { type FakeModel, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * The pre-command hook in a real Codex session (`codex exec`, set up by `claude-checkpoint setup codex`),
 * in the turn of LEFT_OUT_TURN: `rm big.bin` of a file over the size cap runs and its snapshot holds it
 * (the hook never denies); the whole tree's warning reaches the model as additionalContext, which Codex
 * 0.169 honours on PreToolUse (its systemMessage `codex exec` shows nowhere).
 */

let model: FakeModel;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  model = await startFakeModel(
    (prompt) =>
      prompt === LEFT_OUT_TURN.prompt
        ? leftOutSteps((cmd) => ({ tool: 'exec_command', input: { cmd } }))
        : [{ text: 'Noted.' }],
    { format: 'responses', latencyMs: 100 },
  );
  const home = tempDir('codex-home-');
  project = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
  // No hook host outlives the test.
  env = agentEnv('codex', home, model, { CHECKPOINT_HOOK_HOST: '0', ...LEFT_OUT_TURN.env });
  mkdirSync(path.join(home, '.codex'));
  writeFileSync(path.join(home, '.codex', 'config.toml'), codexProviderConfig(model));
  const setup = await checkpointCli(project, env, ['setup', 'codex']);
  expect(setup.code, setup.stderr).toBe(0);
});

afterAll(async () => {
  await model?.close();
});

describe('a real Codex session: a command naming a file over the size cap', () => {
  it("runs, and its snapshot brings the file back; the whole tree's warning reaches the model", async () => {
    const big = writeBigFile(project);
    const run = await promptAgentRun('codex', { cwd: project, env, model }, LEFT_OUT_TURN.prompt);
    await expectLeftOutTurn(project, env, run.requests, big, { warnedOfWholeTree: true });
    // The person: `codex exec` shows a PreToolUse hook's systemMessage nowhere.
    expect(run.stderr).not.toContain('claude-checkpoint');
  });
});
