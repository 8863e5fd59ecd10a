import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

/** Every file (with its bytes) and every folder under `root`, the repository's own .git left out. */
function snapshotFolder(root: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      const relative = path.relative(root, full);
      if (relative === '.git') continue;
      if (statSync(full).isDirectory()) {
        found[`${relative}/`] = 'folder';
        walk(full);
      } else found[relative] = readFileSync(full, 'utf8');
    }
  };
  walk(root);
  return found;
}

function fill(root: string, files: Record<string, string | null>): void {
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(root, file);
    if (content === null) mkdirSync(full, { recursive: true });
    else {
      mkdirSync(path.dirname(full), { recursive: true });
      writeFileSync(full, content);
    }
  }
}

/**
 * The user's own files before setup (a folder as `null`): empty objects and arrays where setup adds its
 * entries, the folders setup writes its own files into, a file without a final newline, whitespace of
 * their own.
 */
const USER_FILES = {
  gemini: {
    user: { '.gemini/settings.json': '{"mcpServers": {}, "hooks": {}}\n' },
    project: { '.gemini/settings.json': '{ "hooks": { "AfterTool": [ ] } }' },
  },
  copilot: {
    user: { '.copilot/mcp-config.json': '{"mcpServers": {}}\n', '.copilot/hooks': null },
    project: { '.mcp.json': '{ "mcpServers": { } }', '.github/hooks': null },
  },
  opencode: {
    user: { '.config/opencode/opencode.json': '{"mcp": {}}\n', '.config/opencode/plugins': null },
    project: { 'opencode.json': '{ }', '.opencode/plugins': null },
  },
  codex: {
    user: { '.codex/hooks.json': '{"hooks": {"Stop": []}}\n', '.codex/config.toml': 'model = "o3"' },
    project: { '.codex/hooks.json': '{\n}', '.codex/config.toml': '\n' },
  },
} as const;

// Trial 2026-12-06, item 2: uninstall deleted the user's own empty entries and an empty folder of theirs.
describe('setup --uninstall gives back the files as they were before setup, byte for byte', () => {
  it.each(
    Object.entries(USER_FILES).flatMap(([agent, scopes]) =>
      Object.entries(scopes).map(([scope, files]) => [agent, scope, files] as const),
    ),
  )('%s (%s): empty objects, arrays and folders of the user stay', async (agent, scope, files) => {
    const home = tempDir('setup-home-');
    const env = { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const root = scope === 'user' ? home : project;
    fill(root, files);
    const before = snapshotFolder(root);
    const args = ['setup', agent, ...(scope === 'project' ? ['--project'] : [])];
    const installed = await runCli(args, { cwd: project, env });
    expect(installed.code, installed.stderr).toBe(0);
    expect(snapshotFolder(root)).not.toEqual(before);
    // Set up twice (nothing changes), then taken out.
    expect((await runCli(args, { cwd: project, env })).code).toBe(0);
    const removed = await runCli([...args, '--uninstall'], { cwd: project, env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(snapshotFolder(root)).toEqual(before);
  });

  it("an empty hooks object of the user's stays, while the server table and hook lists setup made in the file go", async () => {
    const home = tempDir('setup-home-');
    const env = { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const settings = path.join(home, '.gemini', 'settings.json');
    fill(home, { '.gemini/settings.json': '{\n  "theme": "dark",\n  "hooks": {}\n}\n' });
    expect((await runCli(['setup', 'gemini'], { cwd: project, env })).code).toBe(0);
    expect((await runCli(['setup', 'gemini', '--uninstall'], { cwd: project, env })).code).toBe(0);
    expect(readFileSync(settings, 'utf8')).toBe('{\n  "theme": "dark",\n  "hooks": {}\n}\n');
  });
});

// Trial 2026-12-06, item 14: a user's trailing comment moved to after the entry setup added.
describe("setup keeps a user's comment after the user's own entry", () => {
  it.each([
    [
      'a server followed by a comment',
      '{\n  "mcpServers": {\n    "zeta": { "command": "z" } // trailing comment\n  }\n}\n',
      /"zeta": \{ "command": "z" \},? \/\/ trailing comment\n/,
    ],
    [
      'a server, a trailing comma and a comment',
      '{\n  "mcpServers": {\n    "zeta": { "command": "z" }, // trailing comment\n  }\n}\n',
      /"zeta": \{ "command": "z" \}, \/\/ trailing comment\n/,
    ],
    [
      'a hook group followed by a block comment',
      '{\n  "hooks": {\n    "AfterTool": [\n      { "hooks": [] } /* mine */\n    ]\n  }\n}\n',
      /\{ "hooks": \[\] \},? \/\* mine \*\/\n/,
    ],
    [
      'the last setting followed by a comment',
      '{\n  "theme": "dark" // my theme\n}\n',
      /"theme": "dark",? \/\/ my theme\n/,
    ],
  ])('%s', async (_name, mine, kept) => {
    const home = tempDir('setup-home-');
    const env = { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const settings = path.join(home, '.gemini', 'settings.json');
    fill(home, { '.gemini/settings.json': mine });
    const installed = await runCli(['setup', 'gemini'], { cwd: project, env });
    expect(installed.code, installed.stderr).toBe(0);
    const written = readFileSync(settings, 'utf8');
    expect(written).toMatch(kept);
    expect((await runCli(['setup', 'gemini'], { cwd: project, env })).code).toBe(0);
    expect(readFileSync(settings, 'utf8')).toBe(written);
    expect((await runCli(['setup', 'gemini', '--uninstall'], { cwd: project, env })).code).toBe(0);
    expect(readFileSync(settings, 'utf8')).toBe(mine);
  });
});
