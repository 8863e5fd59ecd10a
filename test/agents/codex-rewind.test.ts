import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
 * `claude-checkpoint rewind --conversation` against a real Codex session of three prompts (the second and
 * third sent with `codex exec resume --last`), each running a shell command, driven by a scripted model.
 * The fork is resumed by the real Codex, and the assertions are on what the model receives.
 */

const CODEX = path.join(repoRoot, '.cache/agents/codex/node_modules/.bin/codex');
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

async function codex(prompt: string, extra: string[] = []) {
  const before = model.requests.length;
  const result = await runProcess(
    CODEX,
    [
      'exec',
      ...extra,
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--dangerously-bypass-hook-trust',
      prompt,
    ],
    { cwd: project, env },
  );
  expect(result.code, `codex exited ${result.code}: ${result.stderr.slice(-2000)}`).toBe(0);
  return model.requests.slice(before).filter((request) => request.url.includes('/responses'));
}

const cli = (args: string[]) =>
  runProcess(process.execPath, [CLI, ...args], { cwd: project, env, stdin: '' });
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * The conversation a request carries: what the person typed (context Codex sends as user text left out),
 * the model's words, its calls and their outputs. Developer messages (instructions, hook context) are
 * left out: Codex writes them afresh on every start.
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
        const typed = typedText(part.text);
        if (typed !== undefined) out.push(`user: ${typed}`);
      }
      if (item.role === 'assistant' && part.type === 'output_text') out.push(`assistant: ${part.text}`);
    }
  }
  return out;
}

let sessionId = '';
let rollout = '';
/** The first request of each prompt: the history as Codex itself resumed it, then the prompt. */
const sent = new Map<string, LoggedRequest>();

/** What the model received before `prompt` when the original session went on to it. */
function historyBefore(prompt: string): string[] {
  const received = conversation(sent.get(prompt) as LoggedRequest);
  expect(received.at(-1)).toBe(`user: ${prompt}`);
  return received.slice(0, -1);
}

beforeAll(async () => {
  if (!existsSync(CODEX))
    throw new Error('Codex is not installed: run `npm run test:agents`, which installs it first');
  model = await startFakeModel(plan, { format: 'responses', latencyMs: 100 });
  home = tempDir('codex-home-');
  project = createRepo({ committed: { 'a.txt': 'a\n' } });
  env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    FAKE_MODEL_KEY: 'fake-key-for-tests',
    CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    NO_COLOR: '1',
  };
  mkdirSync(path.join(home, '.codex'));
  writeFileSync(
    path.join(home, '.codex', 'config.toml'),
    `model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "${model.url}/v1"
wire_api = "responses"
env_key = "FAKE_MODEL_KEY"
`,
  );
  const setup = await cli(['setup', 'codex']);
  expect(setup.code, setup.stderr).toBe(0);
  for (const [step, extra] of [
    ['Step 1 first', []],
    ['Step 2 second', ['resume', '--last']],
    ['Step 3 third', ['resume', '--last']],
  ] as const)
    sent.set(step, (await codex(step, [...extra]))[0] as LoggedRequest);
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
  rollout = prompts[0]?.transcriptPath ?? '';
  for (const snapshot of prompts)
    expect(snapshot).toMatchObject({ agent: 'codex', sessionId, transcriptPath: rollout });
  // Each prompt is named by its turn id (the hook's turn_id), which the rollout names too.
  const text = readFileSync(rollout, 'utf8');
  for (const snapshot of prompts) expect(text).toContain(`"turn_id":"${snapshot.promptId}"`);
  expect(path.basename(rollout)).toMatch(new RegExp(`^rollout-.*-${sessionId}\\.jsonl$`));
});

afterAll(async () => {
  await model?.close();
});

describe('rewind the conversation of a real Codex session', () => {
  it('latest~1 --conversation: a new rollout holding the first turn only; resumed, the model receives exactly it; the original unchanged', async () => {
    const original = sha(rollout);
    const filesBefore = readdirSync(path.dirname(rollout));
    const run = await cli(['rewind', 'latest~1', '--conversation', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const outcome = JSON.parse(run.stdout) as {
      conversation: { prompt: string; fork: { sessionId: string; resume: string; transcript: string } };
    };
    expect(outcome.conversation.prompt).toBe('Step 2 second');
    const fork = outcome.conversation.fork;
    expect(fork.sessionId).not.toBe(sessionId);
    expect(fork.resume).toBe(`codex resume ${fork.sessionId}`);
    expect(path.basename(fork.transcript)).toMatch(new RegExp(`^rollout-.*-${fork.sessionId}\\.jsonl$`));
    expect(readdirSync(path.dirname(rollout)).sort()).toEqual(
      [...filesBefore, path.basename(fork.transcript)].sort(),
    );
    expect(sha(rollout)).toBe(original);

    const requests = await codex('Carry on from here', ['resume', fork.sessionId]);
    const received = conversation(requests[0] as LoggedRequest);
    // Exactly what Codex itself sent before the second prompt, then the new one.
    expect(received).toEqual([...historyBefore('Step 2 second'), 'user: Carry on from here']);
    expect(received).toEqual(
      expect.arrayContaining([
        'user: Step 1 first',
        'assistant: call exec_command',
        'assistant: Did step 1.',
      ]),
    );
    expect(received.join('\n')).not.toMatch(/Step 2|step 2|Step 3|step 3/);
    expect(sha(rollout)).toBe(original);
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
    expect(run.stdout).toMatch(/Continue it: codex resume [0-9a-f-]{36}\n/);
    expect(run.stdout).toMatch(/The prompt, to send again or edit:\n\nStep 3 third\n$/);
    const id = /codex resume ([0-9a-f-]{36})/.exec(run.stdout)?.[1] ?? '';
    const received = conversation((await codex('Go on', ['resume', id]))[0] as LoggedRequest);
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
    const files = readdirSync(path.dirname(rollout));
    const run = await cli(['rewind', 'latest~2', '--conversation', '--json', '--session', sessionId]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).conversation).toMatchObject({
      canFork: false,
      fork: null,
      prompt: 'Step 1 first',
      reason: expect.stringContaining('`codex`'),
    });
    expect(readdirSync(path.dirname(rollout))).toEqual(files);
  });
});
