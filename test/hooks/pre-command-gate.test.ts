import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pendingCommandRisk, stdinMayDestroyWork } from '../../src/hooks/pre-command-gate.js';
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

  it('names the command and why', () => {
    expect(pendingCommandRisk(JSON.parse(input('/', 'git clean -fdx')), '/')).toMatchObject({
      destructive: true,
      command: 'git clean -fdx',
      reason: expect.stringContaining('git clean'),
    });
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
});
