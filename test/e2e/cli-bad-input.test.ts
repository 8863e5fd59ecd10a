import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cliProject, HOOK_ENTRY, runCli, runNodeScript } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// The bad-input trial of the CLI (2026-12-07): each input it found taken in silence or refused in the
// wrong words, as the user typed it. Bad input exits 2 with one line that names the flag or field.

const saved = (root: string) => JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));

describe('save --stdin --merge and the JSON’s own mode', () => {
  it('mode "replace" is refused as a conflict, and nothing is saved', async () => {
    const { root, input } = cliProject();
    expect((await input('{"goal":"g","summary":"kept"}', 'save', '--stdin')).code).toBe(0);
    const result = await input('{"goal":"g","mode":"replace"}', 'save', '--stdin', '--merge');
    expect(result.stderr).toBe(
      'claude-checkpoint: --merge and mode (in the JSON on stdin) disagree: --merge, mode "replace"; give the mode once (or "merge" in both)\n',
    );
    expect(result.code).toBe(2);
    expect(saved(root).summary).toBe('kept');
  });

  it.each(['"bogus"', '42'])('mode %s is validated, not overridden', async (mode) => {
    const { input } = cliProject();
    const result = await input(`{"goal":"g","mode":${mode}}`, 'save', '--stdin', '--merge');
    expect(result.stderr).toBe('claude-checkpoint: mode: must be "replace" or "merge"\n');
    expect(result.code).toBe(2);
  });

  it('mode "merge" goes with --merge', async () => {
    const { root, input } = cliProject();
    expect((await input('{"goal":"g","summary":"kept"}', 'save', '--stdin')).code).toBe(0);
    const result = await input('{"goal":"g","mode":"merge"}', 'save', '--stdin', '--merge');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(saved(root).summary).toBe('kept');
  });
});

describe('an empty or whitespace-only summary', () => {
  it('is refused, naming --summary, and a merge keeps the saved one', async () => {
    const { root, cli } = cliProject();
    expect((await cli('save', '--goal', 'g', '--summary', 'cookie dropped')).code).toBe(0);
    const result = await cli('save', '--goal', 'g', '--summary', '   ', '--merge');
    expect(result.stderr).toBe('claude-checkpoint: --summary: must not be empty\n');
    expect(result.code).toBe(2);
    expect(saved(root).summary).toBe('cookie dropped');
  });

  it('in the JSON on stdin, naming summary', async () => {
    const { input } = cliProject();
    const result = await input('{"goal":"g","summary":""}', 'save', '--stdin');
    expect(result.stderr).toBe('claude-checkpoint: summary: must not be empty\n');
    expect(result.code).toBe(2);
  });
});

describe('a task given twice, with two statuses', () => {
  it('save --stdin keeps it once with the later status, and says so naming both entries', async () => {
    const { root, input } = cliProject();
    const tasks = '[{"description":"A","status":"pending"},{"description":"A","status":"done"}]';
    const result = await input(`{"goal":"g","tasks":${tasks}}`, 'save', '--stdin');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "tasks.1 names the same task as tasks.0 ('A'): it is kept once, with the last status given (done)",
    );
    expect(saved(root).goal.tasks).toEqual([{ description: 'A', status: 'done' }]);
  });

  it('--task names the flags; a merge updates the first of a task the file lists twice, and leaves the file as it is', async () => {
    const { root, cli } = cliProject();
    const result = await cli('save', '--goal', 'g', '--task', 'pending:A', '--task', 'done:A');
    expect(result.stdout).toContain(
      "--task (the 2nd) names the same task as --task (the 1st) ('A'): it is kept once, with the last status given (done)",
    );
    const edited = saved(root);
    edited.goal.tasks.push({ description: 'A', status: 'blocked' });
    writeFileSync(path.join(root, '.claude-checkpoint'), JSON.stringify(edited));
    await cli('save', '--goal', 'g', '--merge', '--task', 'in_progress:A', '--task', 'pending:B');
    expect(saved(root).goal.tasks).toEqual([
      { description: 'A', status: 'in_progress' },
      { description: 'A', status: 'blocked' },
      { description: 'B', status: 'pending' },
    ]);
  });

  // Review: two tasks that differ only in a secret were made one by their redacted text, in silence.
  it('two tasks that differ only in a secret stay two', async () => {
    const { root, cli } = cliProject();
    const result = await cli(
      'save',
      '--goal',
      'g',
      '--task',
      'pending:rotate DB_PASSWORD=hunter2xyz',
      '--task',
      'done:rotate DB_PASSWORD=s3cr3tpass',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('names the same task');
    expect(saved(root).goal.tasks.map((task: { status: string }) => task.status)).toEqual([
      'pending',
      'done',
    ]);
    // A merge that names one of them again by its redacted text updates the first, as it is in the file.
    await cli('save', '--goal', 'g', '--merge', '--task', 'blocked:rotate DB_PASSWORD=«redacted»');
    expect(saved(root).goal.tasks.map((task: { status: string }) => task.status)).toEqual([
      'blocked',
      'done',
    ]);
  });
});

// list --limit 5 --limit 7 listed 7; --root a --root b used b: commander kept the last value in silence.
describe('a flag of one value given twice', () => {
  // A printed command (restore's undo names --root) run with one's usual --root added: no doubt which.
  it('the same value twice is taken once', async () => {
    const { root, cli } = cliProject();
    expect((await cli('list', '--limit', '5', '--limit', '5')).code).toBe(0);
    expect((await cli('--root', root, 'status', '--root', root)).code).toBe(0);
    expect((await cli('status', '--root', root, '--root', root)).code).toBe(0);
  });

  it.each([
    [['list', '--limit', '5', '--limit', '7'], "'--limit <n>' was given twice ('5', then '7')"],
    [['status', '--root', '.', '--root', 'b'], "'--root <dir>' was given twice ('.', then 'b')"],
    [['--root', '.', '--root', 'b', 'status'], "'--root <dir>' was given twice ('.', then 'b')"],
    [['snapshot', '--trigger', 'x', '--trigger', 'y'], "'--trigger <name>' was given twice ('x', then 'y')"],
    [['snapshot', '--label', 'a', '--label=b'], "'--label <text>' was given twice ('a', then 'b')"],
    [['save', '--goal', 'a', '--goal', 'b'], "'--goal <text>' was given twice ('a', then 'b')"],
    [['save', '--goal', 'a', '--summary', 's', '--summary', 't'], "'--summary <text>' was given twice"],
    [['load', '--format', 'brief', '--format', 'full'], "'--format <format>' was given twice"],
    [['diff', 'latest', '--against', 'a', '--against', 'b'], "'--against <snapshot>' was given twice"],
    [['rewind', '--list', '--session', 'a', '--session', 'b'], "'--session <id>' was given twice"],
    [['handoff', 'push', '--name', 'a', '--name', 'b'], "'--name <name>' was given twice"],
    [['handoff', 'pull', '--remote', 'a', '--remote', 'b'], "'--remote <name>' was given twice"],
  ])('%j is refused, naming the flag, and nothing is done', async (args, named) => {
    const { root, cli } = cliProject();
    const result = await cli(...args);
    expect(result.stderr).toContain(`error: option ${named}`);
    expect(result.stderr).toContain('it takes one value; give it once');
    expect(result.code).toBe(2);
    expect(existsSync(path.join(root, '.claude-checkpoint'))).toBe(false);
  });

  it('repeatable flags still collect, and --root before and after the command name is no repeat', async () => {
    const { root, cli } = cliProject();
    const saved = await cli(
      '--root',
      root,
      'save',
      '--root',
      root,
      '--goal',
      'g',
      '--next',
      'a',
      '--next',
      'b',
    );
    expect(saved.code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).nextSteps).toEqual([
      'a',
      'b',
    ]);
  });

  it('a hook says it on stderr and does nothing, exiting 0 (through the CLI and the hook entry)', async () => {
    const { root, env } = cliProject();
    const input = JSON.stringify({ cwd: root, source: 'clear' });
    for (const args of [
      ['hook', 'SessionStart', '--agent', 'claude', '--agent', 'codex'],
      ['hook', 'SessionStart', '--root', root, '--root', path.dirname(root)],
      ['--root', root, '--root', path.dirname(root), 'hook', 'SessionStart'],
    ]) {
      const result = await runCli(args, { cwd: root, env, input });
      expect(result).toMatchObject({ code: 0, stdout: '' });
      expect(result.stderr).toMatch(/--(agent|root) was given more than once; give it once\. Nothing done\./);
    }
    const entry = await runNodeScript(
      HOOK_ENTRY,
      ['SessionStart', '--root', root, `--root=${path.dirname(root)}`],
      {
        cwd: root,
        env,
        input,
      },
    );
    expect(entry).toMatchObject({ code: 0, stdout: '' });
    expect(entry.stderr).toContain('--root was given more than once; give it once. Nothing done.');
  });
});

describe('save --stdin that is not UTF-8', () => {
  it('Latin-1 text is refused with the offset of its first bad byte, not saved with U+FFFD', async () => {
    const { input, cli } = cliProject();
    const latin1 = Buffer.concat([Buffer.from('{"goal":"caf'), Buffer.from([0xe9]), Buffer.from(' goal"}')]);
    const result = await input(latin1, 'save', '--stdin');
    expect(result.stderr).toBe(
      'claude-checkpoint: stdin must be UTF-8 text: the byte at offset 12 (0xe9) is not UTF-8 (text in another encoding, such as Latin-1?): convert it to UTF-8\n',
    );
    expect(result.code).toBe(2);
    expect((await cli('brief')).stdout).toContain('No checkpoint');
  });

  it('UTF-16 is named as such, with or without its byte order mark', async () => {
    const { input } = cliProject();
    const withMark = await input(Buffer.from('\ufeff{"goal":"g"}', 'utf16le'), 'save', '--stdin');
    expect(withMark.stderr).toMatch(
      /^claude-checkpoint: stdin must be UTF-8 text: it begins with a UTF-16 byte order mark \(0xff 0xfe at byte offset 0\)/,
    );
    expect(withMark.code).toBe(2);
    const without = await input(Buffer.from('{"goal":"g"}', 'utf16le'), 'save', '--stdin');
    expect(without.stderr).toMatch(
      /^claude-checkpoint: stdin must be UTF-8 text: it holds a NUL byte at byte offset 1, which looks like UTF-16 text/,
    );
    expect(without.code).toBe(2);
  });

  it('UTF-8 with a byte order mark is saved', async () => {
    const { root, input } = cliProject();
    const result = await input(Buffer.from('\ufeff{"goal":"café goal"}'), 'save', '--stdin');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(saved(root).goal.primary).toBe('café goal');
  });
});

describe('latest~N with many digits, and list --limit past what it counts', () => {
  it.each([['diff'], ['restore', '--dry-run']])(
    '%s says how far back the snapshots go',
    async (...command) => {
      const { cli } = cliProject();
      expect((await cli('snapshot')).code).toBe(0);
      const [verb, ...rest] = command;
      const result = await cli(verb as string, 'latest~1000000', ...rest);
      expect(result.stderr).toBe(
        "claude-checkpoint: 'latest~1000000' goes back 1000000 snapshot(s), but there are only 1: the oldest is latest~0\n",
      );
      expect(result.code).toBe(2);
    },
  );

  it('list --limit names its upper limit', async () => {
    const { cli } = cliProject();
    const result = await cli('list', '--limit', '99999999999999999999');
    expect(result.stderr).toBe(
      "claude-checkpoint: --limit must be at most 9007199254740991: got '99999999999999999999'\n",
    );
    expect(result.code).toBe(2);
  });
});

describe('save --stdin names the JSON’s projectRoot as projectRoot', () => {
  it('a relative one', async () => {
    const { input } = cliProject();
    const result = await input('{"goal":"g","projectRoot":"p2"}', 'save', '--stdin');
    expect(result.stderr).toBe("claude-checkpoint: projectRoot must be an absolute path: got 'p2'\n");
    expect(result.code).toBe(2);
  });

  it('one of the wrong type is refused even with --root', async () => {
    const { root, input, cli } = cliProject();
    const result = await input('{"goal":"g","projectRoot":5}', 'save', '--stdin', '--root', root);
    expect(result.stderr).toBe('claude-checkpoint: projectRoot: must be a string\n');
    expect(result.code).toBe(2);
    expect((await cli('brief')).stdout).toContain('No checkpoint');
  });
});

describe('setup checks --root as every command does', () => {
  it('a folder that does not exist', async () => {
    const { cli } = cliProject();
    const missing = path.join(tempDir('setup-root-'), 'nonexistent');
    const result = await cli('setup', 'codex', '--project', '--dry-run', '--root', missing);
    expect(result.stderr).toBe(`claude-checkpoint: --root does not exist: ${missing}\n`);
    expect(result.code).toBe(2);
  });

  it('a file', async () => {
    const { cli } = cliProject();
    const file = path.join(tempDir('setup-root-'), 'passwd');
    writeFileSync(file, 'x\n');
    const result = await cli('setup', 'codex', '--project', '--dry-run', '--root', file);
    expect(result.stderr).toBe(`claude-checkpoint: --root must be a directory: ${file}\n`);
    expect(result.code).toBe(2);
  });
});

describe('snapshot --trigger and scan with odd names', () => {
  it.each(['prompt', 'pre-restore', 'turn-end'])(
    '--trigger %s, which the hooks record, is refused',
    async (trigger) => {
      const { cli } = cliProject();
      const result = await cli('snapshot', '--trigger', trigger);
      expect(result.stderr).toBe(
        `claude-checkpoint: --trigger '${trigger}' is one this tool records itself (prompt, pre-command, pre-compact, pre-restore, turn-end, handoff): leave --trigger out for manual, or give a name of your own, such as pre-deploy\n`,
      );
      expect(result.code).toBe(2);
      expect((await cli('list')).stdout).toContain('No snapshots');
    },
  );

  it('--trigger manual and a name of ones own are taken', async () => {
    const { cli } = cliProject();
    expect((await cli('snapshot', '--trigger', 'manual')).code).toBe(0);
    expect((await cli('snapshot', '--trigger', 'pre-deploy')).code).toBe(0);
  });

  it("scan '' names the empty argument", async () => {
    const { cli } = cliProject();
    const result = await cli('scan', '');
    expect(result.stderr).toBe(
      "claude-checkpoint: a file name is empty (got ''): give each file's name, or - for standard input\n",
    );
    expect(result.code).toBe(2);
  });
});
