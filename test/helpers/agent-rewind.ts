import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { type AgentName, agentEnv, checkpointCli, promptAgent } from './agent-cli.js';
import {
  type FakeModel,
  type LoggedRequest,
  type PlannedStep,
  startFakeModel,
  typedText,
} from './fake-model.js';
import { createRepo, tempDir } from './fixtures.js';

/**
 * A real session of three prompts ("Step 1 first", then "Step 2 second" and "Step 3 third" sent with the
 * agent's own resume flags), each making one tool call, set up by `claude-checkpoint setup <agent>`: what
 * the `rewind --conversation` tests of each agent fork and resume.
 */
export interface ThreePromptSession {
  project: string;
  env: NodeJS.ProcessEnv;
  home: string;
  /** The prompt snapshots the hooks took, one per step, each naming the session and its transcript. */
  prompts: Array<Record<string, string>>;
  sessionId: string;
  /** Sends a prompt in the project (`extra`: resume flags); the model's requests for it. */
  send(prompt: string, extra?: string[]): Promise<LoggedRequest[]>;
  /** Runs `claude-checkpoint` in the project. */
  cli(args: string[]): ReturnType<typeof checkpointCli>;
  /** What the model received before `prompt` when the original session went on to it. */
  historyBefore(prompt: string): string[];
  close(): Promise<void>;
}

export const STEPS = ['Step 1 first', 'Step 2 second', 'Step 3 third'] as const;

export async function startThreePromptSession(
  agent: AgentName,
  options: {
    /** The tool call that step `n` makes (writing `step<n>.txt`). */
    step: (n: string) => PlannedStep;
    /** Writes the agent's own config under `home`, before setup. */
    prepareHome: (home: string, model: FakeModel) => void;
    /** The flags that send a prompt into the latest session. */
    continueArgs: string[];
    /** The conversation a request carries, as `role: text` lines. */
    conversation: (request: LoggedRequest) => string[];
  },
): Promise<ThreePromptSession> {
  const model = await startFakeModel(
    (prompt) => {
      const step = /^Step (\d)/.exec(prompt)?.[1];
      return step ? [options.step(step), { text: `Did step ${step}.` }] : [{ text: 'Continuing.' }];
    },
    { format: agent === 'gemini' ? 'gemini' : 'responses', latencyMs: 100 },
  );
  // Not under /tmp for Codex's sake: it refuses to put its helper binaries in a temporary folder.
  const home = tempDir(`${agent}-home-`);
  const project = createRepo({ committed: { 'a.txt': 'a\n' } });
  const env = agentEnv(agent, home, model);
  options.prepareHome(home, model);
  const cli = (args: string[]) => checkpointCli(project, env, args);
  const send = (prompt: string, extra: string[] = []) =>
    promptAgent(agent, { cwd: project, env, model }, prompt, extra);
  const setup = await cli(['setup', agent]);
  expect(setup.code, setup.stderr).toBe(0);

  // The first request of each prompt: the history as the agent itself resumed it, then the prompt.
  const sent = new Map<string, LoggedRequest>();
  for (const [index, step] of STEPS.entries())
    sent.set(step, (await send(step, index === 0 ? [] : options.continueArgs))[0] as LoggedRequest);

  const snapshots = JSON.parse((await cli(['list', '--json'])).stdout).snapshots as Array<
    Record<string, string>
  >;
  const prompts = snapshots.filter((snapshot) => snapshot.trigger === 'prompt');
  expect(prompts.map((snapshot) => snapshot.label).sort()).toEqual([...STEPS]);
  const sessionId = prompts[0]?.sessionId ?? '';
  for (const snapshot of prompts) expect(snapshot).toMatchObject({ agent, sessionId });

  return {
    project,
    env,
    home,
    prompts,
    sessionId,
    send,
    cli,
    historyBefore(prompt) {
      const received = options.conversation(sent.get(prompt) as LoggedRequest);
      expect(received.at(-1)).toBe(`user: ${prompt}`);
      return received.slice(0, -1);
    },
    close: () => model.close(),
  };
}

export const sha256Of = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * `rewind <third prompt's id> --conversation`: forks the first two turns and gives the prompt back to
 * send again; returns the new session's id from the printed resume command (`resumeCommand` before it).
 */
export async function forkAtThirdPrompt(session: ThreePromptSession, resumeCommand: string): Promise<string> {
  const listing = JSON.parse(
    (await session.cli(['rewind', '--list', '--json', '--session', session.sessionId])).stdout,
  ) as { entries: Array<{ id: string; prompt: string }> };
  const third = listing.entries.find((entry) => entry.prompt === STEPS[2]);
  const run = await session.cli([
    'rewind',
    third?.id ?? '',
    '--conversation',
    '--session',
    session.sessionId,
  ]);
  expect(run.code, run.stderr).toBe(0);
  const printed = new RegExp(`Continue it: ${resumeCommand} ([0-9a-f-]{36})\\n`).exec(run.stdout);
  expect(printed, run.stdout).not.toBeNull();
  expect(run.stdout).toMatch(/The prompt, to send again or edit:\n\nStep 3 third\n$/);
  return printed?.[1] ?? '';
}

/** `rewind latest~2 --conversation`: nothing came before the first prompt, so nothing is written. */
export async function expectFirstPromptNotForked(session: ThreePromptSession, agentCommand: string) {
  const run = await session.cli([
    'rewind',
    'latest~2',
    '--conversation',
    '--json',
    '--session',
    session.sessionId,
  ]);
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout).conversation).toMatchObject({
    canFork: false,
    fork: null,
    prompt: STEPS[0],
    reason: expect.stringContaining(`\`${agentCommand}\``),
  });
}

/**
 * The conversation a Responses API request carries (Codex, Copilot CLI): what the person typed, as
 * `typed` reads it (undefined: not typed), the model's words, its calls and their outputs. System and
 * developer messages are left out: the agents send them afresh on every start.
 */
export function responsesConversation(
  request: LoggedRequest,
  typed: (text: string | undefined) => string | undefined = typedText,
): string[] {
  type Item = {
    type?: string;
    role?: string;
    name?: string;
    content?: Array<{ type: string; text?: string }>;
  };
  const out: string[] = [];
  for (const item of (request.body?.input ?? []) as Item[]) {
    if (item.type === 'function_call') out.push(`assistant: call ${item.name}`);
    if (item.type === 'function_call_output') out.push('user: output');
    if ((item.type ?? 'message') !== 'message') continue;
    for (const part of item.content ?? []) {
      if (item.role === 'user' && part.type === 'input_text') {
        const text = typed(part.text);
        if (text !== undefined) out.push(`user: ${text}`);
      }
      if (item.role === 'assistant' && part.type === 'output_text') out.push(`assistant: ${part.text}`);
    }
  }
  return out;
}
