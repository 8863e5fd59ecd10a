import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectFirstPromptNotForked,
  forkAtThirdPrompt,
  responsesConversation,
  sha256Of as sha,
  startThreePromptSession,
  type ThreePromptSession,
} from '../helpers/agent-rewind.js';
import { type LoggedRequest, typedText } from '../helpers/fake-model.js';

/**
 * `claude-checkpoint rewind --conversation` against a real Copilot CLI session of three prompts (the
 * second and third sent with `copilot --continue`), each running a shell command, driven by a scripted
 * model. The fork is resumed by the real Copilot CLI, and the assertions are on what the model receives.
 * Copilot CLI runs hooks only in a trusted folder: COPILOT_ALLOW_ALL=true trusts it, in place of the user.
 */

/**
 * What the person typed, the context Copilot CLI puts around it taken off; what our SessionStart hook
 * said on a start (the brief) is not part of the history.
 */
const conversation = (request: LoggedRequest) =>
  responsesConversation(request, (text) => {
    const typed = typedText(text)?.replace(/(?:\s*<([\w-]+)>[\s\S]*?<\/\1>)+\s*$/, '');
    return typed && !/^(?:Session checkpoint restored|A session checkpoint exists)/.test(typed)
      ? typed
      : undefined;
  });

let session: ThreePromptSession;
let events = '';

beforeAll(async () => {
  session = await startThreePromptSession('copilot', {
    step: (n) => ({ tool: 'exec_command', input: { cmd: `echo s${n} > step${n}.txt` } }),
    prepareHome: (home) => mkdirSync(path.join(home, '.copilot'), { recursive: true }),
    continueArgs: ['--continue'],
    conversation,
  });
  events = path.join(session.home, '.copilot', 'session-state', session.sessionId, 'events.jsonl');
  expect(existsSync(events)).toBe(true);
});

afterAll(async () => {
  await session?.close();
});

describe('rewind the conversation of a real Copilot CLI session', () => {
  it('latest~1 --conversation: a new session folder holding the first turn only; resumed, the model receives exactly it; the original unchanged', async () => {
    const original = sha(events);
    const state = path.dirname(path.dirname(events));
    const sessionsBefore = readdirSync(state);
    const run = await session.cli(['rewind', 'latest~1', '--conversation', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const outcome = JSON.parse(run.stdout) as {
      conversation: { prompt: string; fork: { sessionId: string; resume: string; transcript: string } };
    };
    expect(outcome.conversation.prompt).toBe('Step 2 second');
    const fork = outcome.conversation.fork;
    expect(fork.sessionId).not.toBe(session.sessionId);
    expect(fork.resume).toBe(`copilot --resume ${fork.sessionId}`);
    expect(fork.transcript).toBe(path.join(state, fork.sessionId, 'events.jsonl'));
    expect(readdirSync(state).sort()).toEqual([...sessionsBefore, fork.sessionId].sort());
    expect(readdirSync(path.join(state, fork.sessionId)).sort()).toEqual(['events.jsonl', 'workspace.yaml']);
    expect(sha(events)).toBe(original);

    const requests = await session.send('Carry on from here', [`--resume=${fork.sessionId}`]);
    const received = conversation(requests[0] as LoggedRequest);
    // Exactly what Copilot CLI itself sent before the second prompt, then the new one.
    expect(received).toEqual([...session.historyBefore('Step 2 second'), 'user: Carry on from here']);
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
    const id = await forkAtThirdPrompt(session, 'copilot --resume');
    const received = conversation((await session.send('Go on', [`--resume=${id}`]))[0] as LoggedRequest);
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
    const sessions = readdirSync(path.dirname(path.dirname(events)));
    await expectFirstPromptNotForked(session, 'copilot');
    expect(readdirSync(path.dirname(path.dirname(events)))).toEqual(sessions);
  });
});
