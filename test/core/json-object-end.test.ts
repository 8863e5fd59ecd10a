import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createJsonObjectEnd, type JsonObjectPhase } from '../../src/core/json-object-end.js';

/** The phase after scanning `text` cut into chunks at `cuts` (byte offsets). */
function phaseOf(text: string, cuts: number[] = []): JsonObjectPhase {
  const bytes = Buffer.from(text, 'utf8');
  const end = createJsonObjectEnd();
  let from = 0;
  for (const cut of [...cuts.filter((at) => at > 0 && at < bytes.length)].sort((a, b) => a - b)) {
    end.add(bytes.subarray(from, cut));
    from = cut;
  }
  end.add(bytes.subarray(from));
  return end.phase();
}

/** The scan as it was, one byte at a time everywhere: what the jumps through strings must agree with. */
function phaseByteByByte(text: string): JsonObjectPhase {
  let depth = 0;
  let state = 'before';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (state === 'whole' || state === 'other') break;
    if (state === 'before') {
      if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
      state = byte === 0x7b ? 'inside' : 'other';
      depth = 1;
    } else if (state === 'string') {
      if (byte === 0x5c) state = 'escape';
      else if (byte === 0x22) state = 'inside';
    } else if (state === 'escape') state = 'string';
    else if (byte === 0x22) state = 'string';
    else if (byte === 0x7b || byte === 0x5b) depth++;
    else if ((byte === 0x7d || byte === 0x5d) && --depth === 0) state = 'whole';
  }
  return state === 'before' || state === 'whole' || state === 'other' ? state : 'open';
}

describe('createJsonObjectEnd: where a hook input’s object ends', () => {
  it.each([
    ['{"a":1}', 'whole'],
    ['  \n{"a":{"b":[1,{"c":2}]}} and more', 'whole'],
    ['{"out":"a } ] brace in a string"}', 'whole'],
    ['{"out":"an escaped \\" quote } still inside"', 'open'],
    ['{"out":"an escaped \\" quote"}', 'whole'],
    ['{"out":"a backslash at the end \\\\"}', 'whole'],
    ['{"out":"\\\\\\"}"', 'open'],
    ['{"out":"unfinished', 'open'],
    ['{"a":[1,2', 'open'],
    ['', 'before'],
    ['  \n', 'before'],
    ['[1,2]', 'other'],
    ['not json', 'other'],
  ])('%j: %s', (text, phase) => {
    expect(phaseOf(text)).toBe(phase);
    // The same in chunks of one byte: every state carried from one chunk to the next.
    expect(
      phaseOf(
        text,
        Array.from({ length: Buffer.byteLength(text) }, (_, at) => at),
      ),
    ).toBe(phase);
  });

  it('agrees with a byte-by-byte scan on any JSON-like text, cut anywhere', () => {
    const piece = fc.oneof(
      fc.constantFrom('{', '}', '[', ']', '"', '\\', '\\"', '\\\\', ',', ':', ' ', '\n', 'x', 'é', '🙂'),
      fc.string({ maxLength: 6 }),
    );
    const json = fc.oneof(
      fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join('')),
      fc.jsonValue().map((value) => JSON.stringify({ value })),
      fc.jsonValue().map((value) => `${JSON.stringify({ value }).slice(0, -1)}`),
    );
    fc.assert(
      fc.property(json, fc.array(fc.nat({ max: 400 }), { maxLength: 8 }), (text, cuts) => {
        expect(phaseOf(text, cuts)).toBe(phaseByteByByte(text));
      }),
      { numRuns: 2000 },
    );
  });
});
