import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  findTranscriptPrompt,
  forkClaudeTranscript,
  transcriptPrompts,
} from '../../src/app/claude-transcript.js';

// Written by the real Claude Code 2.1.332 in a session of three prompts, each running one Bash command
// (test/claude-code/rewind-session.test.ts runs such a session); its API-request bookkeeping lines and the
// contents of its attachments are left out.
const TRANSCRIPT = readFileSync(new URL('../fixtures/claude-code-session.jsonl', import.meta.url), 'utf8');
const ORIGINAL_SESSION = 'b4c9ace5-a499-4748-b228-b65376c1eb91';
const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

function counter(): () => string {
  let next = 0;
  return () => `00000000-0000-4000-8000-${String(++next).padStart(12, '0')}`;
}

describe("Claude Code's transcript", () => {
  it('lists the typed prompts, not the tool results that are user lines too', () => {
    const prompts = transcriptPrompts(TRANSCRIPT);
    expect(prompts.map((prompt) => prompt.text)).toEqual(['Step 1 first', 'Step 2 second', 'Step 3 third']);
    expect(prompts[0]?.parentUuid).toBeNull();
    expect(prompts.every((prompt) => prompt.promptId !== null)).toBe(true);
  });

  it('finds a snapshot’s prompt by the prompt id, else by its first line and time', () => {
    const prompts = transcriptPrompts(TRANSCRIPT);
    const second = prompts[1];
    expect(
      findTranscriptPrompt(prompts, { promptId: second?.promptId ?? '', createdAt: '2000-01-01T00:00:00Z' }),
    ).toBe(second);
    expect(
      findTranscriptPrompt(prompts, { label: 'Step 3 third', createdAt: '2026-12-02T02:33:40Z' })?.text,
    ).toBe('Step 3 third');
    // A redacted label matches no text: the prompt written just after the snapshot is the one.
    expect(
      findTranscriptPrompt(prompts, { label: 'Step [REDACTED]', createdAt: second?.timestamp ?? '' })?.text,
    ).toBe('Step 2 second');
    expect(
      findTranscriptPrompt(prompts, { label: 'never typed', createdAt: '2020-01-01T00:00:00Z' }),
    ).toBeNull();
  });

  // Regression (issue 26): a snapshot whose prompt the agent never wrote (it died after the hook) matched
  // the prompt written before it, or another prompt with the same text, and forked there.
  it('never takes a prompt written before the snapshot, nor one with another prompt id, for the snapshot’s', () => {
    const prompts = transcriptPrompts(TRANSCRIPT);
    const third = prompts[2];
    const after = new Date(Date.parse(third?.timestamp ?? '') + 5_000).toISOString();
    expect(findTranscriptPrompt(prompts, { label: 'epsilon', createdAt: after })).toBeNull();
    expect(
      findTranscriptPrompt(prompts, { promptId: 'never-written', label: 'epsilon', createdAt: after }),
    ).toBeNull();
    expect(
      findTranscriptPrompt(prompts, { promptId: 'never-written', label: 'Step 3 third', createdAt: after }),
    ).toBeNull();
  });

  it('forks the conversation before the third prompt: the first two turns, a new session id, a consistent chain', () => {
    const prompts = transcriptPrompts(TRANSCRIPT);
    const third = prompts[2];
    if (!third) throw new Error('no third prompt');
    const fork = forkClaudeTranscript(TRANSCRIPT, third, 'new-session', counter());
    if (!fork) throw new Error('no fork');
    expect(fork.prompt).toBe('Step 3 third');
    const forked = lines(fork.text);
    expect(forked.every((line) => line.sessionId === 'new-session')).toBe(true);
    expect(fork.text).toContain('Did step 2.');
    expect(fork.text).not.toContain('Step 3 third');
    expect(fork.text).not.toContain('Did step 3.');
    expect(fork.text).not.toContain(ORIGINAL_SESSION);
    // Fresh uuids, and every parent named is a message of the fork.
    const originalUuids = new Set(
      lines(TRANSCRIPT)
        .map((line) => line.uuid)
        .filter(Boolean),
    );
    const uuids = new Set(forked.map((line) => line.uuid).filter(Boolean));
    for (const uuid of uuids) expect(originalUuids.has(uuid)).toBe(false);
    for (const line of forked)
      if (typeof line.parentUuid === 'string') expect(uuids.has(line.parentUuid)).toBe(true);
    // It ends naming the answer the third prompt followed as the leaf to resume from.
    const last = forked.at(-1) as Record<string, unknown>;
    expect(last).toMatchObject({ type: 'last-prompt', lastPrompt: 'Step 2 second' });
    const leaf = forked.find((line) => line.uuid === last.leafUuid);
    expect(leaf).toMatchObject({
      type: 'assistant',
      message: { content: [{ type: 'text', text: 'Did step 2.' }] },
    });
    // Only one last-prompt: the original's would name later leaves.
    expect(forked.filter((line) => line.type === 'last-prompt')).toHaveLength(1);
    expect(fork.messages).toBe(
      forked.filter((line) => ['user', 'assistant', 'attachment', 'system'].includes(String(line.type)))
        .length,
    );
  });

  it('has nothing to fork before the prompt that opened the session', () => {
    const first = transcriptPrompts(TRANSCRIPT)[0];
    if (!first) throw new Error('no first prompt');
    expect(forkClaudeTranscript(TRANSCRIPT, first, 'new-session', counter())).toBeNull();
  });

  it('skips a cut last line (Claude Code may be writing it)', () => {
    const cut = `${TRANSCRIPT}{"type":"user","message":{"role":"us`;
    expect(transcriptPrompts(cut)).toHaveLength(3);
  });
});
