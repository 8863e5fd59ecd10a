import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI, cliProject, runCli } from '../helpers/cli.js';
import { git, tempDir } from '../helpers/fixtures.js';
import { bareRemote, machine, cli as onMachine } from '../helpers/handoff.js';
import { connect } from '../helpers/mcp.js';

beforeAll(assertBuilt);

const MCP_WORDS =
  /list_snapshots|restore_snapshot|diff_snapshot|snapshot_files|save_session_checkpoint|load_session_checkpoint|push_handoff|pull_handoff|projectRoot|allowSecrets|modifiedFiles|recentCommands|nextSteps|dryRun|format "full"/;

// Built at run time so that no scanner flags this file.
const AWS_KEY = `AKIA${'QYLPMN5HHHFPZAM2'}`;
const GITHUB_TOKEN = `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`;

/** Runs the CLI with its stdout's reader (and stderr's too) gone before it writes, as `| head -1` leaves it. */
function runWithClosedStdout(args: string[], cwd: string, env: Record<string, string>, closeStderr = false) {
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CHECKPOINT_HOOK_HOST: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The CLI takes tens of milliseconds to start: the pipe's only reader is gone before its first write.
    child.stdout.destroy();
    if (closeStderr) child.stderr.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

// Issue 26, "Errors must name CLI commands, not MCP tool names": each surface speaks its own words.
describe('the CLI names its commands and flags, the MCP tools their tools and parameters', () => {
  it('a snapshot not found: `claude-checkpoint list` in the CLI, list_snapshots over MCP', async () => {
    const { root, env, cli } = cliProject();
    expect((await cli('snapshot')).code).toBe(0);
    const result = await cli('diff', 'nonexist');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "claude-checkpoint: no snapshot 'nonexist': see them with `claude-checkpoint list`\n",
    );
    const { call } = await connect({ deps: { env } });
    const tool = await call('diff_snapshot', { projectRoot: root, snapshotId: 'nonexist' });
    expect(tool.isError).toBe(true);
    expect(tool.text).toContain("no snapshot 'nonexist': see them with list_snapshots");
    expect(tool.text).not.toContain('claude-checkpoint');
  });

  it('the brief names `claude-checkpoint restore` in the CLI and restore_snapshot over MCP', async () => {
    const { root, env, cli } = cliProject();
    expect((await cli('save', '--goal', 'Ship it')).code).toBe(0);
    expect((await cli('snapshot')).code).toBe(0);
    const brief = await cli('brief');
    expect(brief.code).toBe(0);
    expect(brief.stdout).toMatch(
      /`claude-checkpoint restore \d{8}-\d{6}-[0-9a-f]{6}` can bring the files back/,
    );
    expect(brief.stdout).not.toMatch(MCP_WORDS);
    const { call } = await connect({ deps: { env } });
    const tool = await call('load_session_checkpoint', { projectRoot: root });
    expect(tool.text).toContain('restore_snapshot can bring the files back');
  });

  it('--root that does not exist, or is a file, is named --root', async () => {
    const { root, cli } = cliProject();
    const missing = await cli('status', '--root', '/nonexist/project');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('claude-checkpoint: --root does not exist: /nonexist/project\n');
    const file = await cli('list', '--root', path.join(root, 'a.txt'));
    expect(file.code).toBe(2);
    expect(file.stderr).toBe(`claude-checkpoint: --root must be a directory: ${path.join(root, 'a.txt')}\n`);
  });

  it.each([
    [
      ['--file', '/etc/passwd'],
      /^claude-checkpoint: --file is outside the project root .*: got '\/etc\/passwd'\n$/,
    ],
    [['--command', ''], /^claude-checkpoint: --command: must not be empty\n$/],
    [
      ['--next', 'ok', '--next', 'x'.repeat(501)],
      /^claude-checkpoint: --next \(the 2nd\): must be at most 500 characters \(got 501\)\n$/,
    ],
    [['--task', 'done:'], /^claude-checkpoint: --task: must not be empty\n$/],
  ])('save %j names the flag, exit 2, nothing saved', async (flags, message) => {
    const { cli } = cliProject();
    const result = await cli('save', '--goal', 'g', ...flags);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(MCP_WORDS);
    expect((await cli('brief')).stdout).toMatch(/^No checkpoint at /);
  });

  it('save --stdin names the JSON fields it was given, and bad JSON names no MCP tool', async () => {
    const { input } = cliProject();
    const badField = await input(
      '{"goal":"g","nextSteps":[""],"recentCommands":[{"command":""}]}',
      'save',
      '--stdin',
    );
    expect(badField.code).toBe(2);
    expect(badField.stderr).toContain('recentCommands.0.command: must not be empty');
    const badJson = await input('{goal', 'save', '--stdin');
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(
      /^claude-checkpoint: stdin must hold the checkpoint's fields as a JSON object/,
    );
    expect(badJson.stderr).not.toContain('save_session_checkpoint');
  });

  it('a push refused for a secret names --allow-secrets alone; over MCP, the person’s command', async () => {
    const { bare } = bareRemote();
    const a = machine(bare, 'Alice');
    writeFileSync(path.join(a.root, 'aws.ts'), `export const key = "${AWS_KEY}";\n`);
    const result = await onMachine(a, 'handoff', 'push', '--name', 'x');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('pass --allow-secrets if they are not secrets');
    expect(result.stderr).not.toMatch(MCP_WORDS);
    const { call } = await connect({ deps: { env: a.env } });
    const tool = await call('push_handoff', { projectRoot: a.root, name: 'x' });
    expect(tool.text).toContain('claude-checkpoint handoff push --allow-secrets');
    expect(tool.text).not.toContain('allowSecrets');
  });

  it('a pull names the CLI command to undo it, and no MCP tool', async () => {
    const { bare } = bareRemote();
    const a = machine(bare, 'Alice');
    const b = machine(bare, 'Bob');
    writeFileSync(path.join(a.root, 'new.ts'), 'new\n');
    expect((await onMachine(a, 'handoff', 'push', '--name', 'work')).code).toBe(0);
    const pulled = await onMachine(b, 'handoff', 'pull', '--name', 'work', '--yes');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toMatch(/^To undo: claude-checkpoint restore \S+ --yes$/m);
    expect(pulled.stdout).not.toMatch(MCP_WORDS);
  });
});

describe('help for a command path', () => {
  it.each([[['help', 'handoff', 'frob']], [['handoff', 'help', 'frob']]])(
    '%j: an unknown command, one hint, exit 2',
    async (args) => {
      const { cli } = cliProject();
      const result = await cli(...args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toEqual([
        "error: unknown command 'frob'",
        "(run 'claude-checkpoint handoff --help' for usage)",
      ]);
    },
  );

  it.each([[['help', 'handoff', 'push']], [['handoff', 'help', 'push']]])(
    "%j shows push's help",
    async (args) => {
      const { cli } = cliProject();
      const result = await cli(...args);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: claude-checkpoint handoff push/);
    },
  );

  it('a handoff named help is a name, not a request for help', async () => {
    const { cli } = cliProject();
    const result = await cli('handoff', 'drop', 'help');
    // The drop itself runs, and stops where any drop here would: this project has no remote.
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'claude-checkpoint: this repository has no remote to hand off through (add one with `git remote add`)\n',
    });
  });
});

describe('snapshot --trigger', () => {
  it.each([
    ['a token', GITHUB_TOKEN],
    ['a newline', 'a\nb'],
    ['300 characters', 'a'.repeat(300)],
    ['an empty name', ''],
  ])('%s is refused with a clear error, and nothing is stored', async (_what, trigger) => {
    const { cli } = cliProject();
    const result = await cli('snapshot', '--trigger', trigger);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^claude-checkpoint: --trigger must be a name of lowercase letters, digits and dashes, at most 40 characters/,
    );
    expect(result.stderr).not.toContain(GITHUB_TOKEN);
    const list = await cli('list');
    expect(list.stdout).toMatch(/^No snapshots yet/);
  });

  it('a name is kept as given', async () => {
    const { cli } = cliProject();
    expect((await cli('snapshot', '--trigger', 'pre-deploy')).code).toBe(0);
    expect((await cli('list')).stdout).toContain('[pre-deploy]');
  });
});

describe('a reader that stops reading (| head -1)', () => {
  it.each([[['list']], [['--help']], [['list', '--help']]])('%j exits quietly', async (args) => {
    const { root, env, cli } = cliProject();
    for (const file of ['b', 'c', 'd', 'e', 'f']) {
      writeFileSync(path.join(root, file), file);
      expect((await cli('snapshot')).code).toBe(0);
    }
    const result = await runWithClosedStdout(args, root, env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('a closed pipe never cuts the work short: a warning written first, and the snapshot is still taken', async () => {
    const { root, env, cli } = cliProject();
    // A misspelt setting: the command warns on stderr before it does anything.
    const config = tempDir('checkpoint-config-');
    writeFileSync(path.join(config, 'config.json'), JSON.stringify({ snapshotMaxCont: 3 }));
    const withConfig = { ...env, CHECKPOINT_CONFIG_DIR: config };
    writeFileSync(path.join(root, 'new.txt'), 'new\n');
    const result = await runWithClosedStdout(['snapshot', '--label', 'piped'], root, withConfig, true);
    expect(result.code).toBe(0);
    const listed = JSON.parse((await cli('list', '--json')).stdout);
    expect(listed.snapshots.map((snapshot: { label?: string }) => snapshot.label)).toContain('piped');
  });
});

describe('names with a newline or an escape are quoted, never printed raw', () => {
  it('scan quotes a file name as diff does', async () => {
    const { root, cli } = cliProject();
    writeFileSync(path.join(root, 'sec\nret.txt'), `${AWS_KEY}\n`);
    const result = await cli('scan', 'sec\nret.txt');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('"sec\\nret.txt":1:1 aws-access-key-id\n');
  });

  // Adversarial trial (issue 26): every name in the quoted form we print is taken back.
  it('scan takes a name back in the quoted form it prints', async () => {
    const { root, cli } = cliProject();
    writeFileSync(path.join(root, 'sec\tret.txt'), `${AWS_KEY}\n`);
    const result = await cli('scan', '"sec\\tret.txt"');
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('"sec\\tret.txt":1:1 aws-access-key-id\n');
    expect(result.code).toBe(1);
  });

  it('a project folder named with a newline and an escape: save, brief, status', async () => {
    const root = path.join(tempDir('cli-weird-'), 'we\nird\u001b[31m');
    mkdirSync(root);
    git(root, 'init', '-q', '-b', 'main');
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const cli = (...args: string[]) => runCli(args, { cwd: root, env });
    const quoted = `"${path.dirname(root)}/we\\nird\\033[31m`;
    const saved = await cli('save', '--goal', 'g');
    expect(saved.code, saved.stderr).toBe(0);
    const brief = await cli('brief');
    const status = await cli('status');
    for (const result of [saved, brief, status]) {
      expect(result.stdout).not.toContain('\u001b');
      expect(result.stdout).not.toMatch(/we\nird/);
    }
    expect(saved.stdout.split('\n')[0]).toContain(quoted);
    expect(brief.stdout.split('\n')[0]).toMatch(/^# Resuming: "we\\nird\\033\[31m" \(checkpoint saved /);
    expect(status.stdout.split('\n')[0]).toBe(`Project ${quoted}"`);
  });
});

describe('restore of a path that exists nowhere', () => {
  it('is the error diff gives, exit 2, in the CLI and over MCP', async () => {
    const { root, env, cli } = cliProject();
    expect((await cli('snapshot')).code).toBe(0);
    for (const flags of [[], ['--yes'], ['--dry-run']]) {
      const result = await cli('restore', 'latest', 'no/such', ...flags);
      expect(result.code, String(flags)).toBe(2);
      expect(result.stderr).toMatch(
        /^claude-checkpoint: path 'no\/such' is in neither snapshot \S+ nor the working tree\n$/,
      );
    }
    const { call } = await connect({ deps: { env } });
    const tool = await call('restore_snapshot', {
      projectRoot: root,
      snapshotId: 'latest',
      paths: ['no/such'],
    });
    expect(tool.isError).toBe(true);
    expect(tool.text).toMatch(/path 'no\/such' is in neither snapshot \S+ nor the working tree/);
    const outside = await cli('restore', 'latest', '../outside');
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(
      /^claude-checkpoint: path is outside the project root .*: got '\.\.\/outside'\n$/,
    );
    // A path that exists in one of them is restored as before.
    const known = await cli('restore', 'latest', 'a.txt', '--dry-run');
    expect(known.code).toBe(0);
  });
});
