import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copilotTurnWritten } from '../../src/transcripts/copilot.js';
import { TRANSCRIPT_READERS } from '../../src/transcripts/readers.js';
import { tempDir } from '../helpers/fixtures.js';

// Helper task left3, item 4: the readers tested a line's bytes for compact JSON (`"type":"user"`), so a
// transcript written with spaces after colons and commas (valid JSON Lines, as Python's json.dumps
// writes by default) read as nothing. Each recorded fixture, spaced two ways, must read the same.

const fixture = (name: string) => new URL(`../fixtures/transcripts/${name}`, import.meta.url).pathname;

/** Every line as `json.dumps` writes it: `{"type": "user", "message": {"role": "user"}}`. */
const pythonStyle = (line: unknown) =>
  JSON.stringify(line, null, 1)
    .replace(/([{[])\n */g, '$1')
    .replace(/\n *([}\]])/g, '$1')
    .replace(/,\n */g, ', ');
/** Spaces inside the braces too: `{ "type": "user", "message": { "role": "user" } }`. */
const looseStyle = (line: unknown) => JSON.stringify(line, null, 1).replace(/\n */g, ' ');

function spacedCopy(source: string, style: (line: unknown) => string): string {
  const text = readFileSync(source, 'utf8');
  const spaced = text
    .split('\n')
    .map((line) => (line.trim() === '' ? line : style(JSON.parse(line))))
    .join('\n');
  const file = path.join(tempDir('spaced-transcript-'), path.basename(source));
  writeFileSync(file, spaced);
  return file;
}

const CASES = [
  ['claude', 'claude-code-todo.jsonl'],
  ['claude', 'claude-code-tasks.jsonl'],
  ['claude', 'claude-code-powershell.jsonl'],
  ['codex', 'codex-rollout.jsonl'],
  ['copilot', 'copilot-session.jsonl'],
  ['gemini', 'gemini-chat.jsonl'],
  ['gemini', 'gemini-chat-resumed.jsonl'],
] as const;

describe('a transcript written with spaces reads as the compact one', () => {
  it.each(
    CASES.flatMap(([agent, name]) => [
      [agent, name, 'pythonStyle', pythonStyle] as const,
      [agent, name, 'looseStyle', looseStyle] as const,
    ]),
  )('%s: %s (%s)', (agent, name, _styleName, style) => {
    const reader = TRANSCRIPT_READERS[agent];
    if (!reader) throw new Error(`no reader for ${agent}`);
    const compact = reader.read(fixture(name), 's', null)?.record;
    // The fixture itself reads as something: the comparison below is not of two empty records.
    expect(compact?.goal).toBeTruthy();
    expect((compact?.commands?.length ?? 0) + (compact?.files?.length ?? 0)).toBeGreaterThan(0);
    const spaced = reader.read(spacedCopy(fixture(name), style), 's', null)?.record;
    expect(spaced).toEqual(compact);
  });

  // Cut after a model call's start (not written yet), after its message (no turn_end yet), after its end.
  it.each([
    [93, false],
    [95, false],
    [96, true],
  ] as const)(
    'Copilot CLI: events cut after line %i: the answer written is %s, spaced or not',
    (lines, written) => {
      const dir = tempDir('copilot-cut-');
      const cut = path.join(dir, 'events.jsonl');
      const text = readFileSync(fixture('copilot-session.jsonl'), 'utf8').split('\n').slice(0, lines);
      writeFileSync(cut, `${text.join('\n')}\n`);
      expect(copilotTurnWritten(cut)).toBe(written);
      for (const style of [pythonStyle, looseStyle])
        expect(copilotTurnWritten(spacedCopy(cut, style))).toBe(written);
    },
  );
});
