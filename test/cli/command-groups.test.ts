import { beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_GROUPS } from '../../src/cli/main.js';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// A command named first registers only its own group (cli/main.ts): the table that picks the group must
// name every command the general help lists, each in the group that really registers it.
describe('the command groups the CLI registers on demand', () => {
  const cwd = tempDir('cli-groups-');

  it('name exactly the commands the general help lists', async () => {
    const help = await runCli(['--help'], { cwd });
    expect(help.code).toBe(0);
    const section = help.stdout.slice(help.stdout.indexOf('Commands:'));
    const commands = section
      .slice(0, section.indexOf('\n\n'))
      .split('\n')
      .slice(1)
      .map((line) => /^ {2}([a-z]+)\b/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined && name !== 'help');
    expect(commands.sort()).toEqual(Object.keys(COMMAND_GROUPS).sort());
  });

  it.each(Object.keys(COMMAND_GROUPS))('%s: its help, with only its group registered', async (name) => {
    const result = await runCli([name, '--help'], { cwd });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: claude-checkpoint ${name} `));
  });

  it('an unknown name still gets the nearest command suggested, from all of them', async () => {
    const result = await runCli(['handof'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('(Did you mean handoff?)');
  });
});
