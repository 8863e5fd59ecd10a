import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findTranscriptPrompt } from '../../src/app/claude-transcript.js';
import {
  codexPrompts,
  codexRolloutFileName,
  forkCodexRollout,
  rolloutSessionId,
} from '../../src/app/codex-rollout.js';

// Written by the real Codex 0.169.0 (see transcripts/codex.ts): a first prompt that ran tools, then a
// second ("Thanks") in the session resumed.
const ROLLOUT = readFileSync(new URL('../fixtures/transcripts/codex-rollout.jsonl', import.meta.url), 'utf8');
const SESSION = '01a23534-b9d3-7892-85f6-6d7e97ff6f0a';
const SECOND_TURN = '01a23534-e0b6-72a2-b98a-41586ba19d13';
const NEW = 'aaaaaaaa-0000-4000-8000-000000000001';
const NOW = new Date('2026-12-03T09:30:00.000Z');

const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown> & { payload: Record<string, unknown> });

describe("Codex's rollout file", () => {
  it('lists the typed prompts, each with its turn id, not the context Codex sends as user text', () => {
    expect(rolloutSessionId(ROLLOUT)).toBe(SESSION);
    const prompts = codexPrompts(ROLLOUT);
    expect(prompts.map((prompt) => [prompt.text, prompt.promptId, prompt.turnStart])).toEqual([
      ["Add a health check route (token «the user's token»)", '01a23534-bc63-7382-8081-465ebf1e67a3', 1],
      ['Thanks', SECOND_TURN, 38],
    ]);
  });

  it('finds a snapshot’s prompt by its turn id (the hook’s turn_id), else by its first line and time', () => {
    const prompts = codexPrompts(ROLLOUT);
    expect(
      findTranscriptPrompt(prompts, { promptId: SECOND_TURN, createdAt: '2000-01-01T00:00:00Z' })?.text,
    ).toBe('Thanks');
    expect(
      findTranscriptPrompt(prompts, { label: 'Thanks', createdAt: '2026-12-02T05:23:07Z' })?.promptId,
    ).toBe(SECOND_TURN);
  });

  it('forks before the second turn: every line before it starts, the new session id wherever the old one was', () => {
    const second = codexPrompts(ROLLOUT)[1];
    if (!second) throw new Error('no second prompt');
    const fork = forkCodexRollout(ROLLOUT, second, NEW, NOW);
    if (!fork) throw new Error('no fork');
    const forked = lines(fork.text);
    const original = lines(ROLLOUT);
    expect(forked).toHaveLength(38);
    expect(forked.map((line) => line.ordinal)).toEqual(original.slice(0, 38).map((line) => line.ordinal));
    expect(forked[0]?.payload).toMatchObject({ id: NEW, session_id: NEW, timestamp: NOW.toISOString() });
    expect(fork.text).not.toContain(SESSION);
    expect(fork.text).not.toContain(SECOND_TURN);
    expect(fork.text).not.toContain('Thanks');
    expect(fork.text).toContain('The route answers 200; its tests pass, the docs are next.');
    // Line for line the original, but for the session's id and start.
    const renamed = (line: unknown) => JSON.stringify(line).replaceAll(SESSION, NEW);
    expect(forked.slice(1).map(renamed)).toEqual(original.slice(1, 38).map(renamed));
    // The environment context, the prompt and the answer: the messages the model saw (no developer ones).
    expect(fork.messages).toBe(3);
  });

  it('the first prompt has nothing before it: no fork', () => {
    const first = codexPrompts(ROLLOUT)[0];
    if (!first) throw new Error('no first prompt');
    expect(forkCodexRollout(ROLLOUT, first, NEW, NOW)).toBeNull();
  });

  it('a rollout that names no turn (older Codex): a turn starts at its turn_context', () => {
    const line = (type: string, payload: Record<string, unknown>) =>
      JSON.stringify({ timestamp: '2025-06-01T10:00:00Z', type, payload });
    const message = (role: string, text: string) =>
      line('response_item', {
        type: 'message',
        role,
        content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
      });
    const text = [
      line('session_meta', { id: SESSION, timestamp: '2025-06-01T10:00:00Z', cwd: '/p' }),
      line('turn_context', { cwd: '/p', model: 'm' }),
      message('user', '<environment_context>\n  <cwd>/p</cwd>\n</environment_context>'),
      message('user', 'One'),
      line('event_msg', { type: 'user_message', message: 'One' }),
      message('assistant', 'Answer one'),
      line('turn_context', { cwd: '/p', model: 'm' }),
      message('user', 'Two'),
      message('assistant', 'Answer two'),
      '{"timestamp":"2025-06-01T10:00:00Z","type":"resp', // cut: Codex is still writing it
    ].join('\n');
    const prompts = codexPrompts(text);
    expect(prompts.map((prompt) => [prompt.text, prompt.promptId, prompt.turnStart])).toEqual([
      ['One', null, 1],
      ['Two', null, 6],
    ]);
    const fork = forkCodexRollout(text, prompts[1] as (typeof prompts)[number], NEW, NOW);
    expect(lines(fork?.text ?? '')).toHaveLength(6);
    expect(fork?.text).toContain('Answer one');
    expect(fork?.text).not.toMatch(/Two|two/);
  });

  it('names the new rollout as Codex names its own: local time and the session id', () => {
    const name = codexRolloutFileName(NEW, NOW);
    expect(name).toMatch(new RegExp(`^rollout-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-${NEW}\\.jsonl$`));
  });
});
