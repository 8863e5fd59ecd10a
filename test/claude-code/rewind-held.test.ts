import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEFT_OUT_TURN, writeBigFile } from '../helpers/agent-cli.js';
import { pluginSessionSetup, repoRoot, runClaude, runNode } from '../helpers/claude-code.js';
import type { FakeModel, Plan } from '../helpers/fake-model.js';

/**
 * Helper task "held": a real Claude Code session with the plugin, whose turn runs `rm big.bin` of a file
 * over the size cap. `rewind` to that turn's prompt brings `big.bin` back itself, from the pre-command
 * snapshot that held it, in its plan first; its undo removes it again.
 */

let model: FakeModel;
let project = '';
let env: NodeJS.ProcessEnv;

const plan: Plan = (prompt) =>
  prompt === 'Remove the big file'
    ? [{ tool: 'Bash', input: { command: 'rm big.bin', description: 'Remove' } }, { text: 'Removed.' }]
    : [{ text: 'Noted.' }];

const cli = (...args: string[]) =>
  runNode([path.join(repoRoot, 'plugin/dist/cli.mjs'), ...args], project, env);

beforeAll(async () => {
  ({ model, project, env } = await pluginSessionSetup(plan, { 'src/app.ts': 'export const app = 1;\n' }));
  env = { ...env, ...LEFT_OUT_TURN.env };
});

afterAll(async () => {
  await model?.close();
});

describe('rewind after `rm big.bin` in a real Claude Code session', () => {
  it('brings big.bin back from the pre-command snapshot of the turn, and its undo removes it again', async () => {
    const big = writeBigFile(project);
    const run = await runClaude(['-p', 'Remove the big file', '--allowedTools', 'Bash'], {
      cwd: project,
      env,
    });
    expect(run.code, `claude exited ${run.code}: ${run.stderr}${run.stdout.slice(-2000)}`).toBe(0);
    expect(existsSync(path.join(project, 'big.bin'))).toBe(false);
    const { snapshots } = JSON.parse(await cli('list', '--json')) as {
      snapshots: Array<{ id: string; trigger: string; label?: string }>;
    };
    const held = snapshots.find((snapshot) => snapshot.label === 'rm big.bin');
    expect(held, JSON.stringify(snapshots)).toBeDefined();

    const planned = JSON.parse(await cli('rewind', 'latest', '--code', '--dry-run', '--json'));
    expect(planned.entry.prompt).toBe('Remove the big file');
    expect(planned.code.plan.create).toEqual(['big.bin']);
    expect(planned.code.fromPreCommand).toEqual([{ path: 'big.bin', snapshotId: held?.id }]);

    const done = await cli('rewind', 'latest', '--code', '--yes');
    expect(done).toContain(`came back from pre-command snapshot ${held?.id}`);
    expect(readFileSync(path.join(project, 'big.bin')).equals(big)).toBe(true);
    const undo = /To undo: claude-checkpoint restore (\S+) --yes/.exec(done)?.[1];
    await cli('restore', undo ?? '', '--yes');
    expect(existsSync(path.join(project, 'big.bin'))).toBe(false);
  });
});
