import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCheckpointCommands } from '../../src/cli/checkpoint-commands.js';
import type { Runner } from '../../src/cli/context.js';
import { CACHED_COMMANDS, cacheNameOf, parseFastCommand } from '../../src/cli/fast-argv.js';
import { COMMAND_GROUPS } from '../../src/cli/main.js';
import { refuseRepeatedValues } from '../../src/cli/repeated-options.js';
import { registerRewindCommands } from '../../src/cli/rewind-commands.js';

/** The options commander gives a command's action, merged as cli/main.ts merges them; 'refused' on its error. */
async function commanderOptions(argv: string[]): Promise<Record<string, unknown> | 'refused'> {
  const program = new Command('claude-checkpoint')
    .enablePositionalOptions()
    .option('--root <dir>')
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} });
  let options: Record<string, unknown> = {};
  const run: Runner =
    () =>
    async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const own = Object.entries(command.opts()).filter(([, value]) => value !== undefined);
      options = { ...program.opts(), ...Object.fromEntries(own) };
    };
  registerCheckpointCommands(program, run);
  registerRewindCommands(program, run);
  refuseRepeatedValues(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch {
    return 'refused';
  }
  return options;
}

// The loader's short paths read `status`, `list` and `snapshot` command lines themselves (cli/fast-argv.ts): what it
// takes must be what commander's parser gives the same command, and what it leaves is left to commander.
describe('the short path’s reading of a command line', () => {
  it.each([
    ['status'],
    ['status', '--json'],
    ['status', '--no-color', '--debug', '--json'],
    ['status', '--root', ''],
    ['status', '--root='],
    ['status', '--root=--json'],
    ['list'],
    ['list', '--limit', '3', '--json'],
    ['list', '--limit=0', '--root', '/tmp', '--no-color', '--no-color'],
    ['list', '--limit', 'x'],
    ['snapshot'],
    ['snapshot', '--label', 'a note', '--trigger', 'pre-compact', '--json'],
    ['snapshot', '--label=', '--no-color'],
    ['snapshot', '--trigger=x', '--root', '/tmp', '--debug'],
    ['snapshot', '--label', ''],
  ])('%j: the options commander gives', async (...argv) => {
    const fast = parseFastCommand(argv);
    expect(fast).toMatchObject({ name: argv[0] });
    expect(fast && 'options' in fast ? fast.options : undefined).toEqual(await commanderOptions(argv));
  });

  it.each([
    ['status', 'extra'],
    ['status', '--limit', '3'],
    ['status', '--root'],
    ['status', '--root', '--json'],
    ['status', '--help'],
    ['status', '--json=1'],
    ['status', '--'],
    ['list', '--limit', '-1'],
    ['list', '--limit'],
    ['snapshot', '--label'],
    ['snapshot', '--label', '-x'],
    ['snapshot', '--limit', '3'],
    ['snapshot', 'extra'],
    ['snapshot', '--help'],
    ['--root', '/tmp', 'status'],
    ['save'],
    ['help', 'status'],
    ['--help', 'status'],
    ['--version'],
    [],
  ])('%j: left to the whole CLI', (...argv) => {
    expect(parseFastCommand(argv)).toBeUndefined();
  });

  // Bad-input trial: both kept the last value of a flag given twice, in silence.
  it.each([
    ['status', '--root', 'x', '--root=y'],
    ['status', '--root=/a', '--root', '/b'],
    ['list', '--limit', '5', '--limit', '7'],
    ['snapshot', '--trigger', 'x', '--trigger=y'],
    ['snapshot', '--label=', '--label', 'last', '--no-color'],
  ])('%j: a flag of one value given twice is left to the whole CLI, which refuses it', async (...argv) => {
    expect(parseFastCommand(argv)).toBeUndefined();
    expect(await commanderOptions(argv)).toBe('refused');
  });

  it.each([['--help'], ['-h'], ['help']])('%s: the general help', (flag) => {
    expect(parseFastCommand([flag])).toEqual({ name: 'help' });
  });
});

// New-user trial 2026-12-07: `--root=<path>` before the command named a 400 KB cache after the path.
describe('the code cache a command line uses', () => {
  it('knows every command the CLI has', () => {
    expect([...CACHED_COMMANDS].sort()).toEqual([...Object.keys(COMMAND_GROUPS), 'help'].sort());
  });

  it.each([
    [['status'], 'status'],
    [['--root=/tmp/nu/proj', 'status'], 'status'],
    [['--root', '/tmp/nu/proj', 'list', '--json'], 'list'],
    [['--json', 'handoff', 'push'], 'handoff'],
    [['frobnicate'], 'other'],
    [['--root=/tmp/a'], 'other'],
    [['--help'], 'help'],
    [['--version'], 'other'],
    [[], 'other'],
  ])('%j uses the cache %s', (argv, name) => {
    expect(cacheNameOf(argv)).toBe(name);
  });
});
