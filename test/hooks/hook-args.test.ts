import { describe, expect, it } from 'vitest';
import { parseHookArgs } from '../../src/hooks/hook-args.js';

// The plugin's entry reads a hook's flags itself; `claude-checkpoint hook` reads them with commander,
// which takes `--root <dir>` and `--root=<dir>` alike (review of the repeated-flag fix: the entry read
// only the first form, so `--root=. --root .` ran where the CLI refused it).
describe('parseHookArgs', () => {
  it.each([
    [['SessionStart', '--root', '/p'], { root: '/p' }],
    [['SessionStart', '--root=/p'], { root: '/p' }],
    [['SessionStart', '--agent=codex', '--root', '/p'], { root: '/p', agent: 'codex' }],
    [['SessionStart', '--root=/p', '--root', '.'], { root: '/p', repeated: '--root' }],
    [['SessionStart', '--agent', 'codex', '--agent=gemini'], { agent: 'codex', repeated: '--agent' }],
    [['SessionStart', '--root=a=b'], { root: 'a=b' }],
    [['SessionStart', '--root', '/p', '--root=/p'], { root: '/p' }],
    [['SessionStart', '--root'], {}],
    [['SessionStart', '--rooted', 'x'], {}],
  ])('%j', (argv, expected) => {
    const { event, options } = parseHookArgs(argv);
    expect(event).toBe('SessionStart');
    expect(Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined))).toEqual(
      expected,
    );
  });
});
