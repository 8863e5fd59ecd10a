import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
// toml_edit (compiled to WebAssembly): the library Codex itself edits ~/.codex/config.toml with
// (codex-rs/core/src/config/edit.rs), so these are the edits `codex mcp add` and a project's trust make.
import initTomlEdit, { edit as tomlEdit } from '@rainbowatcher/toml-edit-js';
import { parse as parseToml } from 'smol-toml';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(async () => {
  assertBuilt();
  await initTomlEdit();
});

function codexHome() {
  const home = tempDir('setup-codex-home-');
  const env = { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  const project = createRepo({ committed: { 'a.ts': 'a' } });
  const config = path.join(home, '.codex', 'config.toml');
  const setup = async (...args: string[]) => {
    const result = await runCli(['setup', 'codex', ...args], { cwd: project, env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result;
  };
  /** What Codex does to the file later: a table added through toml_edit (a project's trust, a setting). */
  const codexAdds = (key: string, value: unknown) =>
    writeFileSync(config, tomlEdit(readFileSync(config, 'utf8'), key, value, { inline: false }));
  /**
   * What `codex mcp add <name> -- <command>` does: every server is written back anew
   * (ConfigEdit::ReplaceMcpServers in codex-rs/core/src/config/edit.rs), which replaces each existing table
   * outright, dropping the comment line above it; `codex mcp remove` writes the others back the same way.
   */
  const codexMcpAdd = (name: string, server: Record<string, unknown>) => {
    let text = readFileSync(config, 'utf8');
    // As plain data, the way Codex holds its servers.
    const servers = { ...JSON.parse(JSON.stringify(parseToml(text).mcp_servers ?? {})), [name]: server };
    for (const [key, value] of Object.entries(servers))
      text = tomlEdit(text, `mcp_servers.${key}`, value, { inline: false });
    writeFileSync(config, text);
  };
  const read = () => parseToml(readFileSync(config, 'utf8')) as Record<string, Record<string, unknown>>;
  return { home, config, setup, codexAdds, codexMcpAdd, read };
}

describe('setup codex keeps what Codex and the user wrote into config.toml after it', () => {
  it('`codex mcp add` after setup drops our opening marker: a re-run writes the block whole again, --uninstall takes our server out', async () => {
    const { home, config, setup, codexMcpAdd, read } = codexHome();
    await setup();
    const ours = read().mcp_servers?.['claude-checkpoint'];
    codexMcpAdd('github', { command: 'gh-mcp' });
    // Codex replaced our table with one of its own writing: only the closing marker is left.
    const rewritten = readFileSync(config, 'utf8');
    expect(rewritten).not.toContain('# >>> claude-checkpoint');
    expect(rewritten).toContain('# <<< claude-checkpoint');
    await setup();
    const text = readFileSync(config, 'utf8');
    expect(text.match(/# >>> claude-checkpoint/g)).toHaveLength(1);
    expect(text.match(/# <<< claude-checkpoint/g)).toHaveLength(1);
    expect(text.slice(text.indexOf('# >>> claude-checkpoint'))).not.toContain('github');
    expect(read()).toEqual({ mcp_servers: { github: { command: 'gh-mcp' }, 'claude-checkpoint': ours } });
    // Again, then straight to an uninstall: nothing of ours is left, not even a marker.
    codexMcpAdd('other', { command: 'other' });
    await setup('--uninstall');
    expect(readFileSync(config, 'utf8')).toBe(
      '[mcp_servers.github]\ncommand = "gh-mcp"\n\n[mcp_servers.other]\ncommand = "other"\n',
    );
    expect(existsSync(path.join(home, '.codex', 'hooks.json'))).toBe(false);
  });

  it('a stray marker of ours, its table gone, is taken out by a re-run and by --uninstall', async () => {
    const { config, setup } = codexHome();
    mkdirSync(path.dirname(config));
    const mine = 'model = "o3"\n';
    writeFileSync(config, `${mine}# <<< claude-checkpoint\n`);
    await setup();
    const text = readFileSync(config, 'utf8');
    expect(text.match(/# <<< claude-checkpoint/g)).toHaveLength(1);
    expect(text.startsWith(`${mine}\n# >>> claude-checkpoint`)).toBe(true);
    writeFileSync(config, `${mine}# <<< claude-checkpoint\n`);
    await setup('--uninstall');
    expect(readFileSync(config, 'utf8')).toBe(mine);
  });

  // Review: a user's own clone, run by node from a folder named claude-checkpoint-…, was taken for ours.
  it.each([
    '/my/build/index.js',
    '/home/me/src/claude-checkpoint-notes/dist/index.js',
    '/home/me/claude-checkpoint/plugin/dist/server.mjs',
  ])(
    "a [mcp_servers.claude-checkpoint] of the user's own (%s), outside any block, is still refused and kept",
    async (script) => {
      const { config } = codexHome();
      const home = path.dirname(path.dirname(config));
      mkdirSync(path.dirname(config));
      const mine = `[mcp_servers.claude-checkpoint]\ncommand = "node"\nargs = ["${script}"]\n# <<< claude-checkpoint\n`;
      writeFileSync(config, mine);
      const project = createRepo({ committed: { 'a.ts': 'a' } });
      const env = { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
      const result = await runCli(['setup', 'codex'], { cwd: project, env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("already has [mcp_servers.claude-checkpoint] outside setup's block");
      expect(readFileSync(config, 'utf8')).toBe(mine);
      await runCli(['setup', 'codex', '--uninstall'], { cwd: project, env });
      expect(parseToml(readFileSync(config, 'utf8'))).toEqual(parseToml(mine));
    },
  );

  it("a project's trust written by Codex survives a re-run of setup (an update) and stays out of our block", async () => {
    const { config, setup, codexAdds, codexMcpAdd, read } = codexHome();
    mkdirSync(path.dirname(config));
    writeFileSync(config, 'model = "o3"\n');
    await setup();
    codexAdds('projects.myproj', { trust_level: 'trusted' });
    codexMcpAdd('github', { command: 'gh-mcp' });
    const codexWrote = read();
    await setup();
    expect(read()).toEqual(codexWrote);
    // Ours is still one block at the end; Codex's tables are before it, no longer inside it.
    const text = readFileSync(config, 'utf8');
    const block = text.slice(text.indexOf('# >>> claude-checkpoint'));
    expect(block).not.toMatch(/projects|github/);
    expect(text.match(/# >>> claude-checkpoint/g)).toHaveLength(1);
    await setup('--uninstall');
    const { mcp_servers, ...rest } = codexWrote;
    expect(read()).toEqual({
      ...rest,
      mcp_servers: { github: (mcp_servers as Record<string, unknown>).github },
    });
  });

  it("what Codex set on our own server (a timeout, a tool's approval) survives a re-run that updates it", async () => {
    const { config, setup, codexAdds, codexMcpAdd, read } = codexHome();
    await setup();
    const server = read().mcp_servers?.['claude-checkpoint'] as { args: string[] };
    // An earlier installation's path, which the re-run updates.
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace(
        server.args[0] as string,
        '/old/lib/node_modules/claude-checkpoint-mcp/dist/index.js',
      ),
    );
    codexAdds('mcp_servers.claude-checkpoint.startup_timeout_sec', 30);
    codexAdds('mcp_servers.claude-checkpoint.tools.save_session_checkpoint', { approval_mode: 'approve' });
    codexMcpAdd('github', { command: 'gh-mcp' });
    const result = await setup();
    expect(JSON.parse((await setup('--json')).stdout).files).toContainEqual(
      expect.objectContaining({ action: 'unchanged' }),
    );
    expect(result.stdout).toContain('Updated the MCP server in');
    // Laid out as Codex wrote it, in our block; Codex's other server out of it, before it.
    const text = readFileSync(config, 'utf8');
    expect(text.startsWith('[mcp_servers.github]\ncommand = "gh-mcp"\n\n# >>> claude-checkpoint')).toBe(true);
    expect(
      text.endsWith(
        [
          `args = [${JSON.stringify(server.args[0])}]`,
          'startup_timeout_sec = 30',
          '',
          '[mcp_servers.claude-checkpoint.tools]',
          '',
          '[mcp_servers.claude-checkpoint.tools.save_session_checkpoint]',
          'approval_mode = "approve"',
          '# <<< claude-checkpoint',
          '',
        ].join('\n'),
      ),
    ).toBe(true);
    expect(read().mcp_servers).toEqual({
      'claude-checkpoint': {
        ...server,
        startup_timeout_sec: 30,
        tools: { save_session_checkpoint: { approval_mode: 'approve' } },
      },
      github: { command: 'gh-mcp' },
    });
    await setup('--uninstall');
    expect(read()).toEqual({ mcp_servers: { github: { command: 'gh-mcp' } } });
  });

  it('a table written by hand inside our block or after it stays, with its comment', async () => {
    const { config, setup, read } = codexHome();
    await setup();
    const withOurs = readFileSync(config, 'utf8');
    const inside = withOurs.replace(
      '# <<< claude-checkpoint\n',
      '\n# mine\n[profiles.fast]\nmodel = "o4"\n# <<< claude-checkpoint\n',
    );
    writeFileSync(config, `${inside}\n[profiles.slow]\nmodel = "o3"\n`);
    await setup('--uninstall');
    expect(readFileSync(config, 'utf8')).toBe(
      '# mine\n[profiles.fast]\nmodel = "o4"\n\n[profiles.slow]\nmodel = "o3"\n',
    );
    expect(read()).toEqual({ profiles: { fast: { model: 'o4' }, slow: { model: 'o3' } } });
  });
});

describe('setup codex and the forms config.toml takes', () => {
  it("keeps a CRLF file's line endings, and undoes itself byte for byte", async () => {
    const { config, setup } = codexHome();
    mkdirSync(path.dirname(config));
    const mine = 'model = "o3"\r\n\r\n[mcp_servers.other]\r\ncommand = "other"\r\n';
    writeFileSync(config, mine);
    await setup();
    const written = readFileSync(config, 'utf8');
    expect(written).toContain('[mcp_servers.claude-checkpoint]\r\n');
    expect(written.replaceAll('\r\n', '')).not.toContain('\n');
    await setup('--uninstall');
    expect(readFileSync(config, 'utf8')).toBe(mine);
  });

  it('says why an inline mcp_servers table cannot take our server, and how to write it instead', async () => {
    const { config } = codexHome();
    const home = path.dirname(path.dirname(config));
    mkdirSync(path.dirname(config));
    const mine = 'mcp_servers = { other = { command = "other" } }\n';
    writeFileSync(config, mine);
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const result = await runCli(['setup', 'codex'], {
      cwd: project,
      env: { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('holds mcp_servers as one inline table (mcp_servers = { … })');
    expect(result.stderr).toContain('[mcp_servers.<name>]');
    expect(result.stderr).not.toContain('redefine');
    expect(readFileSync(config, 'utf8')).toBe(mine);
  });
});

describe('setup codex beside inline [hooks] in config.toml', () => {
  const inline =
    '[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "echo mine"\n';
  // Where Codex keeps its approvals of hooks: not a hook, and no reason for a note.
  const approvals = '[hooks.state."hooks.json:stop:0:0"]\ntrusted_hash = "sha256:0"\n';
  const codexCheck = async (cwd: string, home: string, store: string) =>
    (
      JSON.parse(
        (await runCli(['doctor', '--json'], { cwd, env: { HOME: home, CHECKPOINT_STORE_DIR: store } }))
          .stdout,
      ).checks as Array<{ name: string; level: string; detail: string; fix?: string }>
    ).find((check) => check.name === 'Codex');

  it('setup and doctor say that Codex merges both with a warning at every startup, and what to do', async () => {
    const home = tempDir('setup-codex-home-');
    const store = tempDir('checkpoint-store-');
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const config = path.join(home, '.codex', 'config.toml');
    mkdirSync(path.dirname(config));
    writeFileSync(config, inline);
    const env = { HOME: home, CHECKPOINT_STORE_DIR: store };
    const result = await runCli(['setup', 'codex'], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `Warning: ${config} has inline hooks ([hooks] for PreToolUse) beside ${path.join(home, '.codex', 'hooks.json')}`,
    );
    expect(result.stdout).toContain('Codex merges the two and warns at every startup');
    expect(result.stdout).toContain('Move your [[hooks.<Event>]] tables');
    const json = JSON.parse((await runCli(['setup', 'codex', '--json'], { cwd: project, env })).stdout);
    expect(json.inlineHooks).toMatchObject({ events: ['PreToolUse'] });
    const check = await codexCheck(project, home, store);
    expect(check).toMatchObject({ level: 'warn' });
    expect(check?.detail).toContain('Codex merges the two and warns at every startup');
    expect(check?.fix).toContain("leave [hooks.state], Codex's approvals, where it is");
    // Moved into hooks.json, as the note says: no note, and doctor is content.
    writeFileSync(config, readFileSync(config, 'utf8').replace(inline, approvals));
    expect((await runCli(['setup', 'codex'], { cwd: project, env })).stdout).not.toContain('inline hooks');
    expect(await codexCheck(project, home, store)).toMatchObject({ level: 'ok' });
  });
});
