import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CheckpointError } from '../../src/core/errors.js';
import { migrateCheckpoint, parseCheckpoint, serializeCheckpoint } from '../../src/core/schema.js';

const exampleText = readFileSync(new URL('../fixtures/spec-example.json', import.meta.url), 'utf8');

describe('parseCheckpoint', () => {
  it("reads the original tool's example file", () => {
    const checkpoint = parseCheckpoint(exampleText);
    expect(checkpoint.goal.tasks).toHaveLength(3);
    expect(checkpoint.modifiedFiles[0]?.hash).toBe('9ec893ef673dac860e7e2b6fcaad602983eeb0b1');
  });

  it('round-trips through serialize, and keeps fields it does not know', () => {
    const withExtra = { ...JSON.parse(exampleText), futureField: { kept: true } };
    const parsed = parseCheckpoint(JSON.stringify(withExtra));
    expect(JSON.parse(serializeCheckpoint(parsed))).toEqual(withExtra);
  });

  it.each([
    ['not JSON', '{"version": 1,', /not valid JSON/],
    ['not an object', '[1, 2]', /not a JSON object/],
    ['no version', '{"id": "x"}', /no valid "version"/],
    [
      'a wrong field type',
      exampleText.replace('"dirty": true', '"dirty": "yes"'),
      /field git\.dirty is invalid/,
    ],
    [
      'an unknown task status',
      exampleText.replace('"status": "done"', '"status": "finished"'),
      /goal\.tasks\.0\.status/,
    ],
    ['an empty file', '', /not valid JSON/],
  ])('calls %s corrupt', (_name, text, message) => {
    expect(() => parseCheckpoint(text)).toThrow(message);
    try {
      parseCheckpoint(text);
    } catch (error) {
      expect((error as CheckpointError).code).toBe('CORRUPT');
    }
  });

  it('refuses a newer version with advice to upgrade', () => {
    const future = exampleText.replace('"version": 1', '"version": 2');
    expect(() => parseCheckpoint(future)).toThrow(
      /schema version 2.*up to version 1: upgrade claude-checkpoint-mcp/,
    );
  });
});

describe('migrateCheckpoint', () => {
  it('runs each step from the file version up to the target', () => {
    const steps = {
      1: (raw: Record<string, unknown>) => ({ ...raw, b: 'added by 1→2' }),
      2: (raw: Record<string, unknown>) => ({ ...raw, c: `${String(raw.b)}, then 2→3` }),
    };
    expect(migrateCheckpoint({ version: 1, a: 1 }, steps, 3)).toEqual({
      version: 3,
      a: 1,
      b: 'added by 1→2',
      c: 'added by 1→2, then 2→3',
    });
  });

  it('explains a missing step instead of guessing', () => {
    expect(() => migrateCheckpoint({ version: 1 }, {}, 2)).toThrow(
      /no migration from checkpoint schema version 1/,
    );
  });
});
