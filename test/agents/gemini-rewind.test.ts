import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectFirstPromptNotForked,
  forkAtThirdPrompt,
  sha256Of as sha,
  startThreePromptSession,
  type ThreePromptSession,
} from '../helpers/agent-rewind.js';
import { type LoggedRequest, typedText } from '../helpers/fake-model.js';

/**
 * `claude-checkpoint rewind --conversation` against a real Gemini CLI session of three prompts (the
 * second and third sent with `--resume latest`), each writing a file, driven by a scripted
 * model. The fork is resumed by the real Gemini CLI, and the assertions are on what the model receives.
 */

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

let session: ThreePromptSession;
let chatFile = '';

beforeAll(async () => {
  session = await startThreePromptSession('gemini', {
    step: (n) => ({ tool: 'write_file', input: { file_path: `step${n}.txt`, content: `s${n}\n` } }),
    prepareHome: (home) => {
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
    },
    continueArgs: ['--resume', 'latest'],
    conversation,
  });
  chatFile = session.prompts[0]?.transcriptPath ?? '';
  for (const snapshot of session.prompts) expect(snapshot.transcriptPath).toBe(chatFile);
  expect(path.basename(path.dirname(chatFile))).toBe('chats');
});

afterAll(async () => {
  await session?.close();
});

describe('rewind the conversation of a real Gemini CLI session', () => {
  it('latest~1 --conversation: a new chat file holding the first turn only; resumed, the model receives exactly it; the original unchanged', async () => {
    const before = sha(chatFile);
    const filesBefore = readdirSync(path.dirname(chatFile));
    const run = await session.cli(['rewind', 'latest~1', '--conversation', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const outcome = JSON.parse(run.stdout) as {
      conversation: { prompt: string; fork: { sessionId: string; resume: string; transcript: string } };
    };
    expect(outcome.conversation.prompt).toBe('Step 2 second');
    const fork = outcome.conversation.fork;
    expect(fork.sessionId).not.toBe(session.sessionId);
    expect(fork.resume).toBe(`gemini --resume ${fork.sessionId}`);
    expect(path.dirname(fork.transcript)).toBe(path.dirname(chatFile));
    expect(readdirSync(path.dirname(chatFile)).sort()).toEqual(
      [...filesBefore, path.basename(fork.transcript)].sort(),
    );
    expect(sha(chatFile)).toBe(before);

    const requests = await session.send('Carry on from here', ['--resume', fork.sessionId]);
    const request = requests.find((logged) => logged.raw.includes('Carry on from here'));
    expect(request).toBeDefined();
    // Exactly what Gemini CLI itself sent before the second prompt, then the new one.
    const received = conversation(request as LoggedRequest);
    expect(received).toEqual([...session.historyBefore('Step 2 second'), 'user: Carry on from here']);
    expect(received).toEqual(expect.arrayContaining(['user: Step 1 first', 'model: Did step 1.']));
    expect(received.join('\n')).not.toMatch(/Step 2|step 2|Step 3|step 3/);
    expect(sha(chatFile)).toBe(before);
  });

  it('--conversation at the third prompt by id: the first two turns, and the prompt given back to send again', async () => {
    const id = await forkAtThirdPrompt(session, 'gemini --resume');
    const requests = await session.send('Go on', ['--resume', id]);
    const request = requests.find((logged) => logged.raw.includes('Go on'));
    const received = conversation(request as LoggedRequest);
    expect(received).toEqual([...session.historyBefore('Step 3 third'), 'user: Go on']);
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
    await expectFirstPromptNotForked(session, 'gemini');
    expect(readdirSync(path.dirname(chatFile))).toEqual(files);
  });
});
