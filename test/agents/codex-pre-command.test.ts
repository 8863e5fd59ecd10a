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
 * in the turn of LEFT_OUT_TURN: Codex 0.169 has no "ask" for a PreToolUse hook (it ran `rm big.bin`, and
 * `codex exec` showed our systemMessage to nobody), so a command that names a file no snapshot holds is
 * held with a denial whose reason the model receives; the whole tree's warning reaches it as
 * additionalContext.
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

describe('a real Codex session: a command naming a file no snapshot holds', () => {
  it('is held: the model is told why and how to go ahead; the command that says the user agreed runs', async () => {
    writeBigFile(project);
    const run = await promptAgentRun('codex', { cwd: project, env, model }, LEFT_OUT_TURN.prompt);
    const received = expectLeftOutTurn(project, run.requests, { warnedOfWholeTree: true });
    expect(received).toContain('Command blocked by PreToolUse hook: claude-checkpoint held this command');
    // The person: `codex exec` logs the denial on stderr (a systemMessage it shows nowhere).
    expect(run.stderr).toContain('Command blocked by PreToolUse hook: claude-checkpoint held this command');
  });
});
