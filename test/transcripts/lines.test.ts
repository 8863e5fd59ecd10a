import { closeSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { compactJsonLine, readLinesBackward, readLinesForward } from '../../src/transcripts/lines.js';
import { tempDir } from '../helpers/fixtures.js';

/** Runs `read` on a real file holding `text`. */
function withFile<T>(text: string, read: (fd: number) => T): T {
  const file = path.join(tempDir('lines-'), 'transcript.jsonl');
  writeFileSync(file, text);
  const fd = openSync(file, 'r');
  try {
    return read(fd);
  } finally {
    closeSync(fd);
  }
}

const line = fc.string({ unit: fc.constantFrom('a', 'é', '{', '"', '😀', ' '), maxLength: 30 });

describe('readLinesBackward', () => {
  it('gives every complete line newest first, whatever the chunk size, and leaves out a cut last line (property)', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 12 }),
        line,
        fc.integer({ min: 1, max: 17 }),
        (lines, cut, chunk) => {
          const text = lines.map((each) => `${each}\n`).join('') + cut;
          const seen: string[] = [];
          const end = withFile(text, (fd) =>
            readLinesBackward(
              fd,
              0,
              Buffer.byteLength(text),
              (bytes) => {
                seen.push(bytes.toString('utf8'));
                return false;
              },
              chunk,
            ),
          );
          expect(seen).toEqual(lines.filter((each) => each !== '').reverse());
          expect(end).toBe(Buffer.byteLength(text) - Buffer.byteLength(cut));
        },
      ),
    );
  });

  it('reads only from the given start, and stops when asked', () => {
    const text = 'one\ntwo\nthree\nfour\n';
    const seen: string[] = [];
    const end = withFile(text, (fd) =>
      readLinesBackward(
        fd,
        4,
        text.length,
        (bytes) => {
          seen.push(bytes.toString());
          return bytes.toString() === 'three';
        },
        3,
      ),
    );
    expect(seen).toEqual(['four', 'three']);
    expect(end).toBe(text.length);
  });

  it('finds no line in a file still writing its first one', () => {
    const seen: string[] = [];
    const end = withFile('{"type":"user"', (fd) =>
      readLinesBackward(fd, 0, 14, (bytes) => seen.push(String(bytes)) < 0),
    );
    expect(seen).toEqual([]);
    expect(end).toBe(0);
  });
});

describe('readLinesForward', () => {
  it('gives lines oldest first, up to a cut line, within a byte budget (property)', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 12 }),
        line,
        fc.integer({ min: 1, max: 17 }),
        (lines, cut, chunk) => {
          const text = lines.map((each) => `${each}\n`).join('') + cut;
          const seen: string[] = [];
          const stopped = withFile(text, (fd) =>
            readLinesForward(
              fd,
              0,
              Buffer.byteLength(text),
              1 << 20,
              (bytes) => {
                seen.push(bytes.toString('utf8'));
                return false;
              },
              chunk,
            ),
          );
          expect(seen).toEqual(lines);
          expect(stopped).toBe(Buffer.byteLength(text) - Buffer.byteLength(cut));
        },
      ),
    );
  });
});

describe('compactJsonLine', () => {
  it.each([
    ['a compact line, as it is', '{"type":"user","n":1}', '{"type":"user","n":1}'],
    ['spaces after colons and commas', '{"type": "user", "n": 1}', '{"type":"user","n":1}'],
    ['spaces inside the braces', '{ "type" : "user" }', '{"type":"user"}'],
    ['a tab after the first colon', '{"type":\t"user"}', '{"type":"user"}'],
    ['not JSON, as it is', '{"type": "us', '{"type": "us'],
  ])('%s', (_title, input, expected) => {
    expect(compactJsonLine(Buffer.from(input)).toString()).toBe(expected);
  });

  // Review 6, item 5: a spaced line was parsed and written again whole, whatever its size (past every
  // reader's PARSE_MAX_BYTES), moving integer-like keys first, keeping the last of duplicate keys and
  // rewriting escapes. Whitespace outside strings is now removed byte by byte.
  it.each([
    [
      "keys' order (integer-like keys stay where they are)",
      '{"type": "user", "2": 1, "10": 2}',
      '{"type":"user","2":1,"10":2}',
    ],
    ['duplicate keys, both', '{"a": 1, "a": 2}', '{"a":1,"a":2}'],
    ['escapes as written', '{"t": "caf\\u00e9 \\/ \\" x\\\\"}', '{"t":"caf\\u00e9 \\/ \\" x\\\\"}'],
    [
      'spaces and braces inside strings',
      '{ "t" : "a { b : c } ",\t"u": [ 1 , 2 ] }\r',
      '{"t":"a { b : c } ","u":[1,2]}',
    ],
    ['a line that is no object, as it is', 'hello, world', 'hello, world'],
  ])('keeps %s', (_title, input, expected) => {
    expect(compactJsonLine(Buffer.from(input)).toString()).toBe(expected);
  });

  it("gives JSON.stringify's bytes for any value written spaced (property)", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const spaced = JSON.stringify(value, null, 1);
        expect(compactJsonLine(Buffer.from(spaced)).toString()).toBe(JSON.stringify(value));
      }),
    );
  });

  it('never parses a line, however long (a spaced line of 20 MB)', () => {
    const big = Buffer.from(`{"type": "user", "content": "${'x '.repeat(10 * 1024 * 1024)}"}`);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const compact = compactJsonLine(big);
      expect(parse).not.toHaveBeenCalled();
      expect(compact.length).toBe(big.length - 3);
      expect(compact.subarray(0, 16).toString()).toBe('{"type":"user","');
    } finally {
      parse.mockRestore();
    }
  });

  it('gives a compact line itself, not a copy', () => {
    const line = Buffer.from('{"type":"user"}');
    expect(compactJsonLine(line)).toBe(line);
  });
});
