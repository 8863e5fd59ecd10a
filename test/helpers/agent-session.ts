import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { Plan, PlannedStep } from './fake-model.js';

/** The failing shell command every agent's first session runs. */
export const FAILING = "echo 'FAIL auth.test.ts' && exit 3";

/**
 * The script the stand-in model follows in every agent's sessions: run the failing tests with the
 * agent's own shell tool, then load the checkpoint through whatever name the agent gives the MCP tool.
 */
export function sessionPlan(shellCall: PlannedStep, prompts: (prompt: string) => string = (p) => p): Plan {
  return (asked, callable) => {
    const prompt = prompts(asked);
    if (prompt === 'Run the auth tests') return [shellCall, { text: 'They fail.' }];
    if (prompt === 'Resume the work') {
      const load = [...callable].find((name) => name.endsWith('load_session_checkpoint'));
      return load ? [{ tool: load, input: {} }, { text: 'Resumed.' }] : [{ text: 'No load tool offered.' }];
    }
    return [{ text: 'Noted.' }];
  };
}

/** Runs an agent CLI to the end (killed after `timeoutMs`, 90 s by default), with `stdin` written to it or ignored. */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timeoutMs = options.timeoutMs ?? 90_000;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // A kill says so where the failure is reported (the last of stderr), not as a bare exit code 1.
      if (timedOut) stderr += `\n[killed: still running after ${timeoutMs / 1000} s]`;
      else if (signal) stderr += `\n[ended by ${signal}]`;
      resolve({ code: code ?? 1, stdout, stderr });
    });
    child.stdin?.end(options.stdin);
  });
}

/** Between two sessions, the person saves through the CLI (merge) and edits a file in another editor. */
export async function saveAndEditBetweenSessions(cli: string, project: string, env: NodeJS.ProcessEnv) {
  await runProcess(
    process.execPath,
    [cli, 'save', '--goal', 'Fix the auth tests', '--next', 'Read auth.test.ts', '--merge'],
    { cwd: project, env },
  );
  writeFileSync(path.join(project, 'src/util.ts'), 'u2: edited in another editor\n');
}

/**
 * What the model received in a fresh session asked to resume, request by request as the agent sent
 * them: the start-up notice first, then the load tool's result (found by `resultField`, the name a tool
 * result has in the agent's API) with the goal and the edited file flagged.
 */
export function expectResumedThroughLoad(received: readonly string[], resultField: string): void {
  expect(received[0]).toContain('A session checkpoint exists for this project');
  const afterLoad = received.find((text) => text.includes(resultField) && text.includes('Resuming'));
  expect(afterLoad).toBeDefined();
  expect(afterLoad).toContain('Fix the auth tests');
  expect(afterLoad).toContain('re-read before editing: `src/util.ts`');
}
