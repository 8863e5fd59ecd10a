import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexProviderConfig } from '../helpers/agent-cli.js';
import {
  expectFirstPromptNotForked,
  forkAtThirdPrompt,
  responsesConversation,
  sha256Of as sha,
  startThreePromptSession,
  type ThreePromptSession,
} from '../helpers/agent-rewind.js';
import type { LoggedRequest } from '../helpers/fake-model.js';

/**
 * `claude-checkpoint rewind --conversation` against a real Codex session of three prompts (the second and
 * third sent with `codex exec resume --last`), each running a shell command, driven by a scripted model.
 * The fork is resumed by the real Codex, and the assertions are on what the model receives.
 */

/** Context Codex sends as user text is not typed (typedText); developer messages are left out. */
const conversation = (request: LoggedRequest) => responsesConversation(request);

let session: ThreePromptSession;
let rollout = '';

beforeAll(async () => {
  session = await startThreePromptSession('codex', {
    step: (n) => ({ tool: 'exec_command', input: { cmd: `echo s${n} > step${n}.txt` } }),
    prepareHome: (home, model) => {
      mkdirSync(path.join(home, '.codex'));
      writeFileSync(path.join(home, '.codex', 'config.toml'), codexProviderConfig(model));
    },
    continueArgs: ['resume', '--last'],
    conversation,
  });
  const { prompts, sessionId } = session;
  rollout = prompts[0]?.transcriptPath ?? '';
  for (const snapshot of prompts) expect(snapshot.transcriptPath).toBe(rollout);
  // Each prompt is named by its turn id (the hook's turn_id), which the rollout names too.
  const text = readFileSync(rollout, 'utf8');
  for (const snapshot of prompts) expect(text).toContain(`"turn_id":"${snapshot.promptId}"`);
  expect(path.basename(rollout)).toMatch(new RegExp(`^rollout-.*-${sessionId}\\.jsonl$`));
});

afterAll(async () => {
  await session?.close();
});

describe('rewind the conversation of a real Codex session', () => {
  it('latest~1 --conversation: a new rollout holding the first turn only; resumed, the model receives exactly it; the original unchanged', async () => {
    const original = sha(rollout);
    const filesBefore = readdirSync(path.dirname(rollout));
    const run = await session.cli(['rewind', 'latest~1', '--conversation', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const outcome = JSON.parse(run.stdout) as {
      conversation: { prompt: string; fork: { sessionId: string; resume: string; transcript: string } };
    };
    expect(outcome.conversation.prompt).toBe('Step 2 second');
    const fork = outcome.conversation.fork;
    expect(fork.sessionId).not.toBe(session.sessionId);
    expect(fork.resume).toBe(`codex resume ${fork.sessionId}`);
    expect(path.basename(fork.transcript)).toMatch(new RegExp(`^rollout-.*-${fork.sessionId}\\.jsonl$`));
    expect(readdirSync(path.dirname(rollout)).sort()).toEqual(
      [...filesBefore, path.basename(fork.transcript)].sort(),
    );
    expect(sha(rollout)).toBe(original);

    const requests = await session.send('Carry on from here', ['resume', fork.sessionId]);
    const received = conversation(requests[0] as LoggedRequest);
    // Exactly what Codex itself sent before the second prompt, then the new one.
    expect(received).toEqual([...session.historyBefore('Step 2 second'), 'user: Carry on from here']);
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
    const id = await forkAtThirdPrompt(session, 'codex resume');
    const received = conversation((await session.send('Go on', ['resume', id]))[0] as LoggedRequest);
    expect(received).toEqual([...session.historyBefore('Step 3 third'), 'user: Go on']);
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
    await expectFirstPromptNotForked(session, 'codex');
    expect(readdirSync(path.dirname(rollout))).toEqual(files);
  });
});
