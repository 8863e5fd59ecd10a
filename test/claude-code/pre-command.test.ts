import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectLeftOutTurn, LEFT_OUT_TURN, leftOutSteps, writeBigFile } from '../helpers/agent-cli.js';
import { pluginSessionSetup, repoRoot, runClaude, runNode } from '../helpers/claude-code.js';
import type { FakeModel, Plan } from '../helpers/fake-model.js';

/**
 * A real Claude Code session with the plugin: the model writes a file and appends to a tracked one, then
 * runs `rm -rf src`, all in one turn. The PreToolUse hook's snapshot, taken just before the command, is
 * what brings that work back: the prompt's snapshot, taken before any of it, cannot. Then the turn of
 * LEFT_OUT_TURN: `rm big.bin` of a file over the size cap runs (an `"ask"` was declined in print mode), and
 * its snapshot brings the file back.
 */

const FEATURE = 'export const feature = true;\n';
const APPENDED = 'export const more = 2;\n';

let model: FakeModel;
let project = '';
let env: NodeJS.ProcessEnv;

const plan: Plan = (prompt) => {
  if (prompt === 'Add the feature, then start over')
    return [
      { tool: 'Write', input: { file_path: path.join(project, 'src', 'feature.ts'), content: FEATURE } },
      {
        tool: 'Bash',
        input: { command: `printf '%s\\n' 'export const more = 2;' >> src/app.ts`, description: 'Append' },
      },
      { tool: 'Bash', input: { command: 'rm -rf src', description: 'Start over' } },
      { text: 'Removed src.' },
    ];
  if (prompt === 'Tweak the app, then throw the tweak away')
    return [
      {
        tool: 'Bash',
        input: { command: `printf '%s\\n' 'export const tweak = 3;' >> src/app.ts`, description: 'Tweak' },
      },
      { tool: 'Bash', input: { command: 'git checkout -- .', description: 'Discard' } },
      { text: 'Discarded.' },
    ];
  if (prompt === LEFT_OUT_TURN.prompt)
    return leftOutSteps((command) => ({
      tool: 'Bash',
      input: { command, description: 'Tidy up' },
    }));
  if (prompt === 'Look around')
    return [
      { tool: 'Bash', input: { command: 'ls -la > listing.txt && git status', description: 'Look' } },
      {
        tool: 'Bash',
        input: { command: 'echo rm -rf src; grep -rn "reset --hard" . || true', description: 'Grep' },
      },
      { text: 'Looked.' },
    ];
  return [{ text: 'Noted.' }];
};

interface Listed {
  id: string;
  trigger: string;
  label?: string;
}
const cli = (...args: string[]) =>
  runNode([path.join(repoRoot, 'plugin/dist/cli.mjs'), ...args], project, env);
const snapshots = async (): Promise<Listed[]> => JSON.parse(await cli('list', '--json')).snapshots;

async function turn(prompt: string) {
  const run = await runClaude(['-p', prompt, '--allowedTools', 'Write Bash'], { cwd: project, env });
  expect(run.code, `claude exited ${run.code}: ${run.stderr}${run.stdout.slice(-2000)}`).toBe(0);
  return run;
}

beforeAll(async () => {
  ({ model, project, env } = await pluginSessionSetup(plan, { 'src/app.ts': 'export const app = 1;\n' }));
  env = { ...env, ...LEFT_OUT_TURN.env };
});

afterAll(async () => {
  await model?.close();
});

describe('a snapshot before a destructive command, in a real Claude Code session', () => {
  it('rm -rf src in the same turn as the work: the pre-command snapshot brings it back, the prompt snapshot cannot', async () => {
    await turn('Add the feature, then start over');
    expect(existsSync(path.join(project, 'src'))).toBe(false);
    const listed = await snapshots();
    // One for the prompt, one before `rm -rf src`, one at the end of the turn (Stop); the appending command (>>) took none.
    expect(listed.map(({ trigger, label }) => ({ trigger, label }))).toEqual([
      { trigger: 'turn-end', label: undefined },
      { trigger: 'pre-command', label: 'rm -rf src' },
      { trigger: 'prompt', label: 'Add the feature, then start over' },
    ]);
    const [, preCommand, prompt] = listed as [Listed, Listed, Listed];

    await cli('restore', prompt.id, '--yes');
    expect(existsSync(path.join(project, 'src', 'feature.ts'))).toBe(false);
    expect(readFileSync(path.join(project, 'src', 'app.ts'), 'utf8')).toBe('export const app = 1;\n');

    await cli('restore', preCommand.id, '--yes');
    expect(readFileSync(path.join(project, 'src', 'feature.ts'), 'utf8')).toBe(FEATURE);
    expect(readFileSync(path.join(project, 'src', 'app.ts'), 'utf8')).toBe(
      `export const app = 1;\n${APPENDED}`,
    );
  });

  it('git checkout -- . in the same turn as an edit: the pre-command snapshot holds the edit', async () => {
    await turn('Tweak the app, then throw the tweak away');
    const app = path.join(project, 'src', 'app.ts');
    expect(readFileSync(app, 'utf8')).toBe('export const app = 1;\n');
    const [end, preCommand, prompt] = (await snapshots()) as [Listed, Listed, Listed];
    expect(end).toMatchObject({ trigger: 'turn-end' });
    expect(preCommand).toMatchObject({ trigger: 'pre-command', label: 'git checkout -- .' });
    expect(prompt).toMatchObject({ trigger: 'prompt', label: 'Tweak the app, then throw the tweak away' });
    await cli('restore', preCommand.id, '--yes');
    expect(readFileSync(app, 'utf8')).toBe(`export const app = 1;\n${APPENDED}export const tweak = 3;\n`);
  });

  it('a session of harmless commands and look-alikes takes no pre-command snapshot', async () => {
    const before = (await snapshots()).filter((snapshot) => snapshot.trigger === 'pre-command').length;
    await turn('Look around');
    const after = (await snapshots()).filter((snapshot) => snapshot.trigger === 'pre-command').length;
    expect(after).toBe(before);
    // The commands did run: a new file written with > is no loss.
    expect(existsSync(path.join(project, 'listing.txt'))).toBe(true);
  });

  it("`rm big.bin` of a file over the size cap runs in print mode, and its snapshot brings it back; the whole tree's warning reaches the model", async () => {
    const big = writeBigFile(project);
    const before = model.requests.length;
    const run = await turn(LEFT_OUT_TURN.prompt);
    const turns = model.requests
      .slice(before)
      .filter((request) => request.url.startsWith('/v1/messages?') || request.url === '/v1/messages');
    await expectLeftOutTurn(project, env, turns, big, { warnedOfWholeTree: true });
    // The person, in print mode's text output: only the model's answer (the systemMessage is not printed).
    expect(run.stdout).toBe('Tidied.\n');
  });
});
