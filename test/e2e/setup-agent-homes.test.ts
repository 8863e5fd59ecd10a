import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

/** An empty home of its own, and a store. */
function homes(extra: Record<string, string> = {}) {
  const home = tempDir('setup-home-');
  return { home, env: { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), ...extra } };
}

type DoctorCheck = { name: string; level: string; detail: string; fix?: string };

async function doctorCheck(
  name: string,
  cwd: string,
  env: Record<string, string>,
): Promise<DoctorCheck | undefined> {
  const result = await runCli(['doctor', '--json'], { cwd, env });
  return (JSON.parse(result.stdout).checks as DoctorCheck[]).find((check) => check.name === name);
}

/** Each agent's variable for its user folder, the folder the agent reads then, and doctor's check name. */
const MOVED = [
  {
    agent: 'codex',
    variable: 'CODEX_HOME',
    folder: (value: string) => value,
    files: ['hooks.json', 'config.toml'],
    check: 'Codex',
    usual: '.codex',
  },
  {
    agent: 'copilot',
    variable: 'COPILOT_HOME',
    folder: (value: string) => value,
    files: ['hooks/claude-checkpoint.json', 'mcp-config.json'],
    check: 'Copilot CLI',
    usual: '.copilot',
  },
  {
    agent: 'gemini',
    variable: 'GEMINI_CLI_HOME',
    // GEMINI_CLI_HOME stands for the home folder: Gemini CLI reads its .gemini folder inside it.
    folder: (value: string) => path.join(value, '.gemini'),
    files: ['settings.json'],
    check: 'Gemini CLI',
    usual: '.gemini',
  },
] as const;

describe("setup and doctor use the agent's folder where its variable moves it", () => {
  for (const { agent, variable, folder, files, check, usual } of MOVED) {
    it(`${agent}: ${variable}`, async () => {
      const moved = tempDir(`${agent}-home-`);
      const { home, env } = homes({ [variable]: moved });
      const project = createRepo({ committed: { 'a.ts': 'a' } });
      const result = await runCli(['setup', agent], { cwd: project, env });
      expect(result.code, result.stderr).toBe(0);
      for (const file of files) {
        const full = path.join(folder(moved), file);
        expect(readFileSync(full, 'utf8')).toContain('claude-checkpoint');
        // Setup's output names the file it wrote, in the agent's folder.
        expect(result.stdout).toContain(full);
      }
      expect(existsSync(path.join(home, usual))).toBe(false);
      const set = await doctorCheck(check, project, env);
      expect(set).toMatchObject({ level: 'ok' });
      expect(set?.detail).toContain(folder(moved));

      // A set-up in the usual folder, which the agent does not read while the variable is set, is no set-up.
      const usualHome = homes();
      expect((await runCli(['setup', agent], { cwd: project, env: usualHome.env })).code).toBe(0);
      const empty = tempDir(`${agent}-empty-`);
      mkdirSync(folder(empty), { recursive: true });
      const elsewhere = { ...usualHome.env, [variable]: empty };
      expect(await doctorCheck(check, project, elsewhere)).toMatchObject({ level: 'warn' });

      expect((await runCli(['setup', agent, '--uninstall'], { cwd: project, env })).code).toBe(0);
      for (const file of files) expect(existsSync(path.join(folder(moved), file))).toBe(false);
    });
  }
});

describe('a relative CODEX_HOME or GEMINI_CLI_HOME is taken from the current folder, as the agent takes it', () => {
  for (const { agent, variable, folder, files, check } of MOVED.filter(
    (moved) => moved.agent !== 'copilot',
  )) {
    it(`${agent}: ${variable}=agent-home`, async () => {
      const { env } = homes({ [variable]: 'agent-home' });
      const project = realpathSync(createRepo({ committed: { 'a.ts': 'a' } }));
      const moved = path.join(project, 'agent-home');
      const result = await runCli(['setup', agent], { cwd: project, env });
      expect(result.code, result.stderr).toBe(0);
      for (const file of files)
        expect(readFileSync(path.join(folder(moved), file), 'utf8')).toContain('claude-checkpoint');
      expect(result.stdout).toContain(
        `${variable} is the relative path "agent-home", which the agent takes from the folder it starts in: setup used ${folder(moved)}.`,
      );
      const set = await doctorCheck(check, project, env);
      expect(set).toMatchObject({ level: 'ok' });
      expect(set?.detail).toContain(folder(moved));
      expect((await runCli(['setup', agent, '--uninstall'], { cwd: project, env })).code).toBe(0);
      for (const file of files) expect(existsSync(path.join(folder(moved), file))).toBe(false);
    });
  }
});

describe('Gemini CLI runs hooks and MCP servers only in a trusted folder', () => {
  for (const scope of [[], ['--project']]) {
    it(`setup gemini ${scope.join(' ') || '(user)'} says how to trust the folder, with Gemini CLI's own command`, async () => {
      const { env } = homes();
      const project = createRepo({ committed: { 'a.ts': 'a' } });
      const result = await runCli(['setup', 'gemini', ...scope], { cwd: project, env });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(
        'One step is yours: Gemini CLI runs hooks and MCP servers only in a trusted folder',
      );
      expect(result.stdout).toContain('/permissions trust');
      expect(result.stdout).not.toMatch(/run \/trust\b/);
      expect((await doctorCheck('Gemini CLI', project, env))?.detail).toContain(
        'Gemini CLI runs them only in folders you trust (/permissions trust)',
      );
    });
  }
});

describe('an agent set to run no hooks at all', () => {
  const cases = [
    {
      agent: 'codex',
      check: 'Codex',
      file: (home: string) => path.join(home, '.codex', 'config.toml'),
      text: '[features]\nhooks = false\n',
      setting: '[features] hooks = false',
    },
    {
      agent: 'gemini',
      check: 'Gemini CLI',
      file: (home: string) => path.join(home, '.gemini', 'settings.json'),
      text: '{ "hooksConfig": { "enabled": false } }\n',
      setting: '"hooksConfig": { "enabled": false }',
    },
  ] as const;
  for (const { agent, check, file, text, setting } of cases) {
    it(`${agent}: setup warns and doctor warns, naming the file and the setting`, async () => {
      const { home, env } = homes();
      const project = createRepo({ committed: { 'a.ts': 'a' } });
      mkdirSync(path.dirname(file(home)), { recursive: true });
      writeFileSync(file(home), text);
      const result = await runCli(['setup', agent], { cwd: project, env });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`Warning: ${file(home)} switches every hook off (${setting})`);
      const off = await doctorCheck(check, project, env);
      expect(off).toMatchObject({ level: 'warn' });
      expect(off?.detail).toContain(file(home));
      expect(off?.detail).toContain(setting);

      // The project's setting overrides the user's: hooks switched on there run.
      const projectFile = path.join(project, path.relative(home, file(home)));
      mkdirSync(path.dirname(projectFile), { recursive: true });
      writeFileSync(projectFile, text.replace('false', 'true'));
      if (agent === 'codex') {
        // Only in a project the user trusts: Codex reads no .codex/config.toml of an untrusted one.
        expect(await doctorCheck(check, project, env)).toMatchObject({ level: 'warn' });
        const trust = `\n[projects.${JSON.stringify(project)}]\ntrust_level = "trusted"\n`;
        writeFileSync(file(home), `${readFileSync(file(home), 'utf8')}${trust}`);
      }
      expect(await doctorCheck(check, project, env)).toMatchObject({ level: 'ok' });
    });
  }
});

// Review: Codex records trust at the repository's top; a package's own `hooks = false` went unwarned.
describe('a package of a repository the user trusts at its top (Codex)', () => {
  it("reads the package's .codex/config.toml, and doctor warns of its hooks switched off", async () => {
    const { home, env } = homes();
    const repo = createRepo({ committed: { 'pkg/a.ts': 'a' } });
    const pkg = path.join(repo, 'pkg');
    const userFile = path.join(home, '.codex', 'config.toml');
    mkdirSync(path.dirname(userFile), { recursive: true });
    writeFileSync(userFile, `[projects.${JSON.stringify(repo)}]\ntrust_level = "trusted"\n`);
    mkdirSync(path.join(pkg, '.codex'));
    writeFileSync(path.join(pkg, '.codex', 'config.toml'), '[features]\nhooks = false\n');
    expect((await runCli(['setup', 'codex'], { cwd: pkg, env })).code).toBe(0);
    const check = await doctorCheck('Codex', pkg, env);
    expect(check).toMatchObject({ level: 'warn' });
    expect(check?.detail).toContain(path.join(pkg, '.codex', 'config.toml'));
  });
});

describe('setup opencode', () => {
  it('says that a running OpenCode must be restarted to load the plugin', async () => {
    const { env } = homes();
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const result = await runCli(['setup', 'opencode'], { cwd: project, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'One step is yours: OpenCode loads plugins and MCP servers when it starts',
    );
  });
});
