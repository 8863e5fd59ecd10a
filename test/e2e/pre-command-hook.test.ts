import {
  appendFileSync,
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';
import { relayOnlyHook, startRelayServer } from '../helpers/relay.js';

beforeAll(assertBuilt);

// Claude Code's PreToolUse input for its Bash tool, as its hooks reference documents it.
const preToolUseInput = (root: string, command: string) =>
  JSON.stringify({
    session_id: 'sess-pre',
    cwd: root,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command, description: 'a command' },
  });

/** The plugin's PreToolUse hook for Bash, as Claude Code runs it before `command`. */
const preCommandHook = (
  root: string,
  env: Record<string, string>,
  command: string,
  entry = SHIPPED_HOOK_ENTRY,
) => runNodeScript(entry, ['PreToolUse'], { cwd: root, env, input: preToolUseInput(root, command) });

const promptHook = (root: string, env: Record<string, string>, prompt: string) =>
  runNodeScript(SHIPPED_HOOK_ENTRY, ['UserPromptSubmit'], {
    cwd: root,
    env,
    input: JSON.stringify({ cwd: root, prompt }),
  });

interface Listed {
  id: string;
  trigger: string;
  label?: string;
}
const snapshots = async (root: string, env: Record<string, string>): Promise<Listed[]> =>
  JSON.parse((await runCli(['list', '--json', '--root', root], { cwd: root, env })).stdout).snapshots;

const FEATURE = 'export const feature = true;\n';

function project() {
  const root = createRepo({ committed: { 'src/app.ts': 'export const app = 1;\n', 'README.md': '# app\n' } });
  return { root, env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } };
}

describe('the PreToolUse hook (a snapshot before a destructive command)', () => {
  it('rm -rf src: a pre-command snapshot holds what was written since the prompt, and restoring it brings it back', async () => {
    const { root, env } = project();
    expect(await promptHook(root, env, 'add a feature')).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // Written in the same turn, after the prompt's snapshot.
    writeFileSync(path.join(root, 'src', 'feature.ts'), 'export const feature = true;\n');
    appendFileSync(path.join(root, 'src', 'app.ts'), 'export const more = 2;\n');

    const hooked = await preCommandHook(root, env, 'rm -rf src');
    // Never a decision: the command always runs.
    expect(hooked).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const [newest, prompt] = await snapshots(root, env);
    expect(newest).toMatchObject({ trigger: 'pre-command', label: 'rm -rf src' });
    expect(prompt).toMatchObject({ trigger: 'prompt' });

    rmSync(path.join(root, 'src'), { recursive: true });
    const restored = await runCli(['restore', (newest as Listed).id, '--yes', '--root', root], {
      cwd: root,
      env,
    });
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'src', 'feature.ts'), 'utf8')).toBe('export const feature = true;\n');
    expect(readFileSync(path.join(root, 'src', 'app.ts'), 'utf8')).toBe(
      'export const app = 1;\nexport const more = 2;\n',
    );
    // The prompt's snapshot alone would not have brought them back.
    await runCli(['restore', (prompt as Listed).id, '--yes', '--root', root], { cwd: root, env });
    expect(existsSync(path.join(root, 'src', 'feature.ts'))).toBe(false);
  });

  it('harmless commands and look-alikes take no snapshot and say nothing', async () => {
    const { root, env } = project();
    await promptHook(root, env, 'look around');
    writeFileSync(path.join(root, 'new.txt'), 'changed since the prompt\n');
    for (const command of [
      'ls -la',
      'git status',
      'npm test 2>&1 | tail -20',
      'echo rm -rf src',
      'grep -rn "reset --hard" .',
      'echo log >> new-log.txt',
    ])
      expect(await preCommandHook(root, env, command)).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect((await snapshots(root, env)).map((snapshot) => snapshot.trigger)).toEqual(['prompt']);
  });

  it('the tricky forms count: cd, git -C, bash -c, > onto an existing file', async () => {
    const { root, env } = project();
    for (const command of [
      'cd src && git checkout -- .',
      "bash -c 'git clean -fdx'",
      'git -C src reset --hard',
      'echo new > README.md',
    ]) {
      // A change before each, so each snapshot is a new one.
      appendFileSync(path.join(root, 'README.md'), `${command}\n`);
      expect(await preCommandHook(root, env, command)).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    expect((await snapshots(root, env)).map((snapshot) => snapshot.label)).toEqual([
      'echo new > README.md',
      'git -C src reset --hard',
      "bash -c 'git clean -fdx'",
      'cd src && git checkout -- .',
    ]);
  });

  it('labels the snapshot with the command, redacted like every label', async () => {
    const { root, env } = project();
    await preCommandHook(root, env, 'API_KEY=sk8f3Qz71LwpX2v9 rm -rf build');
    expect((await snapshots(root, env))[0]).toMatchObject({
      trigger: 'pre-command',
      label: 'API_KEY=«redacted» rm -rf build',
    });
  });

  it('a snapshot that fails is a note on stderr; the command still runs (exit 0, no decision)', async () => {
    const { root } = project();
    // The store cannot be created: its place is taken by a file.
    const blocked = path.join(tempDir('blocked-'), 'store');
    writeFileSync(blocked, 'not a folder');
    const hooked = await preCommandHook(root, { CHECKPOINT_STORE_DIR: blocked }, 'rm -rf src');
    expect(hooked.code).toBe(0);
    expect(hooked.stdout).toBe('');
    expect(hooked.stderr).toMatch(
      /^claude-checkpoint hook PreToolUse: .+The session continues unaffected\.\n$/s,
    );
  });

  it('through the running MCP server: the relay takes the snapshot', async () => {
    const { root, env } = project();
    await startRelayServer(root, env);
    writeFileSync(path.join(root, 'src', 'feature.ts'), 'export const feature = true;\n');
    // This hook.cjs has no bundle beside it: only the server can have taken the snapshot.
    const hooked = await preCommandHook(root, env, 'git stash', relayOnlyHook());
    expect(hooked).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect((await snapshots(root, env))[0]).toMatchObject({ trigger: 'pre-command', label: 'git stash' });
  });

  it('Codex: its PreToolUse for Bash has the shape of Claude Code, and `hook PreToolUse --agent codex` snapshots the same way', async () => {
    const { root, env } = project();
    writeFileSync(path.join(root, 'src', 'feature.ts'), FEATURE);
    const hooked = await runCli(['hook', 'PreToolUse', '--agent', 'codex'], {
      cwd: root,
      env,
      input: JSON.stringify({
        session_id: 'codex-1',
        cwd: root,
        hook_event_name: 'PreToolUse',
        model: 'gpt-5-codex',
        tool_name: 'Bash',
        tool_use_id: 'call_1',
        tool_input: { command: 'git clean -fdx' },
      }),
    });
    expect(hooked).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect((await snapshots(root, env))[0]).toMatchObject({
      trigger: 'pre-command',
      label: 'git clean -fdx',
    });
  });

  // Issue 26 (trial 4): Copilot CLI's powershell tool was never checked.
  it('Copilot CLI: its powershell tool is checked, and Remove-Item takes a snapshot', async () => {
    const { root, env } = project();
    writeFileSync(path.join(root, 'src', 'feature.ts'), FEATURE);
    const copilot = (command: string) =>
      runNodeScript(SHIPPED_HOOK_ENTRY, ['PreToolUse', '--agent', 'copilot'], {
        cwd: root,
        env,
        input: JSON.stringify({
          sessionId: 'c1',
          cwd: root,
          toolName: 'powershell',
          toolArgs: JSON.stringify({ command }),
        }),
      });
    expect(await copilot('Get-ChildItem -Recurse src')).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await snapshots(root, env)).toEqual([]);
    expect(await copilot('Remove-Item -Recurse -Force src')).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    });
    expect((await snapshots(root, env))[0]).toMatchObject({
      trigger: 'pre-command',
      label: 'Remove-Item -Recurse -Force src',
    });
  });

  // Issue 26 (trial 5): its preToolUse names the tool `PowerShell` too (as its postToolUse records it).
  it('Copilot CLI: a preToolUse for `PowerShell` (toolName or tool_name) is checked', async () => {
    const { root, env } = project();
    for (const field of ['toolName', 'tool_name']) {
      const command = `Remove-Item -Recurse src # ${field}`;
      appendFileSync(path.join(root, 'README.md'), `${field}\n`);
      const hooked = await runNodeScript(SHIPPED_HOOK_ENTRY, ['PreToolUse', '--agent', 'copilot'], {
        cwd: root,
        env,
        input: JSON.stringify({ sessionId: 'c1', cwd: root, [field]: 'PowerShell', toolArgs: { command } }),
      });
      expect(hooked).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect((await snapshots(root, env))[0]).toMatchObject({ trigger: 'pre-command', label: command });
    }
  });

  // Issue 26: Claude Code's own PowerShell tool (on by default on Windows without Git Bash) went unseen.
  it("Claude Code's PowerShell tool: Remove-Item takes a snapshot, read as PowerShell; Get-ChildItem none", async () => {
    const { root, env } = project();
    writeFileSync(path.join(root, 'src', 'feature.ts'), FEATURE);
    // Its PreToolUse input is the Bash tool's, with tool_name PowerShell (hooks and tools reference).
    const powerShell = (command: string) =>
      runNodeScript(SHIPPED_HOOK_ENTRY, ['PreToolUse'], {
        cwd: root,
        env,
        input: JSON.stringify({
          session_id: 'sess-ps',
          cwd: root,
          hook_event_name: 'PreToolUse',
          tool_name: 'PowerShell',
          tool_input: { command, description: 'a command' },
          tool_use_id: 'toolu_ps',
        }),
      });
    expect(await powerShell('Get-ChildItem -Recurse src')).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await snapshots(root, env)).toEqual([]);
    // Remove-Item is no command to sh: only the PowerShell reader sees it delete src.
    expect(await powerShell('Remove-Item -Recurse src')).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const [taken] = await snapshots(root, env);
    expect(taken).toMatchObject({ trigger: 'pre-command', label: 'Remove-Item -Recurse src' });
    rmSync(path.join(root, 'src'), { recursive: true });
    const restored = await runCli(['restore', (taken as Listed).id, '--yes', '--root', root], {
      cwd: root,
      env,
    });
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'src', 'feature.ts'), 'utf8')).toBe(FEATURE);
  });

  it('a command whose every target is outside the project takes no snapshot; one that may reach inside does', async () => {
    const { root, env } = project();
    const home = tempDir('home-');
    const withHome = { ...env, HOME: home };
    await promptHook(root, withHome, 'clean up');
    const outside = tempDir('elsewhere-');
    for (const command of [
      `rm ${outside}/tmpfile`,
      'rm -rf $HOME/whatever',
      'rm -rf ~/.cache/z',
      `rm -f ${outside}/*.log`,
      `cd ${outside} && rm -rf x`,
    ]) {
      appendFileSync(path.join(root, 'README.md'), `${command}\n`);
      expect(await preCommandHook(root, withHome, command)).toMatchObject({
        code: 0,
        stdout: '',
        stderr: '',
      });
    }
    expect((await snapshots(root, withHome)).map((snapshot) => snapshot.trigger)).toEqual(['prompt']);
    for (const command of [
      `rm -rf ${root}/src`,
      'rm -rf ../x',
      'rm -rf $DIR/x',
      `rm ${outside}/x README.md`,
    ]) {
      appendFileSync(path.join(root, 'README.md'), `${command}\n`);
      await preCommandHook(root, withHome, command);
    }
    expect((await snapshots(root, withHome)).map((snapshot) => snapshot.label)).toEqual([
      `rm ${outside}/x README.md`,
      'rm -rf $DIR/x',
      'rm -rf ../x',
      `rm -rf ${root}/src`,
      'clean up',
    ]);
  });

  // Issue 26: `patch` and `git apply` rewrote files of the tree with no snapshot before them.
  it('patch and git apply: a snapshot first, which brings back what they changed; --check, --dry-run, --cached and a folder outside take none', async () => {
    const { root, env } = project();
    const outside = tempDir('elsewhere-');
    // Work not yet committed, which the patch is applied on top of.
    writeFileSync(path.join(root, 'src', 'app.ts'), 'export const app = 2;\n');
    writeFileSync(
      path.join(root, 'fix.diff'),
      'diff --git a/src/app.ts b/src/app.ts\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-export const app = 2;\n+export const app = 3;\n',
    );
    for (const command of [
      'git apply --check fix.diff',
      'git apply --stat fix.diff',
      'git apply --cached fix.diff',
      'patch --dry-run -p1 < fix.diff',
      `patch -d ${outside} -p1 < fix.diff`,
    ])
      expect(await preCommandHook(root, env, command)).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await snapshots(root, env)).toEqual([]);

    expect(await preCommandHook(root, env, 'git apply fix.diff')).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    });
    const [taken] = await snapshots(root, env);
    expect(taken).toMatchObject({ trigger: 'pre-command', label: 'git apply fix.diff' });
    git(root, 'apply', 'fix.diff');
    expect(readFileSync(path.join(root, 'src', 'app.ts'), 'utf8')).toBe('export const app = 3;\n');
    const restored = await runCli(['restore', (taken as Listed).id, '--yes', '--root', root], {
      cwd: root,
      env,
    });
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'src', 'app.ts'), 'utf8')).toBe('export const app = 2;\n');

    appendFileSync(path.join(root, 'README.md'), 'more\n');
    await preCommandHook(root, env, 'patch -p1 < fix.diff');
    expect((await snapshots(root, env))[0]).toMatchObject({
      trigger: 'pre-command',
      label: 'patch -p1 < fix.diff',
    });
  });

  // Issue 26 (trial 5): each of these ran with no snapshot before it, through this very hook.
  it('a shell option before -c, a here-document into bash, a pipe into sh, time -p, cmd /c, -ErrorAction: a snapshot first; sed -i outside the project none', async () => {
    const { root, env } = project();
    const outside = tempDir('elsewhere-');
    writeFileSync(path.join(outside, 'file'), 'a\n');
    await promptHook(root, env, 'tidy up');
    const run = (command: string, tool: 'Bash' | 'PowerShell') =>
      runNodeScript(SHIPPED_HOOK_ENTRY, ['PreToolUse'], {
        cwd: root,
        env,
        input: JSON.stringify({ ...JSON.parse(preToolUseInput(root, command)), tool_name: tool }),
      });
    const bash = [
      "bash -euo pipefail -c 'rm README.md'",
      'bash <<X\nrm README.md\nX',
      'echo "rm README.md" | sh',
      'time -p rm README.md',
      "git -c alias.x='!rm README.md' x",
      "awk -i inplace '{print}' README.md",
    ];
    const powerShell = [
      'Set-Content -ErrorAction Stop README.md x',
      'cmd /c del README.md',
      'Get-Process | Tee-Object README.md',
    ];
    for (const [command, tool] of [
      ...bash.map((line) => [line, 'Bash'] as const),
      ...powerShell.map((line) => [line, 'PowerShell'] as const),
    ]) {
      appendFileSync(path.join(root, 'README.md'), `${command}\n`);
      expect(await run(command, tool)).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    expect((await snapshots(root, env)).map((snapshot) => snapshot.label)).toEqual([
      // A label is one line.
      ...[...bash, ...powerShell].reverse().map((command) => command.replaceAll('\n', ' ')),
      'tidy up',
    ]);
    // Harmless look-alikes and targets outside the project take none.
    for (const [command, tool] of [
      ["bash -o pipefail -c 'npm test'", 'Bash'],
      ['bash <<X\nls -la\nX', 'Bash'],
      [`sed -i 's/a/b/' ${outside}/file`, 'Bash'],
      [`perl -pi -e 's/a/b/' ${outside}/file`, 'Bash'],
      [`Remove-Item ${outside}/file -ErrorAction SilentlyContinue`, 'PowerShell'],
    ] as const) {
      appendFileSync(path.join(root, 'README.md'), `${command}\n`);
      expect(await run(command, tool)).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    expect(await snapshots(root, env)).toHaveLength(bash.length + powerShell.length + 1);
  });

  it('the gate is its own bundle, loaded through its own cache for the pre-command event only', async () => {
    const { root, env } = project();
    const alone = { ...env, CHECKPOINT_HOOK_RELAY: '0' };
    const cacheDir = path.join(env.CHECKPOINT_STORE_DIR, 'cache');
    const gateCaches = () =>
      existsSync(cacheDir) ? readdirSync(cacheDir).filter((name) => name.startsWith('gate-')) : [];
    // Another event never loads it.
    const bash = await runNodeScript(SHIPPED_HOOK_ENTRY, ['PostToolUse'], {
      cwd: root,
      env: alone,
      input: JSON.stringify({
        cwd: root,
        tool_name: 'Bash',
        tool_input: { command: 'npm test' },
        tool_response: {},
      }),
    });
    expect(bash).toMatchObject({ code: 0, stderr: '' });
    expect(gateCaches()).toEqual([]);
    // A harmless command ends in the loader, having read the gate through the cache it writes once.
    expect(await preCommandHook(root, alone, 'npm test')).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const [cache] = gateCaches();
    expect(cache).toMatch(/^gate-PreToolUse-v\d+\.\d+\.\d+-\w+-[0-9a-f]{16}\.v8$/);
    const written = readFileSync(path.join(cacheDir, cache as string));
    expect(await preCommandHook(root, alone, 'ls -la')).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(path.join(cacheDir, cache as string)).equals(written)).toBe(true);
    expect(await snapshots(root, env)).toEqual([]);
    // A destructive one is snapshotted first, as before.
    expect(await preCommandHook(root, alone, 'rm -rf src')).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    });
    expect(await snapshots(root, env)).toMatchObject([{ trigger: 'pre-command', label: 'rm -rf src' }]);
  });

  it("without a working gate beside hook.cjs (missing, damaged, another version's, throwing), the hooks' bundle judges the command: a destructive one still gets its snapshot", async () => {
    const shipped = path.dirname(SHIPPED_HOOK_ENTRY);
    const gates: Array<[string, string | null]> = [
      ['missing', null],
      ['cut short', readFileSync(path.join(shipped, 'hook-gate.cjs'), 'utf8').slice(0, 5000)],
      ["another version's", 'exports.somethingElse = () => false;\n'],
      ['throwing', 'exports.stdinMayDestroyWork = () => { throw new Error("broken gate"); };\n'],
    ];
    for (const [kind, gate] of gates) {
      const { root, env } = project();
      const alone = { ...env, CHECKPOINT_HOOK_RELAY: '0' };
      const dir = tempDir('no-gate-');
      for (const file of ['hook.cjs', 'hook-front.cjs', 'hook-main.cjs'])
        copyFileSync(path.join(shipped, file), path.join(dir, file));
      if (gate !== null) writeFileSync(path.join(dir, 'hook-gate.cjs'), gate);
      const entry = path.join(dir, 'hook.cjs');
      expect(await preCommandHook(root, alone, 'npm test', entry), kind).toMatchObject({
        code: 0,
        stdout: '',
        stderr: '',
      });
      expect(await snapshots(root, env), kind).toEqual([]);
      expect(await preCommandHook(root, alone, 'git clean -fdx', entry), kind).toMatchObject({
        code: 0,
        stdout: '',
        stderr: '',
      });
      expect(await snapshots(root, env), kind).toMatchObject([
        { trigger: 'pre-command', label: 'git clean -fdx' },
      ]);
    }
  });

  // An adversarial trial: the folder a command runs in (OpenCode's workdir, Copilot CLI's cwd, Gemini
  // CLI's dir_path) was taken for the project, and the snapshot went to a store of that subfolder alone,
  // without the project's unsaved work the command then deleted.
  it("a command run in another folder than the session's: the snapshot is of the project, its paths read from that folder", async () => {
    const cases: Array<[string, (root: string, command: string, dir: string) => unknown]> = [
      [
        'opencode',
        (root, command, dir) => ({
          hook_event_name: 'PreToolUse',
          cwd: root,
          session_id: 'oc1',
          tool_name: 'Bash',
          tool_input: { command, workdir: dir },
        }),
      ],
      [
        'copilot',
        (root, command, dir) => ({
          sessionId: 'c1',
          cwd: root,
          toolName: 'bash',
          toolArgs: JSON.stringify({ command, cwd: dir }),
        }),
      ],
      [
        'gemini',
        (root, command, dir) => ({
          hook_event_name: 'BeforeTool',
          cwd: root,
          session_id: 'g1',
          tool_name: 'run_shell_command',
          tool_input: { command, dir_path: dir },
        }),
      ],
    ];
    for (const [agent, payload] of cases) {
      const { root, env } = project();
      const event = agent === 'gemini' ? 'BeforeTool' : 'PreToolUse';
      // The agent's edit since the prompt, at the project's top, which the command deletes from src/.
      writeFileSync(path.join(root, 'README.md'), '# app, edited by the agent\n');
      const hooked = await runNodeScript(SHIPPED_HOOK_ENTRY, [event, '--agent', agent], {
        cwd: root,
        env,
        input: JSON.stringify(payload(root, 'rm ../README.md', 'src')),
      });
      expect(hooked, agent).toMatchObject({ code: 0, stdout: '' });
      const [snapshot] = await snapshots(root, env);
      expect(snapshot, agent).toMatchObject({ trigger: 'pre-command', label: 'rm ../README.md' });
      // One store, the project's: none of src/ alone.
      expect(readdirSync(path.join(env.CHECKPOINT_STORE_DIR, 'projects')), agent).toHaveLength(1);
      rmSync(path.join(root, 'README.md'));
      const restored = await runCli(['restore', (snapshot as Listed).id, '--yes', '--root', root], {
        cwd: root,
        env,
      });
      expect(restored.code, restored.stderr).toBe(0);
      expect(readFileSync(path.join(root, 'README.md'), 'utf8'), agent).toBe('# app, edited by the agent\n');
      // Its paths are still read from the command's folder: `rm app.ts` there is a file of the project.
      const inSrc = await runNodeScript(SHIPPED_HOOK_ENTRY, [event, '--agent', agent], {
        cwd: root,
        env,
        input: JSON.stringify(payload(root, 'rm app.ts', 'src')),
      });
      expect(inSrc, agent).toMatchObject({ code: 0, stdout: '' });
      expect((await snapshots(root, env))[0], agent).toMatchObject({
        trigger: 'pre-command',
        label: 'rm app.ts',
      });
    }
  });

  it('a command the agent runs in another repository: that repository is snapshotted too, before the command runs', async () => {
    const { root, env } = project();
    const other = createRepo({ committed: { 'src/lib.ts': 'export const lib = 1;\n' } });
    // Unsaved work in the other repository, which the command deletes.
    writeFileSync(path.join(other, 'src', 'draft.ts'), 'export const draft = true;\n');
    const hooked = await runNodeScript(SHIPPED_HOOK_ENTRY, ['PreToolUse', '--agent', 'opencode'], {
      cwd: root,
      env,
      input: JSON.stringify({
        hook_event_name: 'PreToolUse',
        cwd: root,
        session_id: 'oc1',
        tool_name: 'Bash',
        tool_input: { command: 'rm -rf src', workdir: other },
      }),
    });
    expect(hooked).toMatchObject({ code: 0, stdout: '' });
    const [mine] = await snapshots(other, env);
    expect(mine).toMatchObject({ trigger: 'pre-command', label: 'rm -rf src' });
    rmSync(path.join(other, 'src'), { recursive: true });
    const restored = await runCli(['restore', (mine as Listed).id, '--yes', '--root', other], {
      cwd: other,
      env,
    });
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(other, 'src', 'draft.ts'), 'utf8')).toBe('export const draft = true;\n');
    // The session's project has its own, as for any destructive command.
    expect((await snapshots(root, env))[0]).toMatchObject({ trigger: 'pre-command', label: 'rm -rf src' });
  });
});
