import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/agent-session.js';
import { repoRoot } from '../helpers/claude-code.js';
import {
  type FakeModel,
  type LoggedRequest,
  type Plan,
  startFakeModel,
  typedText,
} from '../helpers/fake-model.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * `claude-checkpoint rewind --conversation` against a real Copilot CLI session of three prompts (the
 * second and third sent with `copilot --continue`), each running a shell command, driven by a scripted
 * model. The fork is resumed by the real Copilot CLI, and the assertions are on what the model receives.
 * Copilot CLI runs hooks only in a trusted folder: COPILOT_ALLOW_ALL=true trusts it, in place of the user.
 */

const COPILOT = path.join(repoRoot, '.cache/agents/copilot/node_modules/.bin/copilot');
const CLI = path.join(repoRoot, 'dist/cli.js');

const plan: Plan = (prompt) => {
  const step = /^Step (\d)/.exec(prompt)?.[1];
  if (step)
    return [
      { tool: 'exec_command', input: { cmd: `echo s${step} > step${step}.txt` } },
      { text: `Did step ${step}.` },
    ];
  return [{ text: 'Continuing.' }];
};

let model: FakeModel;
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;

async function copilot(prompt: string, extra: string[] = []) {
  const before = model.requests.length;
  const result = await runProcess(COPILOT, [...extra, '-p', prompt], { cwd: project, env });
  expect(result.code, `copilot exited ${result.code}: ${result.stderr.slice(-2000)}`).toBe(0);
  return model.requests.slice(before).filter((request) => request.url.includes('/responses'));
}

const cli = (args: string[]) =>
  runProcess(process.execPath, [CLI, ...args], { cwd: project, env, stdin: '' });
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * The conversation a request carries: what the person typed (the context Copilot CLI puts around it left out),
 * the model's words, its calls and their outputs. System and developer messages, and the context our
 * SessionStart hook gives, are left out: Copilot CLI sends them afresh on every start.
 */
function conversation(request: LoggedRequest): string[] {
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
        const typed = typedText(part.text)?.replace(/(?:\s*<([\w-]+)>[\s\S]*?<\/\1>)+\s*$/, '');
        // What our SessionStart hook said on this start (the brief), not part of the history.
        if (typed && !/^(?:Session checkpoint restored|A session checkpoint exists)/.test(typed))
          out.push(`user: ${typed}`);
      }
      if (item.role === 'assistant' && part.type === 'output_text') out.push(`assistant: ${part.text}`);
    }
  }
  return out;
}

let sessionId = '';
let events = '';
/** The first request of each prompt: the history as Copilot CLI itself resumed it, then the prompt. */
const sent = new Map<string, LoggedRequest>();

/** What the model received before `prompt` when the original session went on to it. */
function historyBefore(prompt: string): string[] {
  const received = conversation(sent.get(prompt) as LoggedRequest);
  expect(received.at(-1)).toBe(`user: ${prompt}`);
  return received.slice(0, -1);
}

beforeAll(async () => {
  if (!existsSync(COPILOT))
    throw new Error('Copilot CLI is not installed: run `npm run test:agents`, which installs it first');
  model = await startFakeModel(plan, { format: 'responses', latencyMs: 100 });
  home = tempDir('copilot-home-');
  project = createRepo({ committed: { 'a.txt': 'a\n' } });
  env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `${model.url}/v1`,
    COPILOT_PROVIDER_WIRE_API: 'responses',
    COPILOT_PROVIDER_API_KEY: 'fake-key-for-tests',
    COPILOT_MODEL: 'fake-model',
    COPILOT_ALLOW_ALL: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    NO_COLOR: '1',
  };
  mkdirSync(path.join(home, '.copilot'), { recursive: true });
  const setup = await cli(['setup', 'copilot']);
  expect(setup.code, setup.stderr).toBe(0);
  for (const [step, extra] of [
    ['Step 1 first', []],
    ['Step 2 second', ['--continue']],
    ['Step 3 third', ['--continue']],
  ] as const)
    sent.set(step, (await copilot(step, [...extra]))[0] as LoggedRequest);
  const snapshots = JSON.parse((await cli(['list', '--json'])).stdout).snapshots as Array<
    Record<string, string>
  >;
  const prompts = snapshots.filter((snapshot) => snapshot.trigger === 'prompt');
  expect(prompts.map((snapshot) => snapshot.label).sort()).toEqual([
    'Step 1 first',
    'Step 2 second',
    'Step 3 third',
  ]);
  sessionId = prompts[0]?.sessionId ?? '';
  for (const snapshot of prompts) expect(snapshot).toMatchObject({ agent: 'copilot', sessionId });
  events = path.join(home, '.copilot', 'session-state', sessionId, 'events.jsonl');
  expect(existsSync(events)).toBe(true);
});

afterAll(async () => {
  await model?.close();
});

describe('rewind the conversation of a real Copilot CLI session', () => {
  it('latest~1 --conversation: a new session folder holding the first turn only; resumed, the model receives exactly it; the original unchanged', async () => {
    const original = sha(events);
    const state = path.dirname(path.dirname(events));
    const sessionsBefore = readdirSync(state);
    const run = await cli(['rewind', 'latest~1', '--conversation', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const outcome = JSON.parse(run.stdout) as {
      conversation: { prompt: string; fork: { sessionId: string; resume: string; transcript: string } };
    };
    expect(outcome.conversation.prompt).toBe('Step 2 second');
    const fork = outcome.conversation.fork;
    expect(fork.sessionId).not.toBe(sessionId);
    expect(fork.resume).toBe(`copilot --resume ${fork.sessionId}`);
    expect(fork.transcript).toBe(path.join(state, fork.sessionId, 'events.jsonl'));
    expect(readdirSync(state).sort()).toEqual([...sessionsBefore, fork.sessionId].sort());
    expect(readdirSync(path.join(state, fork.sessionId)).sort()).toEqual(['events.jsonl', 'workspace.yaml']);
    expect(sha(events)).toBe(original);

    const requests = await copilot('Carry on from here', [`--resume=${fork.sessionId}`]);
    const received = conversation(requests[0] as LoggedRequest);
    // Exactly what Copilot CLI itself sent before the second prompt, then the new one.
    expect(received).toEqual([...historyBefore('Step 2 second'), 'user: Carry on from here']);
    expect(received).toEqual(
      expect.arrayContaining([
        'user: Step 1 first',
        'assistant: call exec_command',
        'assistant: Did step 1.',
      ]),
    );
    expect(received.join('\n')).not.toMatch(/Step 2|step 2|Step 3|step 3/);
    expect(sha(events)).toBe(original);
  });

  it('--conversation at the third prompt by id: the first two turns, and the prompt given back to send again', async () => {
    const listing = JSON.parse(
      (await cli(['rewind', '--list', '--json', '--session', sessionId])).stdout,
    ) as {
      entries: Array<{ id: string; prompt: string }>;
    };
    const third = listing.entries.find((entry) => entry.prompt === 'Step 3 third');
    const run = await cli(['rewind', third?.id ?? '', '--conversation', '--session', sessionId]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Continue it: copilot --resume [0-9a-f-]{36}\n/);
    expect(run.stdout).toMatch(/The prompt, to send again or edit:\n\nStep 3 third\n$/);
    const id = /copilot --resume ([0-9a-f-]{36})/.exec(run.stdout)?.[1] ?? '';
    const received = conversation((await copilot('Go on', [`--resume=${id}`]))[0] as LoggedRequest);
    expect(received).toEqual([...historyBefore('Step 3 third'), 'user: Go on']);
    expect(received).toEqual(
      expect.arrayContaining([
        'user: Step 1 first',
        'assistant: Did step 1.',
        'user: Step 2 second',
        'assistant: Did step 2.',
      ]),
    );
    expect(received.join('\n')).not.toMatch(/Step 3|step 3/);
  });

  it('the first prompt: nothing came before it, so no session is written; the prompt is given back', async () => {
    const sessions = readdirSync(path.dirname(path.dirname(events)));
    const run = await cli(['rewind', 'latest~2', '--conversation', '--json', '--session', sessionId]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).conversation).toMatchObject({
      canFork: false,
      fork: null,
      prompt: 'Step 1 first',
      reason: expect.stringContaining('`copilot`'),
    });
    expect(readdirSync(path.dirname(path.dirname(events)))).toEqual(sessions);
  });
});
