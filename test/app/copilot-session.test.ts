import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findTranscriptPrompt } from '../../src/app/claude-transcript.js';
import { copilotPrompts, copilotSessionId, forkCopilotSession } from '../../src/app/copilot-session.js';

// Written by the real Copilot CLI 1.0.102 (see transcripts/copilot.ts): a first prompt that ran tools,
// then a second ("Thanks") in the session resumed, with our hooks' records around each.
const EVENTS = readFileSync(
  new URL('../fixtures/transcripts/copilot-session.jsonl', import.meta.url),
  'utf8',
);
const SESSION = 'af86c68a-a4bb-48c1-8cf8-ba796d0575f7';
const NEW = 'aaaaaaaa-0000-4000-8000-000000000001';
const NOW = new Date('2026-12-03T09:30:00.000Z');
const WORKSPACE = `id: ${SESSION}
cwd: /tmp/checkpoint-repo-h92Ozi
name: Go: add a health check route
user_named: false
fork_count: 0
created_at: 2026-12-02T05:23:19.718Z
updated_at: 2026-12-02T05:23:47.000Z
`;

const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("Copilot CLI's session events", () => {
  it('lists the typed prompts, each with where its run starts (the resume and hooks before it)', () => {
    expect(copilotSessionId(EVENTS)).toBe(SESSION);
    expect(copilotPrompts(EVENTS).map((prompt) => [prompt.text, prompt.index, prompt.runStart])).toEqual([
      ['Go: add a health check route', 5, 1],
      ['Thanks', 91, 86],
    ]);
    const thanks = copilotPrompts(EVENTS)[1];
    expect(
      findTranscriptPrompt(copilotPrompts(EVENTS), { label: 'Thanks', createdAt: '2026-12-02T05:23:45Z' }),
    ).toEqual(thanks);
  });

  it('forks before the second prompt: every event up to the first run’s end, under the new id', () => {
    const thanks = copilotPrompts(EVENTS)[1];
    if (!thanks) throw new Error('no second prompt');
    const fork = forkCopilotSession(EVENTS, WORKSPACE, thanks, NEW, NOW);
    if (!fork) throw new Error('no fork');
    const forked = lines(fork.events);
    const original = lines(EVENTS);
    expect(forked).toHaveLength(86);
    expect(forked.at(-1)?.type).toBe('session.shutdown');
    expect(forked[0]?.data).toMatchObject({ sessionId: NEW });
    // Every value or key that named the session names the new one (a hook's record of a path keeps it).
    expect(fork.events).not.toContain(`"${SESSION}"`);
    expect(fork.events).not.toContain('Thanks');
    const renamed = (line: unknown) => JSON.stringify(line).replaceAll(`"${SESSION}"`, `"${NEW}"`);
    expect(forked.map(renamed)).toEqual(original.slice(0, 86).map(renamed));
    expect(fork.messages).toBe(9);
    expect(fork.workspace).toBe(`id: ${NEW}
cwd: /tmp/checkpoint-repo-h92Ozi
name: Go: add a health check route
user_named: false
fork_count: 0
created_at: ${NOW.toISOString()}
updated_at: ${NOW.toISOString()}
`);
  });

  it('the first prompt has nothing before it: no fork; a session without a workspace file forks without one', () => {
    const [first, thanks] = copilotPrompts(EVENTS);
    if (!first || !thanks) throw new Error('no prompts');
    expect(forkCopilotSession(EVENTS, WORKSPACE, first, NEW, NOW)).toBeNull();
    expect(forkCopilotSession(EVENTS, null, thanks, NEW, NOW)?.workspace).toBeNull();
  });

  it('a sub-agent’s or an injected user message is no prompt', () => {
    const event = (type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ type, data, id: 'e', timestamp: '2026-12-02T05:23:20Z', parentId: null, ...extra });
    const text = [
      event('session.start', { sessionId: SESSION }),
      event('user.message', { content: 'Typed' }),
      event('user.message', { content: 'From a skill', source: 'skill' }),
      event('user.message', { content: 'To the sub-agent' }, { agentId: 'a1' }),
    ].join('\n');
    expect(copilotPrompts(text).map((prompt) => prompt.text)).toEqual(['Typed']);
  });
});
