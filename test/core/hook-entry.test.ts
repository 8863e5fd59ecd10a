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
