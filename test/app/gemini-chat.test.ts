import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findTranscriptPrompt } from '../../src/app/claude-transcript.js';
import {
  forkGeminiChat,
  type GeminiChat,
  geminiChatFileName,
  geminiPrompts,
  resolveGeminiChat,
} from '../../src/app/gemini-chat.js';

// Written by the real Gemini CLI 0.61.0 in a session of three prompts, each writing a file, the second and
// third sent with `gemini -p --resume latest` (test/agents/gemini-rewind.test.ts runs such a session); the
// session context Gemini CLI puts first is trimmed.
const RESUMED = readFileSync(
  new URL('../fixtures/transcripts/gemini-chat-resumed.jsonl', import.meta.url),
  'utf8',
);
const SESSION = '1493cfc1-d907-4020-be04-5b82400ca786';
const NEW = 'aaaaaaaa-0000-4000-8000-000000000001';
const NOW = new Date('2026-12-03T09:30:00.000Z');

const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

function chatOf(text: string): GeminiChat {
  const chat = resolveGeminiChat(text);
  if (!chat) throw new Error('not a chat');
  return chat;
}

function forkAt(chat: GeminiChat, text: string) {
  const prompt = geminiPrompts(chat).find((candidate) => candidate.text === text);
  if (!prompt) throw new Error(`no prompt ${text}`);
  return forkGeminiChat(chat, prompt, NEW, NOW);
}

/** Each message of a forked chat as `type: words`, tool calls and responses named. */
function transcriptOf(text: string): string[] {
  return lines(text)
    .slice(1)
    .map((message) => {
      const content = JSON.stringify(message.content);
      const words =
        /"text":"((?:Step|Did) [^"]*)"/.exec(content)?.[1] ??
        (typeof message.content === 'string' ? message.content : '');
      const response = content.includes('functionResponse') ? 'response' : '';
      return `${message.type}: ${words || response || (content.includes('session_context') ? 'context' : 'call')}`.trim();
    });
}

describe("Gemini CLI's chat file", () => {
  it('is read as Gemini CLI loads it: the latest copy of each message, after every resume', () => {
    const chat = chatOf(RESUMED);
    expect(chat.metadata.sessionId).toBe(SESSION);
    expect(chat.isDocument).toBe(false);
    expect(geminiPrompts(chat).map((prompt) => prompt.text)).toEqual([
      'Step 1 first',
      'Step 2 second',
      'Step 3 third',
    ]);
    expect(resolveGeminiChat('{"not":"a chat"}\n')).toBeNull();
  });

  it('finds a snapshot’s prompt by its first line and time', () => {
    const prompts = geminiPrompts(chatOf(RESUMED));
    const second = prompts[1];
    expect(
      findTranscriptPrompt(prompts, { label: 'Step 2 second', createdAt: second?.timestamp ?? '' }),
    ).toBe(second);
  });

  it('forks before the second prompt: the first turn as it was when the prompt was sent (before the resume rewrote it)', () => {
    const fork = forkAt(chatOf(RESUMED), 'Step 2 second');
    if (!fork) throw new Error('no fork');
    const [metadata] = lines(fork.text);
    expect(metadata).toEqual({
      sessionId: NEW,
      projectHash: chatOf(RESUMED).metadata.projectHash,
      startTime: NOW.toISOString(),
      lastUpdated: NOW.toISOString(),
      kind: 'main',
    });
    // The records Gemini CLI wrote in the first run, not the history a resume wrote again: resumed, each
    // rebuilds to what the model was sent with the second prompt.
    expect(transcriptOf(fork.text)).toEqual([
      'user: context',
      'user: Step 1 first',
      'gemini: call',
      'user: response',
      'gemini: Did step 1.',
    ]);
    expect(fork.text).not.toContain('_response');
    expect(fork.messages).toBe(5);
    expect(fork.text).not.toMatch(/Step 2|step 2|Step 3|step 3/);
    expect(fork.text).not.toContain(SESSION);
  });

  it('forks before the third prompt: both turns, with the history the second resume wrote, and nothing of the third', () => {
    const fork = forkAt(chatOf(RESUMED), 'Step 3 third');
    if (!fork) throw new Error('no fork');
    expect(transcriptOf(fork.text)).toEqual([
      'user: context',
      'user: Step 1 first',
      'gemini: call',
      'user: response',
      'user: response',
      'gemini: Did step 1.',
      'user: Step 2 second',
      'gemini: call',
      'user: response',
      'gemini: Did step 2.',
    ]);
    expect(fork.text).not.toMatch(/Step 3|step 3/);
  });

  it('the first prompt has nothing before it: no fork', () => {
    expect(forkAt(chatOf(RESUMED), 'Step 1 first')).toBeNull();
  });

  it('drops what a /rewind in Gemini CLI took back, and keeps hook context out of the prompt', () => {
    const message = (id: string, type: string, content: unknown) => JSON.stringify({ id, type, content });
    const text = [
      JSON.stringify({
        sessionId: SESSION,
        projectHash: 'p',
        startTime: 'x',
        lastUpdated: 'x',
        kind: 'main',
      }),
      message('u1', 'user', [{ text: 'One' }]),
      message('g1', 'gemini', 'Answer one'),
      message('u2', 'user', [{ text: 'Two' }]),
      message('g2', 'gemini', 'Answer two'),
      JSON.stringify({ $rewindTo: 'u2' }),
      message('u3', 'user', [{ text: 'Three' }, { text: '<hook_context>from BeforeAgent</hook_context>' }]),
      message('g3', 'gemini', 'Answer three'),
      '{"id":"g4","type":"gem', // cut: Gemini CLI is still writing it
    ].join('\n');
    const chat = chatOf(text);
    expect(geminiPrompts(chat).map((prompt) => prompt.text)).toEqual(['One', 'Three']);
    const fork = forkAt(chat, 'Three');
    expect(fork?.text).toContain('Answer one');
    expect(fork?.text).not.toMatch(/Two|two|Three|three/);
  });

  it('a chat in the older single-document format forks into that format', () => {
    const document = JSON.stringify(
      {
        sessionId: SESSION,
        projectHash: 'p',
        startTime: 'x',
        lastUpdated: 'x',
        summary: 'the whole session, later turns included',
        messages: [
          { id: 'u1', type: 'user', content: 'One' },
          { id: 'g1', type: 'gemini', content: 'Answer one' },
          { id: 'u2', type: 'user', content: 'Two' },
        ],
      },
      null,
      2,
    );
    const chat = chatOf(document);
    expect(chat.isDocument).toBe(true);
    const fork = forkAt(chat, 'Two');
    const forked = JSON.parse(fork?.text ?? '') as Record<string, unknown>;
    expect(forked).toMatchObject({
      sessionId: NEW,
      projectHash: 'p',
      messages: [{ id: 'u1' }, { id: 'g1' }],
    });
    expect(forked.summary).toBeUndefined();
    expect(geminiChatFileName(NEW, NOW, true)).toBe('session-2026-12-03T09-30-aaaaaaaa.json');
    expect(geminiChatFileName(NEW, NOW, false)).toBe('session-2026-12-03T09-30-aaaaaaaa.jsonl');
  });
});
