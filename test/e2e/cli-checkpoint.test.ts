import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { HOOK_EVENTS } from '../../src/core/hook-events.js';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const SHELL_EVENTS: readonly string[] = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'];

const stored = (root: string) => JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));

describe('claude-checkpoint checkpoint commands', () => {
  it('saves from flags, merges from JSON on stdin, and prints the brief', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, dirty: { 'a.ts': 'b' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const saved = await runCli(
      [
        'save',
        '--goal',
        'Ship it',
        '--task',
        'done:first',
        '--task',
        'in_progress:second',
        '--next',
        'do x',
        '--file',
        'a.ts::main file',
        '--command',
        'TOKEN=u7Rk2Qx9Lm4Tz8 make',
      ],
      { cwd: root, env },
    );
    expect(saved.code).toBe(0);
    expect(saved.stdout).toMatch(
      /^Checkpoint saved to .*\(\d+ bytes, replace\)\.\n2 task\(s\), 1 file\(s\), 1 command\(s\) on main@[0-9a-f]{9}\.\n⚠ Redacted 1 secret-looking value\(s\)\.\n$/,
    );
    expect(stored(root).modifiedFiles).toMatchObject([
      { path: 'a.ts', status: 'M', source: 'git', note: 'main file' },
    ]);

    const merged = await runCli(['save', '--stdin', '--json'], {
      cwd: root,
      env,
      input: JSON.stringify({ goal: 'Ship it', mode: 'merge', decisions: ['d1'] }),
    });
    expect(JSON.parse(merged.stdout)).toMatchObject({ mode: 'merge', counts: { tasks: 2 } });

    const brief = await runCli(['brief'], { cwd: root, env });
    expect(brief.stdout).toContain('## Decisions & gotchas\n- d1');
    expect(brief.stdout).toContain('- `TOKEN=«redacted» make`');
    const full = await runCli(['load', '--format', 'full', '--json'], { cwd: root, env });
    expect(JSON.parse(full.stdout)).toMatchObject({
      found: true,
      checkpoint: { goal: { primary: 'Ship it' } },
    });
  });

  it('rejects bad input with exit 2, one line naming the field, and writes nothing', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const cases: Array<[string[], string, RegExp]> = [
      [['save'], '', /--goal: is required/],
      [['save', '--goal', 'g', '--task', 'later:x'], '', /--task must look like <status>:<description>/],
      [['save', '--goal', 'x'.repeat(501)], '', /--goal: must be at most 500 characters \(got 501\)/],
      [['save', '--stdin'], '{not json', /stdin must hold the checkpoint's fields as a JSON object/],
      [['save', '--goal', 'g', '--file', '../outside.ts'], '', /--file is outside the project root/],
      [['load', '--format', 'xml'], '', /--format must be "brief" or "full"/],
    ];
    for (const [args, input, message] of cases) {
      const result = await runCli(args, { cwd: root, input });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    const none = await runCli(['brief'], { cwd: root });
    expect(none).toMatchObject({ code: 0 });
    expect(none.stdout).toMatch(/nothing to resume/);
  });

  // Windows PowerShell 5.1 pipes text to a program with a byte order mark first (input audit).
  it('save --stdin reads JSON that starts with a byte order mark', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const saved = await runCli(['save', '--stdin'], { cwd: root, input: '\ufeff{"goal":"From PowerShell"}' });
    expect(saved.stderr).toBe('');
    expect(saved.code).toBe(0);
    expect((await runCli(['brief'], { cwd: root })).stdout).toContain('From PowerShell');
  });

  // A trial: in a repository with no commit yet, status said "no git at save time". As the spec says, a
  // checkpoint saved with no commit has no drift; status says why in words that hold.
  it('status in a repository with no commit yet says drift is not tracked for want of a commit', async () => {
    const root = createRepo();
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), NO_COLOR: '1' };
    await runCli(['save', '--goal', 'g'], { cwd: root, env });
    const status = await runCli(['status'], { cwd: root, env });
    expect(status.stdout).toContain(
      'Drift: not tracked (no git facts at save time: not a git repository then, no commit yet, or git could not read it)',
    );
    const brief = (await runCli(['brief'], { cwd: root, env })).stdout;
    expect(brief).not.toContain('Since this checkpoint');
  });

  it('status shows the checkpoint, drift, snapshots and ignore rules on one screen', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, ignore: 'dist\n' });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), NO_COLOR: '1' };
    await runCli(['save', '--goal', 'Status goal', '--task', 'done:t1', '--task', 'blocked:t2'], {
      cwd: root,
      env,
    });
    await runCli(['snapshot'], { cwd: root, env });
    writeTree(root, { 'new.ts': 'n' });
    const status = await runCli(['status'], { cwd: root, env });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Goal: Status goal');
    expect(status.stdout).toContain('Tasks: 1 done, 0 in progress, 0 pending, 1 blocked');
    expect(status.stdout).toContain('Drift: 1 file(s) changed since the save');
    expect(status.stdout).toMatch(/Snapshots: 1, latest \d{8}-\d{6}-[0-9a-f]{6} \(manual/);
    expect(status.stdout).toContain('.claude-checkpoint* is NOT ignored');
    expect(status.stdout).not.toContain('\u001b[');
    const json = JSON.parse((await runCli(['status', '--json'], { cwd: root, env })).stdout);
    expect(json).toMatchObject({
      checkpointIgnored: false,
      snapshots: { count: 1 },
      checkpoint: { goal: 'Status goal', tasks: { done: 1, blocked: 1 } },
    });
  });

  it('status still works in a folder where snapshots are refused (a home folder)', async () => {
    const home = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { HOME: home, NO_COLOR: '1', CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    await runCli(['save', '--goal', 'At home'], { cwd: home, env });
    const status = await runCli(['status'], { cwd: home, env });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Goal: At home');
    expect(status.stdout).toContain('Snapshots: not taken here');
  });

  it('doctor finds the problems and says how to fix each', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, ignore: 'dist\n' });
    const home = tempDir('checkpoint-home-');
    const result = await runCli(['doctor', '--json'], { cwd: root, env: { HOME: home } });
    const checks = JSON.parse(result.stdout).checks as Array<{ name: string; level: string; fix?: string }>;
    expect(result.code).toBe(0);
    expect(checks.find((check) => check.name === 'git')?.level).toBe('ok');
    expect(checks.find((check) => check.name === 'git ignore')).toMatchObject({
      level: 'warn',
      fix: expect.stringContaining('.claude-checkpoint*'),
    });
    expect(checks.find((check) => check.name === 'Claude Code hooks')).toMatchObject({
      level: 'warn',
      fix: expect.stringContaining('claude plugin install'),
    });

    writeFileSync(path.join(root, '.claude-checkpoint'), '{broken');
    const broken = await runCli(['doctor'], { cwd: root, env: { HOME: home, NO_COLOR: '1' } });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/✗ checkpoint: .*unusable/);
  });

  // Issue 26: hooks set up by hand from an earlier manual set-up match `Bash` only, and Claude Code's
  // PowerShell tool (on by default on Windows without Git Bash) then runs commands they never see.
  it("doctor: the docs' manual set-up is ok; shell hooks that match Bash only are a warning", async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, ignore: '.claude-checkpoint*\n' });
    const page = readFileSync(new URL('../../docs/agents/claude-code.md', import.meta.url), 'utf8');
    const snippet = [...page.matchAll(/```json\n([\s\S]*?)```/g)]
      .map((match) => match[1] ?? '')
      .find((json) => json.includes('"PreToolUse"'));
    const hooksCheck = async (settings: string) => {
      const home = tempDir('checkpoint-home-');
      writeTree(home, { '.claude/settings.json': settings });
      const result = await runCli(['doctor', '--json'], { cwd: root, env: { HOME: home } });
      expect(result.code).toBe(0);
      const checks = JSON.parse(result.stdout).checks as Array<{ name: string }>;
      return checks.find((check) => check.name === 'Claude Code hooks');
    };
    // A clone in a folder of any name, built: the entry files exist there (issue 26).
    const clone = tempDir('my-tools-');
    writeTree(clone, { 'dist/hook.js': '', 'plugin/dist/hook.cjs': '' });
    const placeholder = '/absolute/path/to/claude-checkpoint-mcp';
    const mine = (snippet ?? '').replaceAll(placeholder, clone);
    expect(mine).not.toContain('claude-checkpoint');
    expect(await hooksCheck(mine)).toMatchObject({ level: 'ok' });
    const bashOnly = mine.replaceAll('"matcher": "Bash|PowerShell"', '"matcher": "Bash"');
    expect(bashOnly).not.toBe(mine);
    expect(await hooksCheck(bashOnly)).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining('PowerShell'),
      fix: expect.stringContaining('Bash|PowerShell'),
    });
    // Pasted unedited, the hooks run files that do not exist: every event's hook would fail.
    expect(await hooksCheck(snippet ?? '')).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining(`point at ${placeholder}/dist/hook.js, which does not exist`),
      fix: expect.stringContaining('absolute path of your build'),
    });
    // The command-line form, with a quoted path that holds a space, and `claude-checkpoint hook <event>`.
    const spaced = path.join(tempDir('tools-'), 'my tools');
    writeTree(spaced, { 'dist/hook.js': '' });
    const commandLines = {
      hooks: Object.fromEntries(
        HOOK_EVENTS.map((event) => [
          event,
          [
            {
              matcher: SHELL_EVENTS.includes(event) ? 'Bash|PowerShell' : undefined,
              hooks: [
                {
                  type: 'command',
                  command:
                    event === 'Stop'
                      ? 'claude-checkpoint hook Stop'
                      : `node '${spaced}/dist/hook.js' ${event}`,
                },
              ],
            },
          ],
        ]),
      ),
    };
    expect(await hooksCheck(JSON.stringify(commandLines))).toMatchObject({ level: 'ok' });
    rmSync(path.join(spaced, 'dist'), { recursive: true });
    expect(await hooksCheck(JSON.stringify(commandLines))).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining(`${spaced}/dist/hook.js, which does not exist`),
    });
    // Helper task left3, item 5: the other forms that run our hooks were reported as missing: the
    // full CLI's entry (`node …/dist/cli.js hook <event>`, as this page says; dist/cli.cjs, as install.md
    // runs it) and npx with its options (`-y`, `--package claude-checkpoint-mcp`, `--`).
    const built = tempDir('built-');
    // A build of this package: its package.json is above dist/ (another tool's dist/cli.js is not ours).
    writeTree(built, {
      'package.json': '{"name":"claude-checkpoint-mcp"}',
      'dist/cli.js': '',
      'dist/cli.cjs': '',
    });
    const eachEvent = (command: (event: string) => string | { command: string; args: string[] }) =>
      JSON.stringify({
        hooks: Object.fromEntries(
          HOOK_EVENTS.map((event) => {
            const run = command(event);
            return [
              event,
              [
                {
                  matcher: SHELL_EVENTS.includes(event) ? 'Bash|PowerShell' : undefined,
                  hooks: [{ type: 'command', ...(typeof run === 'string' ? { command: run } : run) }],
                },
              ],
            ];
          }),
        ),
      });
    for (const form of [
      (event: string) => `node ${built}/dist/cli.js hook ${event}`,
      (event: string) => ({ command: 'node', args: [`${built}/dist/cli.cjs`, 'hook', event] }),
      (event: string) => `npx claude-checkpoint hook ${event}`,
      (event: string) => `npx -y claude-checkpoint hook ${event}`,
      (event: string) => `npx --yes --package claude-checkpoint-mcp claude-checkpoint hook ${event}`,
      (event: string) => `npx -y -p claude-checkpoint-mcp@0.1.0 -- claude-checkpoint hook ${event}`,
      (event: string) => ({
        command: 'npx',
        args: ['--package=claude-checkpoint-mcp', 'claude-checkpoint', 'hook', event],
      }),
    ])
      expect(await hooksCheck(eachEvent(form)), eachEvent(form).slice(0, 200)).toMatchObject({ level: 'ok' });
    // The full CLI's entry gone: a warning that names it, as for the hook entry.
    expect(
      await hooksCheck(eachEvent((event) => `node ${built}/gone/dist/cli.js hook ${event}`)),
    ).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining(`${built}/gone/dist/cli.js, which does not exist`),
    });
    // A hook of someone else's that merely mentions the name is not ours.
    const theirs = JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'echo claude-checkpoint' }] }] },
    });
    expect(await hooksCheck(theirs)).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining('no hooks'),
    });
  });
});
