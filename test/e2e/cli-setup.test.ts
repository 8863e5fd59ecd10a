import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { userInfo } from 'node:os';
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
    expect(dry.stdout).toMatch(/^\(dry run\) Would add the MCP server and hooks to /);
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
      'One step is yours: Gemini CLI runs hooks and MCP servers only in a trusted folder',
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
    // Before a shell command that may destroy work: a snapshot (issue 25), for Codex's shell tool only.
    const preTool = JSON.parse(readFileSync(path.join(home, '.codex', 'hooks.json'), 'utf8')).hooks
      .PreToolUse;
    expect(preTool).toEqual([
      {
        matcher: 'Bash',
        hooks: [
          expect.objectContaining({ command: expect.stringMatching(/ PreToolUse --agent codex( |$)/) }),
        ],
      },
    ]);
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
    // A hooks file an earlier version wrote, without the end-of-turn and end-of-session hooks.
    const current = readFileSync(hooksFile, 'utf8');
    const earlier = JSON.parse(current);
    delete earlier.hooks.Stop;
    delete earlier.hooks.SessionEnd;
    writeFileSync(hooksFile, JSON.stringify(earlier));
    expect(await check(project, env, 'Copilot CLI')).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining('written by an earlier version: it lacks the Stop, SessionEnd hooks'),
      fix: expect.stringContaining('setup copilot` again'),
    });
    writeFileSync(hooksFile, current);
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
    // A plugin an earlier version wrote (without the end-of-turn record): reported, and setup brings it up to date.
    const pluginFile = path.join(project, '.opencode/plugins/claude-checkpoint.js');
    writeFileSync(pluginFile, plugin.replace("event.type === 'session.idle'", "event.type === 'never'"));
    expect(await check(project, env, 'OpenCode')).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining("written by an earlier version: it lacks this version's plugin"),
    });
    expect((await runCli(['setup', 'opencode', '--project'], { cwd: project, env })).code).toBe(0);
    expect(await check(project, env, 'OpenCode')).toMatchObject({ level: 'ok' });
    expect(
      (await runCli(['setup', 'opencode', '--project', '--uninstall'], { cwd: project, env })).code,
    ).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(mine);
    expect(existsSync(path.join(project, '.opencode/plugins/claude-checkpoint.js'))).toBe(false);
  });
});

/**
 * Where each agent keeps the configuration file setup shares with the user (the server's entry), as
 * each agent's own docs name it, and the folder a project's setup writes into.
 */
const SHARED_CONFIG = {
  codex: { user: '.codex/config.toml', project: '.codex/config.toml', folder: '.codex' },
  copilot: { user: '.copilot/mcp-config.json', project: '.mcp.json', folder: '.github' },
  gemini: { user: '.gemini/settings.json', project: '.gemini/settings.json', folder: '.gemini' },
  opencode: { user: '.config/opencode/opencode.json', project: 'opencode.json', folder: '.opencode' },
} as const;
type Agent = keyof typeof SHARED_CONFIG;
const AGENTS = Object.keys(SHARED_CONFIG) as Agent[];

/** A setting of the user's, in the file's own language. */
const userSetting = (agent: Agent) => (agent === 'codex' ? 'model = "mine"\n' : '{ "theme": "mine" }\n');
const hasUserSetting = (agent: Agent, text: string) =>
  agent === 'codex' ? text.includes('model = "mine"') : JSON.parse(text).theme === 'mine';

/** The user edits the file as a person would: keeps their setting, and drops our server entry by hand. */
function editByHand(agent: Agent, file: string): void {
  const text = readFileSync(file, 'utf8');
  if (agent === 'codex') {
    writeFileSync(
      file,
      `${text.slice(0, text.indexOf('# >>> claude-checkpoint'))}approval_policy = "never"\n`,
    );
    return;
  }
  const value = JSON.parse(text);
  delete value[agent === 'opencode' ? 'mcp' : 'mcpServers']['claude-checkpoint'];
  value.editedLater = 'kept';
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
const hasLaterEdit = (agent: Agent, text: string) =>
  agent === 'codex' ? text.includes('approval_policy = "never"') : JSON.parse(text).editedLater === 'kept';

describe.each(AGENTS)('setup %s keeps what is the user’s', (agent) => {
  const setup = (project: string, env: Record<string, string>, ...args: string[]) =>
    runCli(['setup', agent, ...args], { cwd: project, env });

  it('uninstall after the user edited the file between two setups keeps the edit and takes out only ours', async () => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const config = path.join(home, SHARED_CONFIG[agent].user);
    mkdirSync(path.dirname(config), { recursive: true });
    writeFileSync(config, userSetting(agent));
    expect((await setup(project, env)).code).toBe(0);
    editByHand(agent, config);
    expect((await setup(project, env)).code).toBe(0);
    expect(readFileSync(config, 'utf8')).toContain('claude-checkpoint');
    const removed = await setup(project, env, '--uninstall');
    expect(removed.code, removed.stderr).toBe(0);
    const left = readFileSync(config, 'utf8');
    expect(hasUserSetting(agent, left)).toBe(true);
    expect(hasLaterEdit(agent, left)).toBe(true);
    expect(left).not.toContain('claude-checkpoint');
  });

  it('a symlinked config stays a link: setup and uninstall edit the file it points at', async () => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const config = path.join(home, SHARED_CONFIG[agent].user);
    const dotfile = path.join(tempDir('dotfiles-'), 'config');
    writeFileSync(dotfile, userSetting(agent));
    mkdirSync(path.dirname(config), { recursive: true });
    symlinkSync(dotfile, config);
    const result = await setup(project, env);
    expect(result.code, result.stderr).toBe(0);
    expect(lstatSync(config).isSymbolicLink()).toBe(true);
    expect(readFileSync(dotfile, 'utf8')).toContain('claude-checkpoint');
    expect((await setup(project, env, '--uninstall')).code).toBe(0);
    expect(lstatSync(config).isSymbolicLink()).toBe(true);
    expect(readFileSync(dotfile, 'utf8')).toBe(userSetting(agent));
  });

  it('refuses a read-only config, naming it, and changes nothing; uninstall too', async () => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const config = path.join(home, SHARED_CONFIG[agent].user);
    mkdirSync(path.dirname(config), { recursive: true });
    writeFileSync(config, userSetting(agent));
    chmodSync(config, 0o444);
    const refused = await setup(project, env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${config} is read-only`);
    expect(readFileSync(config, 'utf8')).toBe(userSetting(agent));
    expect(statSync(config).mode & 0o777).toBe(0o444);
    // Set up while writable, then made read-only: uninstall refuses as well.
    chmodSync(config, 0o644);
    expect((await setup(project, env)).code).toBe(0);
    const installed = readFileSync(config, 'utf8');
    chmodSync(config, 0o444);
    const kept = await setup(project, env, '--uninstall');
    expect(kept.code).toBe(2);
    expect(kept.stderr).toContain(`${config} is read-only`);
    expect(readFileSync(config, 'utf8')).toBe(installed);
  });

  it('--project refuses to write through a symlinked folder or file to outside the project', async () => {
    const { env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const outside = tempDir('outside-project-');
    symlinkSync(outside, path.join(project, SHARED_CONFIG[agent].folder));
    const throughFolder = await setup(project, env, '--project');
    expect(throughFolder.code).toBe(2);
    expect(throughFolder.stderr).toMatch(/outside the project/);
    expect(readdirSync(outside)).toEqual([]);

    const other = createRepo({ committed: { 'a.ts': 'a' } });
    const config = path.join(other, SHARED_CONFIG[agent].project);
    const target = path.join(tempDir('outside-project-'), 'config');
    writeFileSync(target, userSetting(agent));
    mkdirSync(path.dirname(config), { recursive: true });
    symlinkSync(target, config);
    const throughFile = await setup(other, env, '--project');
    expect(throughFile.code).toBe(2);
    expect(throughFile.stderr).toContain(`refusing to write ${config}`);
    expect(readFileSync(target, 'utf8')).toBe(userSetting(agent));
  });

  it("a server of the user's own named claude-checkpoint is neither replaced nor removed", async () => {
    const { home, env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const config = path.join(home, SHARED_CONFIG[agent].user);
    mkdirSync(path.dirname(config), { recursive: true });
    const own =
      agent === 'codex'
        ? '[mcp_servers.claude-checkpoint]\ncommand = "npx"\nargs = ["-y", "claude-checkpoint-mcp"]\n'
        : agent === 'opencode'
          ? '{ "mcp": { "claude-checkpoint": { "type": "local", "command": ["npx", "-y", "claude-checkpoint-mcp"] } } }\n'
          : '{ "mcpServers": { "claude-checkpoint": { "command": "npx", "args": ["-y", "claude-checkpoint-mcp"] } } }\n';
    writeFileSync(config, own);
    const refused = await setup(project, env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(config);
    expect((await setup(project, env, '--uninstall')).code).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(own);
  });
});

describe('setup keeps hooks and hook files of the user’s own', () => {
  it.each([
    ['gemini', '.gemini/settings.json', 'AfterTool'],
    ['codex', '.codex/hooks.json', 'PostToolUse'],
  ] as const)(
    "%s: a user's hook whose command ends like ours stays through setup and uninstall",
    async (agent, file, event) => {
      const { home, env } = homes();
      const project = createRepo({ committed: { 'a.ts': 'a' } });
      const settings = path.join(home, file);
      mkdirSync(path.dirname(settings), { recursive: true });
      const mine = `${JSON.stringify(
        {
          hooks: {
            [event]: [
              {
                hooks: [
                  { type: 'command', command: `node /home/me/tools/hook.js PostToolUse --agent ${agent}` },
                ],
              },
            ],
          },
        },
        null,
        2,
      )}\n`;
      writeFileSync(settings, mine);
      expect((await runCli(['setup', agent], { cwd: project, env })).code).toBe(0);
      expect(readFileSync(settings, 'utf8')).toContain('/home/me/tools/hook.js');
      expect((await runCli(['setup', agent, '--uninstall'], { cwd: project, env })).code).toBe(0);
      expect(readFileSync(settings, 'utf8')).toBe(mine);
    },
  );

  it.each([
    [
      'copilot',
      '.copilot/hooks/claude-checkpoint.json',
      '{ "version": 1, "hooks": { "sessionStart": [{ "type": "command", "bash": "echo mine" }] } }\n',
    ],
    ['opencode', '.config/opencode/plugins/claude-checkpoint.js', 'export const Mine = async () => ({});\n'],
  ] as const)(
    "%s: a file of the user's at setup's path is neither replaced nor removed",
    async (agent, file, own) => {
      const { home, env } = homes();
      const project = createRepo({ committed: { 'a.ts': 'a' } });
      const target = path.join(home, file);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, own);
      const refused = await runCli(['setup', agent], { cwd: project, env });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${target} exists and setup did not write it`);
      expect(readFileSync(target, 'utf8')).toBe(own);
      expect((await runCli(['setup', agent, '--uninstall'], { cwd: project, env })).code).toBe(0);
      expect(readFileSync(target, 'utf8')).toBe(own);
    },
  );
});

describe('uninstall after a setup of an earlier version', () => {
  /** Every setup note under the store, rewritten as the version before `folders` wrote it. */
  function asEarlierNotes(dir: string): number {
    let count = 0;
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.created.json')) continue;
      const file = path.join(entry.parentPath, entry.name);
      const note = JSON.parse(readFileSync(file, 'utf8')) as { file: string; created: boolean };
      if (!note.created) continue;
      writeFileSync(file, JSON.stringify({ file: note.file, created: true }));
      count++;
    }
    return count;
  }

  it('removes the empty folders it made, as that version did (its note does not name them)', async () => {
    const { env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    expect((await runCli(['setup', 'copilot', '--project'], { cwd: project, env })).code).toBe(0);
    expect(existsSync(path.join(project, '.github', 'hooks', 'claude-checkpoint.json'))).toBe(true);
    expect(asEarlierNotes(env.CHECKPOINT_STORE_DIR)).toBeGreaterThan(0);
    // A setup run again in between keeps the note as it was.
    expect((await runCli(['setup', 'copilot', '--project'], { cwd: project, env })).code).toBe(0);
    const removed = await runCli(['setup', 'copilot', '--project', '--uninstall'], { cwd: project, env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(path.join(project, '.github'))).toBe(false);
    expect(existsSync(path.join(project, '.mcp.json'))).toBe(false);
  });
});

describe('setup tells what it does and what is left to the user', () => {
  it('a dry run says what it would add, never that it added it', async () => {
    const { env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    for (const agent of AGENTS) {
      const dry = await runCli(['setup', agent, '--dry-run'], { cwd: project, env });
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toMatch(
        /^\(dry run\) Would add the (MCP server|hooks|MCP server and hooks|plugin) to /m,
      );
      expect(dry.stdout).not.toMatch(/\bAdded\b/);
    }
  });

  it('each file line names what that file holds: the server, the hooks, or both', async () => {
    const { env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const lines = async (...args: string[]) => {
      const result = await runCli(['setup', ...args, '--project'], { cwd: project, env });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout
        .split('\n')
        .filter((line) => /^(Added|Took)/.test(line))
        .map((line) => line.replace(project, '<project>'));
    };
    expect(await lines('copilot')).toEqual([
      'Added the hooks to <project>/.github/hooks/claude-checkpoint.json',
      'Added the MCP server to <project>/.mcp.json',
    ]);
    expect(await lines('codex')).toEqual([
      'Added the hooks to <project>/.codex/hooks.json',
      'Added the MCP server to <project>/.codex/config.toml',
    ]);
    expect(await lines('gemini')).toEqual([
      'Added the MCP server and hooks to <project>/.gemini/settings.json',
    ]);
    expect(await lines('opencode')).toEqual([
      'Added the plugin to <project>/.opencode/plugins/claude-checkpoint.js',
      'Added the MCP server to <project>/opencode.json',
    ]);
    expect(await lines('copilot', '--uninstall')).toEqual([
      'Took the hooks out of <project>/.github/hooks/claude-checkpoint.json',
      'Took the MCP server out of <project>/.mcp.json',
    ]);
  });

  it('codex --project says that Codex reads the project only once it is trusted, and how to trust it', async () => {
    const { env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const result = await runCli(['setup', 'codex', '--project'], { cwd: project, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Codex reads a project's .codex folder only once you trust the project");
    expect(result.stdout).toContain('trust_level = "trusted"');
    expect(result.stdout).toContain('open /hooks and approve the claude-checkpoint hooks');
  });

  it('copilot --project adds the server to the project’s .mcp.json, and uninstall takes the file it made away', async () => {
    const { env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const doctor = async () =>
      (
        JSON.parse((await runCli(['doctor', '--json'], { cwd: project, env })).stdout).checks as Array<{
          name: string;
          level: string;
          detail: string;
        }>
      ).find((check) => check.name === 'Copilot CLI');
    expect((await runCli(['setup', 'copilot', '--project'], { cwd: project, env })).code).toBe(0);
    expect(await doctor()).toMatchObject({ level: 'ok' });
    const mcp = JSON.parse(readFileSync(path.join(project, '.mcp.json'), 'utf8'));
    expect(mcp.mcpServers['claude-checkpoint']).toMatchObject({
      type: 'stdio',
      command: 'node',
      tools: ['*'],
    });
    // Without the server, doctor says so (and names the file to look in).
    const written = readFileSync(path.join(project, '.mcp.json'), 'utf8');
    writeFileSync(path.join(project, '.mcp.json'), '{}\n');
    expect(await doctor()).toMatchObject({ level: 'warn', detail: expect.stringContaining('.mcp.json') });
    writeFileSync(path.join(project, '.mcp.json'), written);
    const removed = await runCli(['setup', 'copilot', '--project', '--uninstall'], { cwd: project, env });
    expect(removed.code).toBe(0);
    expect(existsSync(path.join(project, '.mcp.json'))).toBe(false);
    expect(existsSync(path.join(project, '.github'))).toBe(false);
  });
});

// Issue 26: doctor read the entry path of the agents' hooks up to the first space, so an installation in
// a folder with a space was reported missing (Gemini CLI) or never checked (Codex, Copilot CLI).
describe('doctor checks the entry file of every agent hook by what the hook runs', () => {
  it.each([
    ['Gemini CLI', 'gemini', '.gemini/settings.json'],
    ['Codex', 'codex', '.codex/hooks.json'],
    ['Copilot CLI', 'copilot', '.copilot/hooks/claude-checkpoint.json'],
  ])(
    '%s: an entry in a folder with a space is found, and named whole when it is gone',
    async (name, agent, file) => {
      const { home, env } = homes();
      const project = createRepo({ committed: { 'a.ts': 'a' } });
      expect((await runCli(['setup', agent], { cwd: project, env })).code).toBe(0);
      const hooksFile = path.join(home, file);
      const written = readFileSync(hooksFile, 'utf8');
      expect(written).toContain(SHIPPED_HOOK_ENTRY);
      const spaced = path.join(tempDir('doctor-entry-'), 'my tools', 'dist', 'hook.cjs');
      mkdirSync(path.dirname(spaced), { recursive: true });
      writeFileSync(spaced, '');
      writeFileSync(hooksFile, written.replaceAll(SHIPPED_HOOK_ENTRY, `'${spaced}'`));
      const doctor = async () =>
        (
          JSON.parse((await runCli(['doctor', '--json'], { cwd: project, env })).stdout).checks as Array<{
            name: string;
          }>
        ).find((check) => check.name === name);
      expect(await doctor()).toMatchObject({ level: 'ok' });
      rmSync(path.dirname(spaced), { recursive: true });
      expect(await doctor()).toMatchObject({
        level: 'warn',
        detail: expect.stringContaining(`${spaced}, which no longer exists`),
      });
    },
  );
});

// Review B: a relative HOME was followed here, though the settings say it is ignored (as XDG does).
describe('a relative HOME is ignored, as everywhere else', () => {
  it('setup aims at the account’s home, not a folder under the one the command ran in', async () => {
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { HOME: 'rel', CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const dry = await runCli(['setup', 'gemini', '--dry-run'], { cwd: project, env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(path.join(userInfo().homedir, '.gemini', 'settings.json'));
    expect(dry.stdout).not.toContain(path.join('rel', '.gemini'));
    expect(existsSync(path.join(project, 'rel'))).toBe(false);
  });

  it('a project is not taken for the home folder because HOME is "."', async () => {
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { HOME: '.', CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const snapshot = await runCli(['snapshot'], { cwd: project, env });
    expect(snapshot.stderr).not.toContain('home folder');
    expect(snapshot.code).toBe(0);
  });
});
