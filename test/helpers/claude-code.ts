import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeModel, type Plan, startFakeModel } from './fake-model.js';
import { createRepo, tempDir } from './fixtures.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** Installed by scripts/install-claude-code.mjs (`npm run test:agents`). */
export const claudeBinary = path.join(repoRoot, '.cache/claude-code/node_modules/.bin/claude');

/** The plugin's MCP server, as Claude Code names its tools: mcp__plugin_<plugin>_<server>__<tool>. */
export const pluginTool = (tool: string) => `mcp__plugin_session-checkpoint_claude-checkpoint__${tool}`;

/** A throwaway HOME: no login, no telemetry, no updates; with `modelUrl`, the model is our stand-in. */
export function claudeEnv(home: string, modelUrl?: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...(modelUrl ? { ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: 'sk-ant-fake-for-tests' } : {}),
  };
}

export interface ClaudeRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `claude` without blocking the event loop (a stand-in model may be serving this process). */
export function runClaude(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number },
): Promise<ClaudeRun> {
  return new Promise((resolve) => {
    const child = spawn(claudeBinary, args, { cwd: options.cwd, env: options.env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/**
 * One print-mode session fed prompts in turn over `--input-format stream-json`, each sent once the
 * previous one has its result (slash commands such as /clear and /compact included).
 */
export function runClaudeConversation(
  args: readonly string[],
  prompts: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ClaudeRun & { results: number }> {
  return new Promise((resolve) => {
    const child = spawn(
      claudeBinary,
      ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', ...args],
      { cwd: options.cwd, env: options.env, stdio: 'pipe' },
    );
    const queue = [...prompts];
    let stdout = '';
    let stderr = '';
    let pending = '';
    let results = 0;
    const sendNext = () => {
      const prompt = queue.shift();
      if (prompt === undefined) {
        child.stdin.end();
        return;
      }
      const message = { type: 'user', message: { role: 'user', content: [{ type: 'text', text: prompt }] } };
      child.stdin.write(`${JSON.stringify(message)}\n`);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stdout += text;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        if ((JSON.parse(line) as { type?: string }).type !== 'result') continue;
        results += 1;
        sendNext();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr, results });
    });
    sendNext();
  });
}

/** Adds this working tree as a marketplace and installs the plugin from it, into `home`. */
export async function installPlugin(home: string): Promise<void> {
  for (const args of [
    ['plugin', 'marketplace', 'add', repoRoot],
    ['plugin', 'install', 'session-checkpoint@tenlean'],
  ]) {
    const run = await runClaude(args, { cwd: home, env: claudeEnv(home) });
    if (run.code !== 0) throw new Error(`claude ${args.join(' ')} failed: ${run.stdout}${run.stderr}`);
  }
}

/**
 * What a session with the plugin needs: Claude Code installed, a scripted model (answering in 300 ms, as a
 * real one takes a while), a throwaway home with the plugin installed, a project with `committed` files,
 * and an environment with its own checkpoint store.
 */
export async function pluginSessionSetup(
  plan: Plan,
  committed: Record<string, string>,
): Promise<{ model: FakeModel; home: string; project: string; env: NodeJS.ProcessEnv }> {
  if (!existsSync(claudeBinary))
    throw new Error('Claude Code is not installed: run `npm run test:agents`, which installs it first');
  const model = await startFakeModel(plan, { latencyMs: 300 });
  const home = tempDir('claude-home-');
  await installPlugin(home);
  const project = createRepo({ committed });
  const env = { ...claudeEnv(home, model.url), CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  return { model, home, project, env };
}

/** Runs a command to completion, for the plugin's own CLI in a test project. */
export function runNode(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd, env }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}
