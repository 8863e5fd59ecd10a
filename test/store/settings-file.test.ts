import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isCheckpointError } from '../../src/core/errors.js';
import {
  holdSettings,
  PROJECT_SETTINGS_FILE,
  readSettings,
  settingsOf,
  userSettingsFile,
} from '../../src/store/settings-file.js';
import { tempDir } from '../helpers/fixtures.js';

function setUp(userJson?: string, projectJson?: string) {
  const config = tempDir('settings-config-');
  const project = tempDir('settings-project-');
  if (userJson !== undefined) writeFileSync(path.join(config, 'config.json'), userJson);
  if (projectJson !== undefined) {
    mkdirSync(path.join(project, '.claude'));
    writeFileSync(path.join(project, PROJECT_SETTINGS_FILE), projectJson);
  }
  return { config, project, env: { CHECKPOINT_CONFIG_DIR: config } };
}

describe('the settings files', () => {
  it('live next to redaction.json: $CHECKPOINT_CONFIG_DIR, else $XDG_CONFIG_HOME, else ~/.config', () => {
    expect(userSettingsFile({ CHECKPOINT_CONFIG_DIR: '/c' })).toBe('/c/config.json');
    expect(userSettingsFile({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/x/claude-checkpoint/config.json');
    expect(userSettingsFile({ HOME: '/h' })).toBe('/h/.config/claude-checkpoint/config.json');
  });

  it('no files: the defaults, and no problem', () => {
    const { env, project } = setUp();
    const report = readSettings(env, project);
    expect(report.problems).toEqual([]);
    expect(report.values.snapshotMaxCount).toBe(100);
    expect(report.files).toEqual({
      user: path.join(env.CHECKPOINT_CONFIG_DIR, 'config.json'),
      project: path.join(project, '.claude', 'checkpoint-config.json'),
    });
  });

  it('reads the user file and the project file, each under its own rule', () => {
    const { env, project } = setUp(
      '{ "snapshotMaxCount": 12, "snapshotIncludeIgnored": [".env*"] }',
      '{ "snapshotMaxCount": 1, "snapshotIncludeIgnored": ["*.local.json"] }',
    );
    const report = readSettings(env, project);
    expect(report.values.snapshotMaxCount).toBe(12);
    expect(report.values.snapshotIncludeIgnored).toEqual(['.env*', '*.local.json']);
    expect(report.problems.map((problem) => problem.severity)).toEqual(['warning']);
  });

  // As a checkpoint file that is not UTF-8 (bad-input trial): never read with U+FFFD in place of its bytes.
  it('a settings file that is not UTF-8 is named with the offset of the first bad byte, and not used', () => {
    const { env, config } = setUp();
    writeFileSync(
      path.join(config, 'config.json'),
      Buffer.from('{ "snapshotMaxCount": 12, "x": "caf\xe9" }', 'latin1'),
    );
    const report = readSettings(env);
    expect(report.problems.map((problem) => problem.message)).toEqual([
      `${path.join(config, 'config.json')}: is not UTF-8 text (the byte at offset 35 (0xe9) is not UTF-8 (text in another encoding, such as Latin-1?)); none of its settings are used`,
    ]);
    expect(report.values.snapshotMaxCount).toBe(100);
  });

  it('does not read a project file that is a symbolic link (it could point anywhere)', () => {
    const { env, project } = setUp();
    const elsewhere = path.join(tempDir('settings-elsewhere-'), 'x.json');
    writeFileSync(elsewhere, '{ "snapshotIncludeIgnored": ["*"] }');
    mkdirSync(path.join(project, '.claude'));
    symlinkSync(elsewhere, path.join(project, PROJECT_SETTINGS_FILE));
    const report = readSettings(env, project);
    expect(report.values.snapshotIncludeIgnored).toEqual([]);
    expect(report.problems).toEqual([
      { severity: 'warning', message: expect.stringContaining('is a symbolic link, so it is not read') },
    ]);
  });

  it('settingsOf stops a command on a wrong user value, naming the file, the key and the limit', () => {
    const { env } = setUp('{ "snapshotMaxCount": 0 }');
    let thrown: unknown;
    try {
      settingsOf({ env });
    } catch (error) {
      thrown = error;
    }
    expect(isCheckpointError(thrown, 'INVALID_INPUT')).toBe(true);
    expect((thrown as Error).message).toBe(
      `${path.join(env.CHECKPOINT_CONFIG_DIR, 'config.json')}: snapshotMaxCount must be a whole number from 1 to 100000: got 0. Fix it, or see every setting with \`claude-checkpoint doctor\``,
    );
  });

  it('settingsOf in a hook reports the problem and goes on with the value below it', () => {
    const { env } = setUp('{ "snapshotMaxCount": 50, ');
    const told: string[] = [];
    const values = settingsOf({ env, settingsProblem: (text) => told.push(text) });
    expect(values.snapshotMaxCount).toBe(100);
    expect(told).toEqual([
      expect.stringMatching(/config\.json: is not valid JSON .*; none of its settings are used$/),
    ]);
  });

  it('refuses a settings file over 64 KB rather than parse it', () => {
    const { env } = setUp(`{ "x": "${'a'.repeat(70 * 1024)}" }`);
    expect(readSettings(env).problems).toEqual([
      { severity: 'error', message: expect.stringContaining('is larger than 64 KB') },
    ]);
  });
});

describe('settings held for a short command (holdSettings)', () => {
  afterEach(() => holdSettings(false));

  it('answers each environment and project with the first reading, until let go', () => {
    const { env, project, config } = setUp('{ "snapshotMaxCount": 12 }');
    holdSettings();
    expect(readSettings(env, project).values.snapshotMaxCount).toBe(12);
    expect(readSettings(env).values.snapshotMaxCount).toBe(12);
    writeFileSync(path.join(config, 'config.json'), '{ "snapshotMaxCount": 13 }');
    expect(readSettings(env, project).values.snapshotMaxCount).toBe(12);
    expect(readSettings(env).values.snapshotMaxCount).toBe(12);
    // Another environment (a copy) or project is read afresh.
    expect(readSettings({ ...env }, project).values.snapshotMaxCount).toBe(13);
    expect(readSettings(env, setUp().project).values.snapshotMaxCount).toBe(13);
    holdSettings(false);
    expect(readSettings(env, project).values.snapshotMaxCount).toBe(13);
  });

  it('not held, every reading sees the file as it is now', () => {
    const { env, config } = setUp();
    expect(readSettings(env).values.snapshotMaxCount).toBe(100);
    writeFileSync(path.join(config, 'config.json'), '{ "snapshotMaxCount": 7 }');
    expect(readSettings(env).values.snapshotMaxCount).toBe(7);
  });
});
