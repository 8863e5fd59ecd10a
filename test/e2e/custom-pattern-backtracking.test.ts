import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI, childEnv } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const HOOK_CJS = fileURLToPath(new URL('../../plugin/dist/hook.cjs', import.meta.url));
// Each more "a" doubles the time `(a+)+$` takes to fail on it: 40 is days of backtracking.
const PROMPT = `${'a'.repeat(40)}!`;

interface Run {
  /** null when the process had to be killed: it did not finish on its own. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a built entry point; kills it (SIGKILL, which a blocked process cannot ignore) if it outlives `killAfterMs`. */
function run(script: string, args: string[], cwd: string, env: Record<string, string>, input = '') {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, 60_000);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: killed ? null : code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

function project(pattern: string) {
  const root = createRepo({ committed: { 'a.txt': 'one\n' } });
  mkdirSync(path.join(root, '.claude'));
  writeFileSync(
    path.join(root, '.claude', 'checkpoint-redaction.json'),
    JSON.stringify({ patterns: [{ id: 'slow', regex: pattern, keywords: ['aaa'] }] }),
  );
  const env = {
    CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    CHECKPOINT_CONFIG_DIR: tempDir('config-'),
  };
  return { root, env };
}

/** `scan` of texts each of these patterns backtracks on, with a project whose one custom rule is `pattern`. */
function scanWorstCase(pattern: string) {
  const { root, env } = project(pattern);
  return run(
    CLI,
    ['scan', '-'],
    root,
    env,
    `aaa ${'a'.repeat(40)}!\na${' '.repeat(60_000)}!\n${'1'.repeat(40)}\n`,
  );
}

// A look-around keeps a pattern off V8's linear-time engine, so the checker alone judges it.
const SLOW = '(?=a)(a+)+$';

describe('issue 26: a custom redaction pattern that backtracks catastrophically', () => {
  it('is refused by save with a message naming the file, the rule and why; the save finishes', async () => {
    const { root, env } = project(SLOW);
    const saved = await run(CLI, ['save', '--goal', PROMPT], root, env);
    expect(saved.code).toBe(0);
    expect(saved.stdout + saved.stderr).toContain(
      `${path.join(root, '.claude', 'checkpoint-redaction.json')}: patterns[0] ("slow").regex can backtrack catastrophically`,
    );
    // The built-in rules still ran and the goal was kept.
    expect(JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).goal.primary).toBe(PROMPT);
  }, 90_000);

  it('is refused by the hooks, which finish and say so', async () => {
    const { root, env } = project(SLOW);
    await run(CLI, ['save', '--goal', 'start'], root, env);
    const prompt = await run(
      HOOK_CJS,
      ['UserPromptSubmit'],
      root,
      env,
      JSON.stringify({ session_id: 's', cwd: root, hook_event_name: 'UserPromptSubmit', prompt: PROMPT }),
    );
    expect(prompt.code).toBe(0);
    expect(prompt.stderr).toContain('patterns[0] ("slow").regex can backtrack catastrophically');
    const bash = await run(
      HOOK_CJS,
      ['PostToolUse'],
      root,
      env,
      JSON.stringify({
        cwd: root,
        tool_name: 'Bash',
        tool_input: { command: `echo ${PROMPT}` },
        tool_response: {},
      }),
    );
    expect(bash.code).toBe(0);
    expect(bash.stderr).toContain('can backtrack catastrophically');
  }, 150_000);

  it.each([['(?=[a-z])([a-z]+)+@'], ['a(?=\\s)\\s*\\s*$'], ['(?=\\d)(\\d+)+x']])(
    'refuses %s too, and scan says so with exit code 2',
    async (pattern) => {
      const scanned = await scanWorstCase(pattern);
      expect(scanned.code).toBe(2);
      expect(scanned.stderr).toContain('can backtrack catastrophically');
    },
    90_000,
  );

  it.each([['(a+)+$'], ['([a-z]+)+@'], ['a\\s*\\s*$'], ['(\\d+)+x']])(
    "is kept where V8's linear-time engine runs it, and cannot hang there: %s",
    async (pattern) => {
      const scanned = await scanWorstCase(pattern);
      expect(scanned).toMatchObject({ code: 0, stderr: '' });
    },
    90_000,
  );

  it.each([['(a|aa)+$'], ['(x+x+)+y']])(
    'cannot hang where the checker cannot decide: %s',
    async (pattern) => {
      // The checker runs out of steps on these: refused, or run by V8's linear-time engine where it can.
      const { root, env } = project(pattern);
      const scanned = await run(CLI, ['scan', '-'], root, env, `aaa ${'a'.repeat(40)}!\n${'x'.repeat(40)}\n`);
      expect([0, 2]).toContain(scanned.code);
    },
    90_000,
  );

  it('keeps an ordinary pattern working', async () => {
    const { root, env } = project('acme_[a-z0-9]{24}');
    const scanned = await run(CLI, ['scan', '-'], root, env, 'aaa acme_k3j5h7g9f1d2s4a6p8o0i9u7\n');
    expect(scanned).toMatchObject({ code: 1, stdout: '-:1:5 custom:slow\n' });
  }, 90_000);

  it("a sibling: a project's snapshotIncludeIgnored pattern with many stars no longer hangs a snapshot", async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n', '.gitignore': '*.log\n' } });
    mkdirSync(path.join(root, '.claude'));
    writeFileSync(
      path.join(root, '.claude', 'checkpoint-config.json'),
      JSON.stringify({ snapshotIncludeIgnored: [`${'*a'.repeat(12)}*b`] }),
    );
    writeFileSync(path.join(root, `${'a'.repeat(200)}.log`), 'ignored\n');
    const env = {
      CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
      CHECKPOINT_CONFIG_DIR: tempDir('config-'),
    };
    const snapshot = await run(CLI, ['snapshot', '--label', 'stars'], root, env);
    // Finished on its own (git matched the pattern for years before), naming the file's key and the limit.
    expect(snapshot.code).not.toBeNull();
    expect(snapshot.stderr).toContain('snapshotIncludeIgnored');
    expect(snapshot.stderr).toContain('has 13 "*", which can keep git matching names for minutes');
  }, 90_000);
});
