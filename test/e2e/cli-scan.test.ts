import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const GITHUB_TOKEN = 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q';
const STRIPE_KEY = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';

function project() {
  const root = tempDir('scan-project-');
  const configDir = tempDir('scan-config-');
  return { root, env: { CHECKPOINT_CONFIG_DIR: configDir }, configDir };
}

describe('claude-checkpoint scan', () => {
  it('prints file:line:column rule for each secret, never the secret, and exits 1', async () => {
    const { root, env } = project();
    writeFileSync(
      path.join(root, 'deploy.sh'),
      `#!/bin/sh\necho start\nexport GH=${GITHUB_TOKEN}\ncurl -u admin:Tr0ub4dor!3 https://ci.internal\n`,
    );
    writeFileSync(path.join(root, 'clean.md'), 'Set the password in the settings page.\n');
    const result = await runCli(['scan', 'deploy.sh', 'clean.md'], { cwd: root, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('deploy.sh:3:11 github-token\ndeploy.sh:4:15 curl-user\n');
    expect(result.stdout + result.stderr).not.toContain(GITHUB_TOKEN);
    expect(result.stdout + result.stderr).not.toContain('Tr0ub4dor');
  });

  it('exits 0 on clean input, reads standard input with "-" or no files, and reports JSON', async () => {
    const { root, env } = project();
    expect(await runCli(['scan'], { cwd: root, env, input: 'git checkout main\n' })).toMatchObject({
      code: 0,
      stdout: '',
    });
    const json = await runCli(['scan', '-', '--json'], {
      cwd: root,
      env,
      input: `one\nSTRIPE=${STRIPE_KEY}\n`,
    });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      findings: [
        { file: '-', line: 2, column: 8, start: 11, end: 11 + STRIPE_KEY.length, rule: 'stripe-key' },
      ],
      scanned: 1,
      skipped: [],
    });
  });

  it('exits 2 on bad input: a missing file, a folder, an unreadable config', async () => {
    const { root, env, configDir } = project();
    const missing = await runCli(['scan', 'nope.txt'], { cwd: root, env });
    expect(missing).toMatchObject({ code: 2, stderr: 'claude-checkpoint: nope.txt: no such file\n' });
    mkdirSync(path.join(root, 'dir'));
    expect((await runCli(['scan', 'dir'], { cwd: root, env })).stderr).toContain('dir: not a regular file');
    writeFileSync(path.join(configDir, 'redaction.json'), '{"patterns": ["acme_[a-z"]}');
    const bad = await runCli(['scan', '-'], { cwd: root, env, input: 'x' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/redaction\.json: patterns\[0\]\.regex is not a valid regular expression/);
  });

  it('uses your own patterns and exemptions, and a project may add patterns but not exempt values', async () => {
    const { root, env, configDir } = project();
    writeFileSync(
      path.join(configDir, 'redaction.json'),
      JSON.stringify({
        patterns: [{ id: 'acme-token', regex: 'acme_[a-z0-9]{24}', keywords: ['acme_'] }],
        allow: [STRIPE_KEY],
      }),
    );
    mkdirSync(path.join(root, '.claude'));
    writeFileSync(
      path.join(root, '.claude/checkpoint-redaction.json'),
      JSON.stringify({ patterns: ['INT-[0-9]{6}-[A-Z]{4}'] }),
    );
    const input = `acme_k3j5h7g9f1d2s4a6p8o0i9u7\nSTRIPE=${STRIPE_KEY}\nticket INT-482910-QWER\n`;
    const result = await runCli(['scan'], { cwd: root, env, input });
    expect(result.stdout).toBe('-:1:1 custom:acme-token\n-:3:8 custom:patterns[0]\n');

    writeFileSync(
      path.join(root, '.claude/checkpoint-redaction.json'),
      JSON.stringify({ allow: [GITHUB_TOKEN] }),
    );
    const weakened = await runCli(['scan'], { cwd: root, env, input: GITHUB_TOKEN });
    expect(weakened.code).toBe(2);
    expect(weakened.stderr).toContain(
      '"allow" ignored: only your user config may exempt values from redaction',
    );
  });

  it('skips binary content with a note', async () => {
    const { root, env } = project();
    writeFileSync(path.join(root, 'blob.bin'), Buffer.from([0, 1, 2, 3]));
    const result = await runCli(['scan', 'blob.bin'], { cwd: root, env });
    expect(result).toMatchObject({
      code: 0,
      stderr: 'claude-checkpoint: blob.bin: skipped (binary content)\n',
    });
  });
});
