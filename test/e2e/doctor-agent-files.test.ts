import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { HOOK_EVENTS } from '../../src/core/hook-events.js';
import { assertBuilt, CLI, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { mergeJournal } from '../helpers/relay.js';

beforeAll(assertBuilt);

/** The MCP server setup gives every agent: this installation's dist/index.js. */
const SERVER_ENTRY = path.join(path.dirname(CLI), 'index.js');

function homes() {
  const home = tempDir('doctor-home-');
  return { home, env: { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } };
}

async function doctorCheck(project: string, env: Record<string, string>, name: string) {
  const result = await runCli(['doctor', '--json'], { cwd: project, env });
  return (
    JSON.parse(result.stdout).checks as Array<{ name: string; level: string; detail: string; fix?: string }>
  ).find((check) => check.name === name);
}

/** A copy of a file at a path of its own, removed again by the test: an installation that moved away. */
function movedCopy(file: string, name: string): { copy: string; remove: () => void } {
  const copy = path.join(tempDir('doctor-entry-'), 'old install', 'dist', name);
  mkdirSync(path.dirname(copy), { recursive: true });
  writeFileSync(copy, readFileSync(file));
  return { copy, remove: () => rmSync(path.dirname(path.dirname(copy)), { recursive: true }) };
}

// Trial 2026-12-06, item 10: doctor read a hooks file with a comment (which setup accepts and keeps)
// with a strict JSON parser, found nothing, and said "✓ Codex" when the hook entry was gone.
describe('doctor reads the JSON-with-comments files setup accepts', () => {
  it.each([
    ['Codex', 'codex', '.codex/hooks.json'],
    ['Gemini CLI', 'gemini', '.gemini/settings.json'],
  ])('%s: a hooks file with a comment, and its hook entry gone', async (name, agent, file) => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const hooksFile = path.join(home, file);
    mkdirSync(path.dirname(hooksFile), { recursive: true });
    writeFileSync(hooksFile, '// my hooks, with a comment\n{\n  "hooks": {}, // none of mine yet\n}\n');
    const setup = await runCli(['setup', agent], { cwd: project, env });
    expect(setup.code, setup.stderr).toBe(0);
    const entry = movedCopy(SHIPPED_HOOK_ENTRY, 'hook.cjs');
    writeFileSync(
      hooksFile,
      readFileSync(hooksFile, 'utf8').replaceAll(SHIPPED_HOOK_ENTRY, `'${entry.copy}'`),
    );
    expect(await doctorCheck(project, env, name)).toMatchObject({ level: 'ok' });
    entry.remove();
    expect(await doctorCheck(project, env, name)).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining(`${entry.copy}, which no longer exists`),
    });
  });
});

// Trial 2026-12-06, item 10: with the MCP server's file (dist/index.js) gone, every agent still showed ✓.
describe('doctor checks that the MCP server file each agent is given exists', () => {
  it.each([
    ['Codex', 'codex', '.codex/config.toml'],
    ['Gemini CLI', 'gemini', '.gemini/settings.json'],
    ['Copilot CLI', 'copilot', '.copilot/mcp-config.json'],
    ['OpenCode', 'opencode', '.config/opencode/opencode.json'],
  ])('%s: names the server file that no longer exists', async (name, agent, file) => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const setup = await runCli(['setup', agent], { cwd: project, env });
    expect(setup.code, setup.stderr).toBe(0);
    const config = path.join(home, file);
    const written = readFileSync(config, 'utf8');
    expect(written).toContain(SERVER_ENTRY);
    const server = movedCopy(SERVER_ENTRY, 'index.js');
    // With a comment (TOML's for Codex), which setup accepts and keeps.
    const comment = agent === 'codex' ? '# the servers I use\n' : '// the servers I use\n';
    writeFileSync(config, `${comment}${written.replaceAll(SERVER_ENTRY, server.copy)}`);
    expect(await doctorCheck(project, env, name)).toMatchObject({ level: 'ok' });
    server.remove();
    expect(await doctorCheck(project, env, name)).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining(`${server.copy}, which no longer exists`),
      fix: expect.stringContaining(`setup ${agent}`),
    });
  });
});

// Helper task left3 (a sibling of item 4): doctor found Codex's server by the text
// `[mcp_servers.claude-checkpoint]`; the same table written another valid TOML way (a quoted key, spaces
// in the brackets) read as "not set up".
describe("doctor reads Codex's config.toml as TOML", () => {
  it.each([
    ['a quoted key', '[mcp_servers."claude-checkpoint"]'],
    ['spaces inside the brackets', '[ mcp_servers.claude-checkpoint ]'],
  ])('the server table written with %s is found', async (_title, header) => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const setup = await runCli(['setup', 'codex'], { cwd: project, env });
    expect(setup.code, setup.stderr).toBe(0);
    const config = path.join(home, '.codex', 'config.toml');
    const written = readFileSync(config, 'utf8');
    expect(written).toContain('[mcp_servers.claude-checkpoint]');
    writeFileSync(config, written.replace('[mcp_servers.claude-checkpoint]', header));
    expect(await doctorCheck(project, env, 'Codex')).toMatchObject({ level: 'ok' });
  });
});

// Review 6, item 4: a config.toml that does not parse read as "not set up", and the setup it advised then
// refused ("not TOML this tool can edit safely").
describe('doctor and a Codex config.toml that does not parse', () => {
  it('says the file is not valid TOML, with the parser\'s message, not "not set up"', async () => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const setup = await runCli(['setup', 'codex'], { cwd: project, env });
    expect(setup.code, setup.stderr).toBe(0);
    const config = path.join(home, '.codex', 'config.toml');
    writeFileSync(config, `${readFileSync(config, 'utf8')}broken = \n`);
    const check = await doctorCheck(project, env, 'Codex');
    expect(check?.level).toBe('warn');
    expect(check?.detail).toMatch(/is not valid TOML \(Invalid TOML document: .*, line \d+, column \d+\)/);
    expect(check?.detail).toContain(`${config} is not valid TOML (`);
    expect(check?.detail).toContain('Codex will not load it');
    expect(check?.detail).not.toContain('not set up');
    expect(check?.fix).toContain(config);
  });
});

// Review 6, item 7: any `node …/dist/cli.js hook <Event>` counted as our hook, another tool's too, so
// doctor said the hooks were set up when none of ours were.
describe("doctor and another tool's dist/cli.js hook", () => {
  const hooksRunning = (cli: string) =>
    JSON.stringify({
      hooks: Object.fromEntries(
        HOOK_EVENTS.map((event) => [
          event,
          [{ hooks: [{ type: 'command', command: `node '${cli}' hook ${event}` }] }],
        ]),
      ),
    });

  it.each([
    ['another package', 'other-tool', 'warn'],
    ['this package', 'claude-checkpoint-mcp', 'ok'],
  ])('a dist/cli.js in %s', async (_title, name, level) => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const install = tempDir('hook-install-');
    writeFileSync(path.join(install, 'package.json'), JSON.stringify({ name }));
    mkdirSync(path.join(install, 'dist'));
    const cli = path.join(install, 'dist', 'cli.js');
    writeFileSync(cli, '');
    mkdirSync(path.join(home, '.claude'));
    writeFileSync(path.join(home, '.claude', 'settings.json'), hooksRunning(cli));
    const check = await doctorCheck(project, env, 'Claude Code hooks');
    expect(check?.level).toBe(level);
    if (level === 'warn') expect(check?.detail).toContain('no hooks found');
  });
});

// Review 7 (2026-12-07): a Bash hook's record is the write that usually replaces a hand-edited file, so the
// copy it keeps must not go unsaid: every load and doctor name it until it is deleted.
describe('a damaged checkpoint replaced by a Bash hook', () => {
  it('is kept byte for byte, and doctor names it', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), CHECKPOINT_HOOK_RELAY: '0' };
    expect((await runCli(['save', '--goal', 'ship it'], { cwd: root, env })).code).toBe(0);
    expect((await runCli(['save', '--goal', 'ship it'], { cwd: root, env })).code).toBe(0);
    writeFileSync(path.join(root, '.claude-checkpoint'), '{ "goal": "ship it, and my own note" ');
    const input = JSON.stringify({
      cwd: root,
      tool_name: 'Bash',
      tool_input: { command: 'npm test' },
      tool_response: { exit_code: 0 },
    });
    const hook = await runNodeScript(SHIPPED_HOOK_ENTRY, ['PostToolUse'], { cwd: root, env, input });
    expect(hook).toMatchObject({ code: 0, stderr: '' });
    // A hook on its own journals the command; the next holder of the lock merges it into the file.
    await mergeJournal(root);
    expect(readFileSync(path.join(root, '.claude-checkpoint.damaged'), 'utf8')).toBe(
      '{ "goal": "ship it, and my own note" ',
    );
    expect(JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).goal.primary).toBe(
      'ship it',
    );
    const check = await doctorCheck(root, env, 'damaged checkpoint kept');
    expect(check).toMatchObject({ level: 'warn' });
    expect(check?.detail).toMatch(/^\.claude-checkpoint\.damaged: /);
  });
});
