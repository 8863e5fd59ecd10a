import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

/** A project, a store and a user configuration folder of its own, with `config.json` holding `settings`. */
function project(settings?: unknown, projectSettings?: unknown) {
  const root = createRepo({ committed: { 'src/app.ts': 'export const app = 1;\n' } });
  const config = tempDir('checkpoint-config-');
  if (settings !== undefined)
    writeFileSync(
      path.join(config, 'config.json'),
      typeof settings === 'string' ? settings : JSON.stringify(settings),
    );
  if (projectSettings !== undefined) {
    mkdirSync(path.join(root, '.claude'));
    writeFileSync(path.join(root, '.claude', 'checkpoint-config.json'), JSON.stringify(projectSettings));
  }
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), CHECKPOINT_CONFIG_DIR: config };
  return { root, env, userFile: path.join(config, 'config.json') };
}

const snapshotCount = async (root: string, env: Record<string, string>) =>
  JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout).total as number;

const sessionStart = (root: string, env: Record<string, string>) =>
  runNodeScript(SHIPPED_HOOK_ENTRY, ['SessionStart'], {
    cwd: root,
    env,
    input: JSON.stringify({ session_id: 's', cwd: root, hook_event_name: 'SessionStart', source: 'startup' }),
  });

describe('the settings file', () => {
  it('sets what commands and hooks do; its environment variable overrides it', async () => {
    const { root, env } = project({ snapshotMaxCount: 2, hookStartup: 'off' });
    for (const step of [1, 2, 3, 4]) {
      writeFileSync(path.join(root, 'src', 'app.ts'), `export const app = ${step};\n`);
      expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
    }
    expect(await snapshotCount(root, env)).toBe(2);

    await runCli(['save', '--goal', 'Keep going'], { cwd: root, env });
    // A hook started by the agent sees the file too, though nobody set a variable for it.
    expect(await sessionStart(root, env)).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const told = await sessionStart(root, { ...env, CHECKPOINT_HOOK_STARTUP: 'notice' });
    expect(JSON.parse(told.stdout).hookSpecificOutput.additionalContext).toMatch(
      /^A session checkpoint exists for this project/,
    );
  });

  it('reads a file that starts with a byte order mark, as Windows editors write it (input audit)', async () => {
    const { root, env } = project(`\ufeff${JSON.stringify({ snapshotMaxCount: 0 })}`);
    const command = await runCli(['snapshot'], { cwd: root, env });
    // The value is read, and refused as the wrong value it is: not the whole file as invalid JSON.
    expect(command.stderr).toContain('snapshotMaxCount must be a whole number from 1 to 100000: got 0');
  });

  it('reads a redaction.json that starts with a byte order mark: its patterns redact (input audit)', async () => {
    const { root, env } = project();
    writeFileSync(
      path.join(env.CHECKPOINT_CONFIG_DIR, 'redaction.json'),
      `\ufeff{"patterns": ["INT-[0-9]{6}"]}`,
    );
    const saved = await runCli(['save', '--goal', 'ticket INT-123456'], { cwd: root, env });
    expect(saved.stderr).toBe('');
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).toContain('ticket «redacted»');
  });

  // A cloned repository's file stopped every snapshot with "Maximum call stack size exceeded".
  it('a value nested 30,000 levels deep is named, shown shortened, and the command goes on (input audit)', async () => {
    const { root, env } = project(undefined, {});
    const deep = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
    writeFileSync(
      path.join(root, '.claude', 'checkpoint-config.json'),
      `{"snapshotIncludeIgnored": ${deep}}`,
    );
    const command = await runCli(['snapshot'], { cwd: root, env });
    expect(command.stderr).toContain(
      'checkpoint-config.json: snapshotIncludeIgnored must be an array of patterns such as [".env*"] (up to 50;',
    );
    expect(command.stderr).toContain('got [[[[[…]]]]]; it is not used');
    expect(command.code).toBe(0);
  });

  it('a wrong value stops a command with the key and the limit, while a hook says so and snapshots anyway', async () => {
    const { root, env, userFile } = project({ snapshotMaxCount: 0 });
    const command = await runCli(['snapshot'], { cwd: root, env });
    expect(command.code).toBe(2);
    expect(command.stderr).toContain(
      `${userFile}: snapshotMaxCount must be a whole number from 1 to 100000: got 0`,
    );
    expect(command.stdout).toBe('');

    const hook = await runNodeScript(SHIPPED_HOOK_ENTRY, ['UserPromptSubmit'], {
      cwd: root,
      env,
      input: JSON.stringify({ cwd: root, prompt: 'go on' }),
    });
    expect(hook.code).toBe(0);
    expect(hook.stdout).toBe('');
    expect(hook.stderr).toBe(
      `claude-checkpoint hook UserPromptSubmit: ${userFile}: snapshotMaxCount must be a whole number from 1 to 100000: got 0; the value below it is used\n`,
    );
    // Listing stops on the same problem; fixed through the environment, it shows the hook's snapshot.
    expect(await snapshotCount(root, { ...env, CHECKPOINT_SNAPSHOT_MAX_COUNT: '100' })).toBe(1);
    // status still shows the project, and says what is wrong.
    const status = await runCli(['status'], { cwd: root, env });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Snapshots: 1, latest');
    expect(status.stdout).toContain('Settings: ');
    expect(status.stdout).toContain('snapshotMaxCount must be a whole number from 1 to 100000: got 0');
  });

  // Regression (issue 26, trial of 2026-12-06): docs/settings.md said every command and MCP tool stops on
  // a wrong value, and status said "commands stop on it", while save, load and status go on.
  it('a wrong value stops what uses the snapshot store, never a save or a read of the checkpoint', async () => {
    const { root, env } = project({ snapshotMaxCount: 0 });
    for (const args of [['snapshot'], ['list'], ['diff', 'latest'], ['restore', 'latest'], ['gc']]) {
      const result = await runCli(args, { cwd: root, env });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain('snapshotMaxCount must be a whole number');
    }
    for (const args of [['save', '--goal', 'Ship it'], ['load'], ['brief'], ['status'], ['scan']]) {
      const result = await runCli(args, { cwd: root, env });
      expect(result.code, args.join(' ')).toBe(0);
    }
    const status = await runCli(['status'], { cwd: root, env });
    expect(status.stdout).toContain(
      'got 0 (snapshot, rewind, restore, diff, list, gc and handoff commands stop on it; see doctor)',
    );
    const doctor = await runCli(['doctor'], { cwd: root, env });
    expect(doctor.stdout).toContain(
      'Until then the snapshot, rewind, restore, diff, list, gc and handoff commands',
    );
  });

  // Bad-input trial: ".env" where [".env"] belongs was named with the limit only, not as a wrong type.
  it('snapshotIncludeIgnored as a string: the file, the setting, an array of patterns and the fix are named', async () => {
    const { root, env, userFile } = project({ snapshotIncludeIgnored: '.env' });
    const expected = `${userFile}: snapshotIncludeIgnored must be an array of patterns such as [".env*"]`;
    const snapshot = await runCli(['snapshot'], { cwd: root, env });
    expect(snapshot.code).toBe(2);
    expect(snapshot.stderr).toContain(expected);
    expect(snapshot.stderr).toContain(`got '.env'; write it as [".env"]`);
    const doctor = await runCli(['doctor'], { cwd: root, env });
    expect(doctor.stdout).toContain(expected);
    expect((await runCli(['status'], { cwd: root, env })).stdout).toContain(`write it as [".env"]`);
  });

  it('a misspelt setting: every command says so on stderr, once, with the name meant, and goes on', async () => {
    const { root, env, userFile } = project({ snapshotMaxCont: 1 });
    const warning = `claude-checkpoint: warning: ${userFile}: unknown setting 'snapshotMaxCont' is not used (did you mean 'snapshotMaxCount'?)\n`;
    for (const step of [1, 2]) {
      writeFileSync(path.join(root, 'src', 'app.ts'), `export const app = ${step};\n`);
      const snapshot = await runCli(['snapshot'], { cwd: root, env });
      expect(snapshot.code).toBe(0);
      expect(snapshot.stderr).toBe(warning);
    }
    // Not used: the default count keeps both.
    expect(await snapshotCount(root, env)).toBe(2);
    // Commands that never read a setting say it too: it is the user's file, whatever the command.
    for (const args of [['save', '--goal', 'Keep going'], ['brief'], ['scan', 'src/app.ts']]) {
      const other = await runCli(args, { cwd: root, env });
      expect(other.code, args.join(' ')).toBe(0);
      expect(other.stderr, args.join(' ')).toBe(warning);
    }
    const status = await runCli(['status'], { cwd: root, env });
    expect(status.code).toBe(0);
    expect(status.stderr).toBe(warning);
    // doctor warns, exits 0, and does not claim that commands stop on it.
    const doctor = await runCli(['doctor', '--json'], { cwd: root, env });
    const check = JSON.parse(doctor.stdout).checks.find((entry: { detail: string }) =>
      entry.detail.includes('snapshotMaxCont'),
    );
    expect(check).toMatchObject({ level: 'warn' });
    expect(check.fix).toBe(
      `Correct or remove it in ${userFile}; until then it is not used (the file's other settings are).`,
    );
    // A hook stays quiet about it (doctor is where a session's settings are checked).
    const hook = await runNodeScript(SHIPPED_HOOK_ENTRY, ['UserPromptSubmit'], {
      cwd: root,
      env,
      input: JSON.stringify({ cwd: root, prompt: 'go on' }),
    });
    expect(hook).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('a file that is not JSON: the command names it; so does doctor, which still runs', async () => {
    const { root, env, userFile } = project('{ "snapshotMaxCount": 5,');
    const command = await runCli(['snapshot'], { cwd: root, env });
    expect(command.code).toBe(2);
    expect(command.stderr).toContain(`${userFile}: is not valid JSON`);
    const doctor = await runCli(['doctor', '--json'], { cwd: root, env });
    expect(JSON.parse(doctor.stdout).checks).toContainEqual(
      expect.objectContaining({
        name: 'settings',
        level: 'fail',
        detail: expect.stringContaining(`${userFile}: is not valid JSON`),
      }),
    );
    expect(doctor.code).toBe(1);
  });

  it('doctor shows every setting, its value and where it comes from; a project cannot weaken them', async () => {
    const { root, env } = project(
      { snapshotMaxAgeDays: 90, snapshotIncludeIgnored: ['.env*'] },
      { snapshotMaxAgeDays: 1, snapshotIncludeIgnored: ['*.local.json'] },
    );
    const doctor = await runCli(['doctor', '--json'], {
      cwd: root,
      env: { ...env, CHECKPOINT_HOOK_RELAY: '0' },
    });
    const report = JSON.parse(doctor.stdout);
    const row = (name: string) => report.settings.find((entry: { name: string }) => entry.name === name);
    expect(row('snapshotMaxCount')).toMatchObject({
      value: 100,
      from: ['default'],
      env: 'CHECKPOINT_SNAPSHOT_MAX_COUNT',
    });
    expect(row('snapshotMaxAgeDays')).toMatchObject({ value: 90, shown: '90 days', from: ['settings file'] });
    expect(row('hookRelay')).toMatchObject({ value: false, shown: 'off', from: ['environment'] });
    expect(row('snapshotIncludeIgnored')).toMatchObject({
      value: ['.env*', '*.local.json'],
      from: ['settings file', 'project'],
    });
    expect(report.checks).toContainEqual(
      expect.objectContaining({
        name: 'settings',
        level: 'warn',
        detail: expect.stringContaining('snapshotMaxAgeDays is not used: a project may not change it'),
      }),
    );
    const text = await runCli(['doctor'], { cwd: root, env });
    expect(text.stdout).toMatch(/Settings \(.*config\.json; each overridden by its environment variable\)/);
    expect(text.stdout).toMatch(
      / {2}snapshotMaxAgeDays +90 days {2}\(settings file; CHECKPOINT_SNAPSHOT_MAX_AGE_DAYS\)/,
    );

    const status = await runCli(['status'], { cwd: root, env });
    expect(status.stdout).toContain(
      'Ignored files in snapshots: .env*, *.local.json (from settings file + project; kept in the private store, never in a handoff)',
    );
  });
});
