import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADAPTERS, AGENTS } from '../../src/hooks/agents.js';
import { INPUT_CUT_KEY, INPUT_UNFINISHED_KEY } from '../../src/hooks/input.js';
import {
  COMMAND_CWD,
  claudePreToolInput,
  isPreCommandEvent,
  pendingCommandRisk,
  stdinMayDestroyWork,
} from '../../src/hooks/pre-command-gate.js';
import { tempDir, writeTree } from '../helpers/fixtures.js';

const input = (cwd: string, command: string, tool = 'Bash') =>
  JSON.stringify({ cwd, tool_name: tool, tool_input: { command } });

describe('the PreToolUse gate', () => {
  it('checks paths in the folder the input names, not the hook process’s', () => {
    const project = tempDir('gate-');
    writeTree(project, { 'notes.txt': 'kept', 'docs/README.md': 'kept' });
    const elsewhere = tempDir('gate-elsewhere-');
    expect(stdinMayDestroyWork(input(project, 'echo x > notes.txt'), elsewhere)).toBe(true);
    expect(stdinMayDestroyWork(input(project, 'echo x > fresh.txt'), elsewhere)).toBe(false);
    expect(stdinMayDestroyWork(input(project, 'cp notes.txt docs/README.md'), elsewhere)).toBe(true);
    expect(stdinMayDestroyWork(input(project, 'cd docs && echo x > README.md'), elsewhere)).toBe(true);
    // Without a cwd in the input, the process's folder.
    expect(
      stdinMayDestroyWork(
        JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'echo x > notes.txt' } }),
        project,
      ),
    ).toBe(true);
  });

  // Issue 26: patch and git apply were not seen; a patch of files outside the project stays harmless.
  it('patch and git apply are seen, checked against the real tree; a patch outside the project is not', () => {
    const project = tempDir('gate-');
    writeTree(project, { 'src/app.ts': 'x', 'fix.diff': 'd', 'README.md': 'r' });
    const elsewhere = tempDir('gate-elsewhere-');
    writeTree(elsewhere, { 'x.c': 'c' });
    for (const command of [
      'patch -p1 < fix.diff',
      'patch src/app.ts fix.diff',
      'patch -o README.md src/app.ts fix.diff',
      'git apply fix.diff',
      'git rebase --abort',
    ])
      expect(stdinMayDestroyWork(input(project, command), '/'), command).toBe(true);
    for (const command of [
      `patch ${elsewhere}/x.c fix.diff`,
      `patch -d ${elsewhere} -p1 < fix.diff`,
      `patch -o ${elsewhere}/out.c src/app.ts fix.diff`,
      'patch -o fresh.ts src/app.ts fix.diff',
      'git apply --check fix.diff',
      'git rebase main',
    ])
      expect(stdinMayDestroyWork(input(project, command), '/'), command).toBe(false);
    expect(pendingCommandRisk(JSON.parse(input(project, 'git apply fix.diff')), '/').reason).toBe(
      'git apply rewrites files (git apply fix.diff)',
    );
  });

  it('names the command and why', () => {
    expect(pendingCommandRisk(JSON.parse(input('/', 'git clean -fdx')), '/')).toMatchObject({
      destructive: true,
      command: 'git clean -fdx',
      reason: expect.stringContaining('git clean'),
    });
  });

  it.each([
    ['rm big.bin huge.bin', ['big.bin', 'huge.bin']],
    ['rm -f a b c', ['a', 'b', 'c']],
    ['Remove-Item big.bin, huge.bin', ['big.bin', 'huge.bin']],
  ])('names every file `%s` deletes, not only the first', (command, files) => {
    const project = tempDir('gate-targets-');
    const tool = command.startsWith('Remove-Item') ? 'PowerShell' : 'Bash';
    const risk = pendingCommandRisk(JSON.parse(input(project, command, tool)), '/');
    expect(risk.targets?.paths).toEqual(files.map((file) => path.join(project, file)));
  });

  it('only a Bash command counts; input it cannot read is no command', () => {
    const cwd = tempDir('gate-');
    expect(stdinMayDestroyWork(input(cwd, 'rm -rf src', 'Write'), cwd)).toBe(false);
    expect(stdinMayDestroyWork('{"tool_name":"Bash","tool_input":{"command":', cwd)).toBe(false);
    expect(stdinMayDestroyWork('', cwd)).toBe(false);
    expect(stdinMayDestroyWork(JSON.stringify({ tool_name: 'Bash', tool_input: { command: 42 } }), cwd)).toBe(
      false,
    );
    expect(stdinMayDestroyWork(input(path.join(cwd, 'missing'), 'rm -rf src'), cwd)).toBe(true);
  });

  // Helper task (issue 26): an input the reader cut (over 16 MB, or unfinished) lost its command at the
  // cut, and the gate let it pass as no command. A command it lost may destroy work; one it kept is judged.
  it.each([INPUT_CUT_KEY, INPUT_UNFINISHED_KEY])(
    'an input cut by the reader (%s) fails safe on a lost command',
    (key) => {
      const cwd = tempDir('gate-');
      const cut = (fields: Record<string, unknown>) =>
        JSON.stringify({ cwd, ...fields, [key]: 17 * 1024 * 1024 });
      expect(stdinMayDestroyWork(cut({ tool_name: 'Bash', tool_input: {} }), cwd)).toBe(true);
      expect(stdinMayDestroyWork(cut({ tool_name: 'Bash' }), cwd)).toBe(true);
      expect(stdinMayDestroyWork(cut({}), cwd)).toBe(true);
      expect(stdinMayDestroyWork(cut({ toolName: 'bash' }), cwd, 'copilot')).toBe(true);
      expect(stdinMayDestroyWork(cut({ tool_name: 'run_shell_command' }), cwd, 'gemini')).toBe(true);
      expect(stdinMayDestroyWork(cut({ tool_name: 'Bash', tool_input: { command: 'ls' } }), cwd)).toBe(false);
      expect(stdinMayDestroyWork(cut({ tool_name: 'Write', tool_input: {} }), cwd)).toBe(false);
      expect(stdinMayDestroyWork(cut({ toolName: 'edit' }), cwd, 'copilot')).toBe(false);
    },
  );
});

// Each agent's own pre-tool payload, as its code builds it: Gemini CLI's fireBeforeToolEvent
// (tool_name, tool_input with dir_path), Codex's Claude-compatible PreToolUse, Copilot CLI's
// camelCase toolName/toolArgs (a JSON string) besides its Claude-compatible names, and the OpenCode
// plugin's Claude shape (tool.execute.before's args, workdir included).
describe('the pre-tool events of the other agents', () => {
  const project = () => {
    const root = tempDir('gate-agents-');
    writeTree(root, { 'src/app.ts': 'x', 'pkg/lib/a.ts': 'y' });
    return root;
  };

  it.each([
    [
      'gemini',
      'BeforeTool',
      (cwd: string) => ({
        cwd,
        hook_event_name: 'BeforeTool',
        tool_name: 'run_shell_command',
        tool_input: { command: 'rm -rf src', description: 'clean' },
      }),
    ],
    [
      'codex',
      'PreToolUse',
      (cwd: string) => ({
        cwd,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'rm -rf src' },
      }),
    ],
    [
      'codex',
      'PreToolUse',
      (cwd: string) => ({ cwd, tool_name: 'Bash', tool_input: { command: ['bash', '-lc', 'rm -rf src'] } }),
    ],
    [
      'copilot',
      'PreToolUse',
      (cwd: string) => ({ cwd, tool_name: 'bash', tool_input: { command: 'rm -rf src' } }),
    ],
    [
      'copilot',
      'PreToolUse',
      (cwd: string) => ({
        cwd,
        timestamp: 1,
        toolName: 'bash',
        toolArgs: JSON.stringify({ command: 'rm -rf src', description: 'd' }),
      }),
    ],
    [
      'copilot',
      'PreToolUse',
      (cwd: string) => ({
        cwd,
        sessionId: 'c1',
        toolName: 'powershell',
        toolArgs: JSON.stringify({ command: 'Remove-Item -Recurse -Force src' }),
      }),
    ],
    [
      'opencode',
      'PreToolUse',
      (cwd: string) => ({ cwd, session_id: 's', tool_name: 'Bash', tool_input: { command: 'rm -rf src' } }),
    ],
  ] as const)('%s %s: a destructive shell command is seen', (agent, event, payload) => {
    const cwd = project();
    expect(isPreCommandEvent(agent, event)).toBe(true);
    expect(stdinMayDestroyWork(JSON.stringify(payload(cwd)), '/', agent)).toBe(true);
    const mapped = ADAPTERS[agent].toEvent(event, payload(cwd));
    expect(mapped?.event).toBe('PreToolUse');
    expect(pendingCommandRisk(mapped?.input ?? {}, '/')).toMatchObject({ destructive: true });
  });

  it('the folder the command runs in is the one the agent names (dir_path, workdir)', () => {
    const cwd = project();
    const gemini = {
      cwd,
      tool_name: 'run_shell_command',
      tool_input: { command: 'rm lib/a.ts', dir_path: 'pkg' },
    };
    expect(stdinMayDestroyWork(JSON.stringify(gemini), '/', 'gemini')).toBe(true);
    const elsewhere = { ...gemini, tool_input: { command: 'rm lib/a.ts' } };
    // rm of a path that does not exist destroys nothing
    expect(pendingCommandRisk(claudePreToolInput('gemini', elsewhere) ?? {}, '/').destructive).toBe(
      stdinMayDestroyWork(JSON.stringify(elsewhere), '/', 'gemini'),
    );
    const opencode = {
      cwd,
      tool_name: 'Bash',
      tool_input: { command: 'rm lib/a.ts', workdir: path.join(cwd, 'pkg') },
    };
    // The session's folder stays the input's cwd (the project a snapshot is of); the command's is apart.
    expect(claudePreToolInput('opencode', opencode)).toMatchObject({
      cwd,
      [COMMAND_CWD]: path.join(cwd, 'pkg'),
    });
  });

  it('Copilot CLI’s powershell tool is read as PowerShell: its harmless lines take nothing', () => {
    const cwd = project();
    const call = (command: string) =>
      JSON.stringify({ cwd, toolName: 'powershell', toolArgs: JSON.stringify({ command }) });
    expect(stdinMayDestroyWork(call('Get-ChildItem src | Select-Object Name'), '/', 'copilot')).toBe(false);
    expect(stdinMayDestroyWork(call('Remove-Item src\\app.ts'), '/', 'copilot')).toBe(true);
    expect(stdinMayDestroyWork(call('Set-Content -Path src/app.ts -Value x'), '/', 'copilot')).toBe(true);
    expect(stdinMayDestroyWork(call('Set-Content -Path src/new.ts -Value x'), '/', 'copilot')).toBe(false);
    expect(claudePreToolInput('copilot', JSON.parse(call('ls')))?.tool_name).toBe('PowerShell');
  });

  // Issue 26 (trial 5): Copilot CLI's preToolUse for `PowerShell` (or `tool_name`) was not checked, while its
  // postToolUse recorded that tool: both read the tool's name whatever its case.
  it.each([
    ['toolName', 'PowerShell'],
    ['tool_name', 'PowerShell'],
    ['toolName', 'POWERSHELL'],
    ['toolName', 'Bash'],
  ])('Copilot CLI: %s %j is checked before it runs, and recorded after', (field, tool) => {
    const cwd = project();
    const command = tool.toLowerCase() === 'powershell' ? 'Remove-Item src\\app.ts' : 'rm src/app.ts';
    const call = (line: string) => ({ cwd, [field]: tool, toolArgs: JSON.stringify({ command: line }) });
    expect(stdinMayDestroyWork(JSON.stringify(call(command)), '/', 'copilot')).toBe(true);
    expect(stdinMayDestroyWork(JSON.stringify(call('Get-ChildItem')), '/', 'copilot')).toBe(false);
    const post = ADAPTERS.copilot.toEvent('postToolUse', {
      ...call(command),
      toolResult: { textResultForLlm: '<shellId: 0 completed with exit code 0>' },
    });
    expect(post?.input.tool_name).toBe(tool.toLowerCase() === 'powershell' ? 'PowerShell' : 'Bash');
  });

  it('Copilot CLI: a tool that is no shell is neither checked nor recorded, whatever its case', () => {
    const cwd = project();
    const call = { cwd, toolName: 'View', toolArgs: JSON.stringify({ command: 'rm src/app.ts' }) };
    expect(stdinMayDestroyWork(JSON.stringify(call), '/', 'copilot')).toBe(false);
    expect(ADAPTERS.copilot.toEvent('postToolUse', call)).toBeNull();
  });

  it('a path outside the project is outside even through a link; one into the project is not', () => {
    const cwd = project();
    const elsewhere = tempDir('gate-elsewhere-');
    const link = path.join(elsewhere, 'into-project');
    symlinkSync(cwd, link);
    const bash = (command: string) => JSON.stringify({ cwd, tool_name: 'Bash', tool_input: { command } });
    expect(stdinMayDestroyWork(bash(`rm -rf ${elsewhere}/cache`), '/')).toBe(false);
    expect(stdinMayDestroyWork(bash(`rm -rf ${link}/src`), '/')).toBe(true);
    expect(stdinMayDestroyWork(bash(`rm -rf ${path.join(cwd, 'src')}`), '/')).toBe(true);
    // From a subfolder, the repository's other folders are still the project.
    mkdirSync(path.join(cwd, '.git'));
    const sub = JSON.stringify({
      cwd: path.join(cwd, 'pkg'),
      tool_name: 'Bash',
      tool_input: { command: `rm -rf ${cwd}/src` },
    });
    expect(stdinMayDestroyWork(sub, '/')).toBe(true);
  });

  it('harmless commands, other tools and other events are not taken', () => {
    const cwd = project();
    const run = (command: string) => ({ cwd, tool_name: 'run_shell_command', tool_input: { command } });
    expect(stdinMayDestroyWork(JSON.stringify(run('npm test')), '/', 'gemini')).toBe(false);
    expect(
      stdinMayDestroyWork(
        JSON.stringify({ cwd, tool_name: 'write_file', tool_input: { file_path: 'src/app.ts' } }),
        '/',
        'gemini',
      ),
    ).toBe(false);
    expect(ADAPTERS.gemini.toEvent('BeforeTool', { cwd, tool_name: 'read_file', tool_input: {} })).toBeNull();
    expect(isPreCommandEvent('gemini', 'PreToolUse')).toBe(false);
    expect(isPreCommandEvent(undefined, 'PreToolUse')).toBe(true);
    expect(isPreCommandEvent('codex', 'PostToolUse')).toBe(false);
  });

  it('says nothing back to any agent: never a decision', () => {
    for (const agent of AGENTS)
      expect(
        ADAPTERS[agent].render(agent === 'gemini' ? 'BeforeTool' : 'PreToolUse', { notes: [] }),
      ).toBeUndefined();
  });
});
