import { type SpawnOptions, spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRepo, git, tempDir, workerStateHome } from './fixtures.js';

/** The CLI as the package installs it (package.json's bin): the CLI's bundle, run through V8's code cache. */
export const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
/** The same CLI as plain ES modules, which the bundle is built from. */
export const PLAIN_CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
/** The hooks' lean entry point, as the plugin runs it (bundled) and hand-written settings may. */
export const HOOK_ENTRY = fileURLToPath(new URL('../../dist/hook.js', import.meta.url));
/** The entry `setup` points agents' hooks at: the plugin's bundle, which the package ships too. */
export const SHIPPED_HOOK_ENTRY = fileURLToPath(new URL('../../plugin/dist/hook.cjs', import.meta.url));

export function assertBuilt(): void {
  for (const file of [CLI, PLAIN_CLI])
    if (!existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first (npm test does)`);
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a person or a hook would: a separate process, no terminal. */
export function runCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; input?: string | Buffer },
): Promise<CliResult> {
  return runNodeScript(CLI, args, options);
}

/** Claude Code's prompt hook, run in `root` for one prompt of `session` (from `cwd`, with `--root`, if given). */
export function sendPrompt(
  root: string,
  env: Record<string, string>,
  session: string,
  prompt: string,
  cwd?: string,
): Promise<CliResult> {
  const input = JSON.stringify({
    session_id: session,
    cwd: root,
    hook_event_name: 'UserPromptSubmit',
    prompt,
  });
  const args =
    cwd === undefined ? ['hook', 'UserPromptSubmit'] : ['hook', 'UserPromptSubmit', '--root', root];
  return runCli(args, { cwd: cwd ?? root, env, input });
}

/**
 * The environment a test's child process starts with: the store under the worker's state folder unless a
 * test names one (never under ~/.local/state), no hook hosts left behind unless a test starts one, and
 * `extra` over both.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    XDG_STATE_HOME: workerStateHome(),
    CHECKPOINT_HOOK_HOST: '0',
    ...extra,
  };
}

/**
 * Runs one of the built entry points in a separate process, with `input` on stdin; with `keepStdinOpen`,
 * stdin stays open after it (as an agent may leave it) until the process has exited.
 */
export function runNodeScript(
  script: string,
  args: string[],
  options: {
    cwd: string;
    env?: Record<string, string>;
    /** Bytes as they are (stdin that is not UTF-8), or text written as UTF-8. */
    input?: string | Buffer;
    keepStdinOpen?: boolean;
  },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const spawnOptions: SpawnOptions = {
      cwd: options.cwd,
      env: childEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    };
    const child = spawn(process.execPath, [script, ...args], spawnOptions);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      child.stdin?.destroy();
      resolve({ code, stdout, stderr });
    });
    if (options.keepStdinOpen) child.stdin?.write(options.input ?? '');
    else child.stdin?.end(options.input ?? '');
  });
}

/**
 * A folder holding a `git` that writes each command line to a log before it runs the real git: put
 * `dir` first on PATH and set TRACE_GIT_LOG to `log` (not a GIT_* variable: the CLI keeps those from git).
 * With `variable`, each line ends with ` <variable>=<its value for that git>`.
 */
export function gitLoggingShim(
  root: string,
  variable?: string,
): { dir: string; log: string; commands: () => string[] } {
  const dir = tempDir('git-log-');
  const log = path.join(dir, 'git.log');
  writeFileSync(log, '');
  const shown = variable === undefined ? '' : ` ${variable}=$${variable}`;
  writeFileSync(
    path.join(dir, 'git'),
    `#!/bin/sh\necho "$*${shown}" >> "$TRACE_GIT_LOG"\nexec ${JSON.stringify(git(root, '--exec-path').trim())}/git "$@"\n`,
  );
  chmodSync(path.join(dir, 'git'), 0o755);
  return { dir, log, commands: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

/** Runs the CLI (with `--root root`) with git on PATH writing down each command line before it runs. */
export async function runCliWithGitLog(
  args: string[],
  root: string,
  env: Record<string, string>,
): Promise<{ result: CliResult; gitCommands: string[] }> {
  const shim = gitLoggingShim(root);
  const result = await runCli([...args, '--root', root], {
    cwd: root,
    env: { ...env, TRACE_GIT_LOG: shim.log, PATH: `${shim.dir}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  return { result, gitCommands: shim.commands() };
}

/** A committed repository with a snapshot store of its own, and the CLI run in it (with stdin `input`). */
export function cliProject(committed: Record<string, string> = { 'a.txt': 'one\n' }) {
  const root = createRepo({ committed });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  return {
    root,
    env,
    cli: (...args: string[]) => runCli(args, { cwd: root, env }),
    input: (text: string | Buffer, ...args: string[]) => runCli(args, { cwd: root, env, input: text }),
  };
}
