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
 * `claude-checkpoint rewind --conversation` against a real Gemini CLI session of three prompts (the
 * second and third sent with `--resume latest`), each writing a file, driven by a scripted
 * model. The fork is resumed by the real Gemini CLI, and the assertions are on what the model receives.
 */

const GEMINI = path.join(repoRoot, '.cache/agents/gemini/node_modules/.bin/gemini');
const CLI = path.join(repoRoot, 'dist/cli.js');

const plan: Plan = (prompt) => {
  const step = /^Step (\d)/.exec(prompt)?.[1];
  if (step)
    return [
      { tool: 'write_file', input: { file_path: `step${step}.txt`, content: `s${step}\n` } },
      { text: `Did step ${step}.` },
    ];
  return [{ text: 'Continuing.' }];
};

let model: FakeModel;
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;

async function gemini(prompt: string, extra: string[] = []) {
  const before = model.requests.length;
  const result = await runProcess(GEMINI, ['-p', prompt, '--yolo', '--skip-trust', ...extra], {
    cwd: project,
    env,
    stdin: '',
  });
  expect(result.code, `gemini exited ${result.code}: ${result.stderr.slice(-2000)}`).toBe(0);
  return model.requests.slice(before).filter((request) => request.url.includes('streamGenerateContent'));
}

const cli = (args: string[]) =>
  runProcess(process.execPath, [CLI, ...args], { cwd: project, env, stdin: '' });
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * The conversation a request carries: what the person typed (context blocks taken off; context alone
 * left out), the model's words, its calls and the calls' responses.
 */
function conversation(request: LoggedRequest): string[] {
  type Part = {
    text?: string;
    thought?: boolean;
    functionCall?: { name: string };
    functionResponse?: { name: string };
  };
  const contents = (request.body?.contents ?? []) as Array<{ role: string; parts: Part[] }>;
  const out: string[] = [];
  for (const content of contents)
    for (const part of content.parts) {
      if (part.functionCall) out.push(`${content.role}: call ${part.functionCall.name}`);
      if (part.functionResponse) out.push(`${content.role}: response ${part.functionResponse.name}`);
      if (typeof part.text !== 'string' || part.thought) continue;
      const typed = content.role === 'user' ? typedText(part.text) : part.text.trim() || undefined;
      if (typed !== undefined) out.push(`${content.role}: ${typed}`);
    }
  return out;
}

let sessionId = '';
let chatFile = '';
/** The first request of each prompt: the history as Gemini CLI itself resumed it, then the prompt. */
const sent = new Map<string, LoggedRequest>();

/** What the model received before `prompt` when the original session went on to it. */
function historyBefore(prompt: string): string[] {
  const received = conversation(sent.get(prompt) as LoggedRequest);
  expect(received.at(-1)).toBe(`user: ${prompt}`);
  return received.slice(0, -1);
}

beforeAll(async () => {
  if (!existsSync(GEMINI))
    throw new Error('Gemini CLI is not installed: run `npm run test:agents`, which installs it first');
  model = await startFakeModel(plan, { format: 'gemini', latencyMs: 100 });
  home = tempDir('gemini-home-');
  project = createRepo({ committed: { 'a.txt': 'a\n' } });
  env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    GEMINI_API_KEY: 'fake-key-for-tests',
    GOOGLE_GEMINI_BASE_URL: model.url,
    GEMINI_CLI_NO_RELAUNCH: 'true',
    CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    NO_COLOR: '1',
  };
  mkdirSync(path.join(home, '.gemini'));
  // Gemini CLI's session cleanup is off: with it, a session that `-p --resume` left a second, empty file
  // for (same short id) is deleted whole by the next session of another id (see docs/agents/gemini.md).
  writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { sessionRetention: { enabled: false } },
    }),
  );
  // No checkpoint (no shell command recorded, none derived from the transcript), so no brief on resume:
  // Gemini CLI leaves out of a resumed history a prompt that starts with hook context (its
  // isIgnoredUserContent), and `-p --resume` puts SessionStart's context there, which would hide what is tested.
  mkdirSync(path.join(home, '.config', 'claude-checkpoint'), { recursive: true });
  writeFileSync(
    path.join(home, '.config', 'claude-checkpoint', 'config.json'),
    JSON.stringify({ fromTranscript: false }),
  );
  const setup = await cli(['setup', 'gemini']);
  expect(setup.code, setup.stderr).toBe(0);
  for (const [step, extra] of [
    ['Step 1 first', []],
    ['Step 2 second', ['--resume', 'latest']],
    ['Step 3 third', ['--resume', 'latest']],
  ] as const)
    sent.set(step, (await gemini(step, [...extra]))[0] as LoggedRequest);
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
  chatFile = prompts[0]?.transcriptPath ?? '';
  for (const snapshot of prompts)
    expect(snapshot).toMatchObject({ agent: 'gemini', sessionId, transcriptPath: chatFile });
  expect(path.basename(path.dirname(chatFile))).toBe('chats');
});

afterAll(async () => {
  await model?.close();
});

describe('rewind the conversation of a real Gemini CLI session', () => {
  it('latest~1 --conversation: a new chat file holding the first turn only; resumed, the model receives exactly it; the original unchanged', async () => {
    const before = sha(chatFile);
    const filesBefore = readdirSync(path.dirname(chatFile));
    const run = await cli(['rewind', 'latest~1', '--conversation', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const outcome = JSON.parse(run.stdout) as {
      conversation: { prompt: string; fork: { sessionId: string; resume: string; transcript: string } };
    };
    expect(outcome.conversation.prompt).toBe('Step 2 second');
    const fork = outcome.conversation.fork;
    expect(fork.sessionId).not.toBe(sessionId);
    expect(fork.resume).toBe(`gemini --resume ${fork.sessionId}`);
    expect(path.dirname(fork.transcript)).toBe(path.dirname(chatFile));
    expect(readdirSync(path.dirname(chatFile)).sort()).toEqual(
      [...filesBefore, path.basename(fork.transcript)].sort(),
    );
    expect(sha(chatFile)).toBe(before);

    const requests = await gemini('Carry on from here', ['--resume', fork.sessionId]);
    const request = requests.find((logged) => logged.raw.includes('Carry on from here'));
    expect(request).toBeDefined();
    // Exactly what Gemini CLI itself sent before the second prompt, then the new one.
    const received = conversation(request as LoggedRequest);
    expect(received).toEqual([...historyBefore('Step 2 second'), 'user: Carry on from here']);
    expect(received).toEqual(expect.arrayContaining(['user: Step 1 first', 'model: Did step 1.']));
    expect(received.join('\n')).not.toMatch(/Step 2|step 2|Step 3|step 3/);
    expect(sha(chatFile)).toBe(before);
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
    expect(run.stdout).toMatch(/Continue it: gemini --resume [0-9a-f-]{36}\n/);
    expect(run.stdout).toMatch(/The prompt, to send again or edit:\n\nStep 3 third\n$/);
    const id = /gemini --resume ([0-9a-f-]{36})/.exec(run.stdout)?.[1] ?? '';
    const requests = await gemini('Go on', ['--resume', id]);
    const request = requests.find((logged) => logged.raw.includes('Go on'));
    const received = conversation(request as LoggedRequest);
    expect(received).toEqual([...historyBefore('Step 3 third'), 'user: Go on']);
    expect(received).toEqual(
      expect.arrayContaining([
        'user: Step 1 first',
        'model: Did step 1.',
        'user: Step 2 second',
        'model: Did step 2.',
      ]),
    );
    expect(received.join('\n')).not.toMatch(/Step 3|step 3/);
  });

  it('the first prompt: nothing came before it, so no session is written; the prompt is given back', async () => {
    const files = readdirSync(path.dirname(chatFile));
    const run = await cli(['rewind', 'latest~2', '--conversation', '--json', '--session', sessionId]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).conversation).toMatchObject({
      canFork: false,
      fork: null,
      prompt: 'Step 1 first',
      reason: expect.stringContaining('`gemini`'),
    });
    expect(readdirSync(path.dirname(chatFile))).toEqual(files);
  });
});
