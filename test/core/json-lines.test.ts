import { describe, expect, it } from 'vitest';
import { parseJsonLines, parseJsonObject, renameEverywhere } from '../../src/core/json-lines.js';

describe('JSON lines of agents’ session files', () => {
  it('parses each line to an object, index for index, and nulls the rest', () => {
    const text = '{"a":1}\n\n[1,2]\nnull\n"text"\n{"b":{"c":2}}\n{"cut":';
    expect(parseJsonLines(text)).toEqual([{ a: 1 }, null, null, null, null, { b: { c: 2 } }, null]);
    expect(parseJsonObject('  {"x": true}  ')).toEqual({ x: true });
    expect(parseJsonObject('not json')).toBeNull();
  });

  it('renames an id wherever it stands whole, as a value or a key, and leaves texts that only contain it', () => {
    const id = '0199a0e4-7c1f-7d52-8b1e-3c5a2f6d9e10';
    const line = {
      sessionId: id,
      payload: {
        ids: [id, 'other', { [id]: { nested: id } }],
        path: `/home/u/.copilot/session-state/${id}/events.jsonl`,
      },
      count: 3,
      flag: null,
    };
    expect(renameEverywhere(line, id, 'new-id')).toEqual({
      sessionId: 'new-id',
      payload: {
        ids: ['new-id', 'other', { 'new-id': { nested: 'new-id' } }],
        path: `/home/u/.copilot/session-state/${id}/events.jsonl`,
      },
      count: 3,
      flag: null,
    });
    // The original is only read.
    expect(line.sessionId).toBe(id);
  });
});
