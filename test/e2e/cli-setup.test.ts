import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, HOOK_ENTRY, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

function homes() {
  const home = tempDir('setup-home-');
  return { home, env: { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } };
}

describe('claude-checkpoint setup gemini', () => {
  it('is idempotent, writes nothing on a dry run, and undoes itself exactly even when the file did not exist', async () => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const settings = path.join(home, '.gemini', 'settings.json');
    const dry = await runCli(['setup', 'gemini', '--dry-run'], { cwd: project, env });
    expect(dry.stdout).toMatch(/^\(dry run\) Added the MCP server and hooks to /);
    expect(existsSync(settings)).toBe(false);

    expect((await runCli(['setup', 'gemini'], { cwd: project, env })).code).toBe(0);
    const first = readFileSync(settings, 'utf8');
    const again = await runCli(['setup', 'gemini', '--json'], { cwd: project, env });
    expect(JSON.parse(again.stdout).files).toMatchObject([{ action: 'unchanged' }]);
    expect(readFileSync(settings, 'utf8')).toBe(first);

    expect((await runCli(['setup', 'gemini', '--uninstall'], { cwd: project, env })).code).toBe(0);
    expect(existsSync(settings)).toBe(false);
  });

  it('doctor reports whether Gemini CLI is set up, once Gemini CLI is in use', async () => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const gemini = async () =>
      (
        JSON.parse((await runCli(['doctor', '--json'], { cwd: project, env })).stdout).checks as Array<{
          name: string;
          level: string;
        }>
      ).find((check) => check.name === 'Gemini CLI');
    expect(await gemini()).toBeUndefined();
    mkdirSync(path.join(home, '.gemini'));
    expect(await gemini()).toMatchObject({ level: 'warn' });
    await runCli(['setup', 'gemini'], { cwd: project, env });
    expect(await gemini()).toMatchObject({ level: 'ok' });
  });

  it("after the user edits the file, uninstall takes out only ours and keeps the user's edit", async () => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const settings = path.join(home, '.gemini', 'settings.json');
    await runCli(['setup', 'gemini'], { cwd: project, env });
    writeFileSync(settings, readFileSync(settings, 'utf8').replace('{', '{\n  "theme": "dark",'));
    const result = await runCli(['setup', 'gemini', '--uninstall', '--json'], { cwd: project, env });
    expect(JSON.parse(result.stdout).files).toMatchObject([{ action: 'removed' }]);
    const left = JSON.parse(readFileSync(settings, 'utf8'));
    expect(left.theme).toBe('dark');
    expect(JSON.stringify(left)).not.toContain('claude-checkpoint');
  });

  it("in the project, says the one step that is the user's: trusting the folder", async () => {
    const { env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const result = await runCli(['setup', 'gemini', '--project'], { cwd: project, env });
    expect(result.stdout).toContain(
      "One step is yours: Gemini CLI runs a project's hooks only in a trusted folder",
    );
    expect(readFileSync(path.join(project, '.gemini', 'settings.json'), 'utf8')).toContain(
      'BeforeAgent --agent gemini',
    );
  });

  it('refuses a settings file it cannot parse, and an unknown agent, with exit 2 and nothing written', async () => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    mkdirSync(path.join(home, '.gemini'));
    writeFileSync(path.join(home, '.gemini', 'settings.json'), '{ "a": ');
    const broken = await runCli(['setup', 'gemini'], { cwd: project, env });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/settings\.json is not a JSON object this tool can edit safely/);
    expect(readFileSync(path.join(home, '.gemini', 'settings.json'), 'utf8')).toBe('{ "a": ');
    const unknown = await runCli(['setup', 'vim'], { cwd: project, env });
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toContain("agent must be one of codex, copilot, gemini, opencode: got 'vim'");
  });
});

describe('hooks for Gemini CLI, which has no session start after compaction', () => {
  it('a manual /compress leaves the brief due, and the next prompt (only that one) brings it back', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    await runCli(['save', '--goal', 'Survive compression'], { cwd: root, env });
    const gemini = (event: string, input: object) =>
      runNodeScript(HOOK_ENTRY, [event, '--agent', 'gemini'], {
        cwd: root,
        env,
        input: JSON.stringify({ cwd: root, ...input }),
      });

    expect((await gemini('PreCompress', { trigger: 'auto' })).stdout).toBe('');
    expect((await gemini('BeforeAgent', { prompt: 'one' })).stdout).toBe('');
    await gemini('PreCompress', { trigger: 'manual' });
    const next = JSON.parse((await gemini('BeforeAgent', { prompt: 'two' })).stdout);
    expect(next.hookSpecificOutput.hookEventName).toBe('BeforeAgent');
    expect(next.hookSpecificOutput.additionalContext).toContain('## Goal\nSurvive compression');
    expect((await gemini('BeforeAgent', { prompt: 'three' })).stdout).toBe('');
  });
});

describe('claude-checkpoint setup codex', () => {
  it('keeps the rest of config.toml as it is, reports through doctor, and undoes itself exactly', async () => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    mkdirSync(path.join(home, '.codex'));
    const config = path.join(home, '.codex', 'config.toml');
    const mine = '# my settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other"\n';
    writeFileSync(config, mine);
    const codexCheck = async () =>
      (
        JSON.parse((await runCli(['doctor', '--json'], { cwd: project, env })).stdout).checks as Array<{
          name: string;
          level: string;
        }>
      ).find((check) => check.name === 'Codex');
    expect(await codexCheck()).toMatchObject({ level: 'warn' });
    const setup = await runCli(['setup', 'codex'], { cwd: project, env });
    expect(setup.stdout).toContain('One step is yours: Codex runs hooks only after you review them');
    const written = readFileSync(config, 'utf8');
    expect(written.startsWith(mine)).toBe(true);
    expect(written).toContain('[mcp_servers.claude-checkpoint]');
    expect(readFileSync(path.join(home, '.codex', 'hooks.json'), 'utf8')).toContain(
      'PostToolUse --agent codex',
    );
    expect(await codexCheck()).toMatchObject({ level: 'ok' });
    // The user edits the file afterwards: uninstall takes out only our block.
    writeFileSync(config, `${readFileSync(config, 'utf8')}\n[profiles.fast]\nmodel = "o4"\n`);
    await runCli(['setup', 'codex', '--uninstall'], { cwd: project, env });
    expect(readFileSync(config, 'utf8')).toBe(`${mine}\n[profiles.fast]\nmodel = "o4"\n`);
  });

  it('refuses a config.toml it cannot parse, with exit 2 and nothing written', async () => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    mkdirSync(path.join(home, '.codex'));
    writeFileSync(path.join(home, '.codex', 'config.toml'), 'model = \n');
    const result = await runCli(['setup', 'codex'], { cwd: project, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/config\.toml is not TOML this tool can edit safely/);
    expect(readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8')).toBe('model = \n');
  });
});

describe('claude-checkpoint setup copilot and opencode, as doctor sees them', () => {
  const check = async (project: string, env: Record<string, string>, name: string) =>
    (
      JSON.parse((await runCli(['doctor', '--json'], { cwd: project, env })).stdout).checks as Array<{
        name: string;
        level: string;
        detail: string;
      }>
    ).find((found) => found.name === name);

  it('Copilot CLI: not in use, in use without setup, set up, and a hook entry that moved away', async () => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    expect(await check(project, env, 'Copilot CLI')).toBeUndefined();
    mkdirSync(path.join(home, '.copilot'));
    expect(await check(project, env, 'Copilot CLI')).toMatchObject({ level: 'warn' });
    expect((await runCli(['setup', 'copilot'], { cwd: project, env })).code).toBe(0);
    expect(await check(project, env, 'Copilot CLI')).toMatchObject({ level: 'ok' });
    const hooksFile = path.join(home, '.copilot', 'hooks', 'claude-checkpoint.json');
    writeFileSync(
      hooksFile,
      readFileSync(hooksFile, 'utf8').replaceAll(SHIPPED_HOOK_ENTRY, '/gone/dist/hook.cjs'),
    );
    expect(await check(project, env, 'Copilot CLI')).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining('/gone/dist/hook.cjs, which no longer exists'),
    });
  });

  it('OpenCode: the plugin and the server in the project, kept apart from the user config, undone exactly', async () => {
    const { env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const config = path.join(project, 'opencode.json');
    const mine =
      '{\n  "model": "anthropic/claude-sonnet-4-5",\n  "mcp": { "other": { "type": "remote", "url": "https://example.invalid/mcp" } }\n}\n';
    writeFileSync(config, mine);
    expect(await check(project, env, 'OpenCode')).toBeUndefined();
    expect((await runCli(['setup', 'opencode', '--project'], { cwd: project, env })).code).toBe(0);
    const written = readFileSync(config, 'utf8');
    expect(written).toContain('"other": { "type": "remote", "url": "https://example.invalid/mcp" }');
    expect(JSON.parse(written).mcp['claude-checkpoint']).toMatchObject({ type: 'local', enabled: true });
    const plugin = readFileSync(path.join(project, '.opencode/plugins/claude-checkpoint.js'), 'utf8');
    expect(plugin).toContain(JSON.stringify(SHIPPED_HOOK_ENTRY));
    expect(await check(project, env, 'OpenCode')).toMatchObject({ level: 'ok' });
    expect(
      (await runCli(['setup', 'opencode', '--project', '--uninstall'], { cwd: project, env })).code,
    ).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(mine);
    expect(existsSync(path.join(project, '.opencode/plugins/claude-checkpoint.js'))).toBe(false);
  });
});
