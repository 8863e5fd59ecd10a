import { describe, expect, it } from 'vitest';
import { entryFilePath, ourHookEntry } from '../../src/core/hook-entry.js';

describe('ourHookEntry: our hooks by what they run, wherever they were installed', () => {
  it.each([
    [
      { command: 'node', args: ['/opt/tools/dist/hook.js', 'SessionStart'] },
      '/opt/tools/dist/hook.js',
      'SessionStart',
    ],
    [
      { command: 'node', args: ['/x/plugin/dist/hook.cjs', 'PreToolUse'] },
      '/x/plugin/dist/hook.cjs',
      'PreToolUse',
    ],
    [{ command: "node '/my tools/dist/hook.mjs' Stop --agent codex" }, '/my tools/dist/hook.mjs', 'Stop'],
    [{ command: 'node ~/src/cc/dist/hook.js PostToolUse' }, '~/src/cc/dist/hook.js', 'PostToolUse'],
    [
      { command: '"C:/Program Files/nodejs/node.exe" C:/cc/dist/hook.cjs SessionEnd' },
      'C:/cc/dist/hook.cjs',
      'SessionEnd',
    ],
    [{ command: 'claude-checkpoint hook UserPromptSubmit' }, null, 'UserPromptSubmit'],
    [{ command: 'npx claude-checkpoint hook PreCompact' }, null, 'PreCompact'],
    // Helper task left3, item 5: the full CLI's entry, and npx with its options.
    [{ command: 'node /opt/cc/dist/cli.js hook Stop' }, '/opt/cc/dist/cli.js', 'Stop'],
    [{ command: 'node', args: ['/opt/cc/dist/cli.cjs', 'hook', 'Stop'] }, '/opt/cc/dist/cli.cjs', 'Stop'],
    [{ command: 'npx -y claude-checkpoint hook Stop --agent codex' }, null, 'Stop'],
    [{ command: 'npx --yes -p claude-checkpoint-mcp@latest claude-checkpoint hook Stop' }, null, 'Stop'],
    [
      {
        command: 'npx',
        args: ['--package=claude-checkpoint-mcp', '--', 'claude-checkpoint', 'hook', 'Stop'],
      },
      null,
      'Stop',
    ],
  ])('%j runs %s for %s', (hook, file, event) => {
    expect(ourHookEntry(hook)).toEqual({ file, event });
  });

  it.each([
    [{ command: 'echo claude-checkpoint' }],
    [{ command: 'node /opt/claude-checkpoint-mcp/dist/index.js' }],
    [{ command: 'node /opt/other/hook.js SessionStart' }],
    [{ command: 'node /opt/x/dist/hook.js' }],
    [{ command: 'node', args: ['/opt/x/dist/hook.js', '--agent'] }],
    [{ type: 'command' }],
    ['node /x/dist/hook.js Stop'],
    [{ command: 'node /opt/x/dist/cli.js save Stop' }],
    [{ command: 'node /opt/x/dist/index.js hook Stop' }],
    [{ command: 'npx -y -p other-package claude-checkpoint hook Stop' }],
    [{ command: 'npx -y claude-checkpoint-mcp hook Stop' }],
    [{ command: 'npx --registry x claude-checkpoint hook Stop' }],
  ])('%j is not ours', (hook) => {
    expect(ourHookEntry(hook)).toBeNull();
  });
});

describe('entryFilePath', () => {
  it.each([
    ['~/cc/dist/hook.js', '/home/me/cc/dist/hook.js'],
    ['$HOME/cc/dist/hook.js', '/home/me/cc/dist/hook.js'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable as a settings file writes it
    ['${HOME}/cc/dist/hook.js', '/home/me/cc/dist/hook.js'],
    ['cc/dist/hook.js', '/work/app/cc/dist/hook.js'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable only the agent expands
    ['${CLAUDE_PLUGIN_ROOT}/dist/hook.cjs', null],
  ])('%s is %s', (file, expected) => {
    expect(entryFilePath(file, '/home/me', '/work/app')).toBe(expected);
  });
});
