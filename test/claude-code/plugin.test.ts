import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { claudeBinary as binary, claudeEnv, repoRoot } from '../helpers/claude-code.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/** Runs the real `claude` with a throwaway HOME: no login, no model, no telemetry. */
function claude(home: string, args: string[], cwd = home): { code: number; out: string } {
  try {
    const out = execFileSync(binary, args, {
      cwd,
      encoding: 'utf8',
      timeout: 90_000,
      env: claudeEnv(home),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, out };
  } catch (error) {
    const failure = error as { status?: number; stdout?: string; stderr?: string };
    return { code: failure.status ?? 1, out: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
  }
}

beforeAll(() => {
  if (!existsSync(binary))
    throw new Error('Claude Code is not installed: run `npm run test:agents`, which installs it first');
});

describe('the plugin, in the real Claude Code CLI', () => {
  it('passes `claude plugin validate --strict` as a marketplace and as a plugin (with the directory profile)', () => {
    const home = tempDir('claude-home-');
    const marketplace = claude(home, ['plugin', 'validate', '--strict', repoRoot]);
    expect(marketplace.out).toContain('Validation passed');
    expect(marketplace.code).toBe(0);
    const plugin = claude(home, [
      'plugin',
      'validate',
      '--strict',
      '--profile',
      'directory',
      path.join(repoRoot, 'plugin'),
    ]);
    expect(plugin.out).toContain('Validation passed');
    expect(plugin.code).toBe(0);
  });

  it('installs from the local marketplace, connects the MCP server, and runs the SessionStart hook', () => {
    const home = tempDir('claude-home-');
    expect(claude(home, ['plugin', 'marketplace', 'add', repoRoot]).out).toContain(
      'Successfully added marketplace: tenlean',
    );
    expect(claude(home, ['plugin', 'install', 'session-checkpoint@tenlean']).out).toContain(
      'Successfully installed plugin: session-checkpoint@tenlean',
    );

    const project = createRepo({ committed: { 'a.ts': 'a' } });
    const list = claude(home, ['mcp', 'list'], project);
    expect(list.out).toMatch(/plugin:session-checkpoint:claude-checkpoint: .*✔ Connected/);

    // A checkpoint to come back to, saved with the plugin's own bundled CLI.
    const cli = path.join(repoRoot, 'plugin/dist/cli.mjs');
    execFileSync(process.execPath, [cli, 'save', '--goal', 'Prove the hook runs'], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: home },
    });
    const debugFile = path.join(home, 'debug.txt');
    const init = claude(home, ['--init-only', '--debug-file', debugFile], project);
    expect(init.code).toBe(0);
    const debug = readFileSync(debugFile, 'utf8');
    expect(debug).toMatch(
      /Hooks: SessionStart:startup \[node \S*plugin\/dist\/hook\.cjs SessionStart\] \(plugin session-checkpoint@tenlean\) finished with status 0/,
    );
    expect(debug).toContain('Goal: Prove the hook runs');
    expect(debug).toMatch(/Hook SessionStart .* provided additionalContext/);
  });
});
