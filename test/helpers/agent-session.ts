import { spawn } from 'node:child_process';
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

/** Runs an agent CLI to the end (killed after 90 s), with `stdin` written to it or ignored. */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string },
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
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    child.stdin?.end(options.stdin);
  });
}
