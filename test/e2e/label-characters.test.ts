import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { connect } from '../helpers/mcp.js';

beforeAll(assertBuilt);

// New-user trial (issue 26): a label was cut at 200 UTF-16 units, inside an emoji's surrogate pair (stored
// as a lone \ud83d, printed as U+FFFD), and the CLI counted units where the MCP tool counted characters:
// `snapshot --label <150 emoji>` was refused "(got 300)", snapshot_files took 200 emoji and kept 100.
const EMOJI = '😀';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function project() {
  const root = createRepo({ committed: { 'a.txt': 'one\n' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  const cli = (args: string[], input?: string) =>
    runCli(args, { cwd: root, env, ...(input === undefined ? {} : { input }) });
  const labels = async () => {
    const listed = await cli(['list', '--json']);
    expect(listed.code).toBe(0);
    return (JSON.parse(listed.stdout).snapshots as { label?: string }[]).map((snapshot) => snapshot.label);
  };
  return { root, env, cli, labels };
}

describe('snapshot labels count characters, and are never cut inside one', { timeout: 60_000 }, () => {
  it('the prompt hook: a first line of 199 x then an emoji keeps the emoji whole, and nothing after it', async () => {
    const { root, cli, labels } = project();
    const input = {
      session_id: 's1',
      cwd: root,
      hook_event_name: 'UserPromptSubmit',
      prompt: `${'x'.repeat(199)}${EMOJI} and more`,
    };
    expect((await cli(['hook', 'UserPromptSubmit'], JSON.stringify(input))).code).toBe(0);
    const [label] = await labels();
    expect(label).toBe(`${'x'.repeat(199)}${EMOJI}`);
    const listed = await cli(['list']);
    expect(listed.stdout).not.toContain('\ufffd');
    expect(listed.stdout).toContain(`x${EMOJI}`);
  });

  it('the pre-command hook: a destructive command of emoji is cut at 200 characters, no half of one', async () => {
    const { root, cli, labels } = project();
    const command = `rm -rf ${EMOJI.repeat(300)}`;
    const input = {
      session_id: 's1',
      cwd: root,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command },
    };
    expect((await cli(['hook', 'PreToolUse'], JSON.stringify(input))).code).toBe(0);
    const [label] = await labels();
    expect(label).toBe(`rm -rf ${EMOJI.repeat(193)}`);
    expect(label).not.toMatch(LONE_SURROGATE);
  });

  it('CLI: 150 emoji are 150 characters, kept whole; 201 are refused, counted in characters', async () => {
    const { cli, labels } = project();
    const taken = await cli(['snapshot', '--label', EMOJI.repeat(150)]);
    expect(taken.stderr).toBe('');
    expect(taken.code).toBe(0);
    expect(await labels()).toEqual([EMOJI.repeat(150)]);
    const refused = await cli(['snapshot', '--label', EMOJI.repeat(201)]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--label: must be at most 200 characters (got 201)');
  });

  it('MCP snapshot_files: "a" and 100 emoji, and 200 emoji, kept whole; 201 refused with the count in characters', async () => {
    const { root } = project();
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } } });
    const kept: unknown[] = [];
    for (const label of [`a${EMOJI.repeat(100)}`, EMOJI.repeat(200)]) {
      // A changed tree each time: an unchanged one reuses the latest snapshot, and its label.
      writeFileSync(path.join(root, 'a.txt'), label);
      const taken = await call('snapshot_files', { projectRoot: root, label });
      expect(taken.isError).toBeFalsy();
      kept.push((taken.structured?.snapshot as { label?: string } | undefined)?.label);
    }
    expect(kept).toEqual([`a${EMOJI.repeat(100)}`, EMOJI.repeat(200)]);
    const refused = await call('snapshot_files', { projectRoot: root, label: EMOJI.repeat(201) });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('label: must be at most 200 characters (got 201)');
  });
});
