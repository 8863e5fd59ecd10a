import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withQuotedNames } from '../../src/core/json-names.js';
import { quotePath, unquotePath } from '../../src/core/quote.js';
import { bytesFromText, fsPath, hasRawBytes, textFromBytes } from '../../src/core/raw-path.js';

describe('names as lossless strings (raw-path.ts)', () => {
  it('any bytes come back from their string exactly', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(bytesFromText(textFromBytes(bytes)).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('valid UTF-8 is the string it always was, and holds no raw byte', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 32 }), (text) => {
        const bytes = Buffer.from(text, 'utf8');
        expect(textFromBytes(bytes)).toBe(text);
        expect(hasRawBytes(text)).toBe(false);
        expect(fsPath(text)).toBe(text);
        expect(bytesFromText(text).equals(bytes)).toBe(true);
      }),
    );
  });

  it.each([
    ['a Latin-1 byte', [0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74], 'caf\udce9.txt', '"caf\\351.txt"'],
    ['a truncated sequence before ASCII', [0xe2, 0x82, 0x41], '\udce2\udc82A', '"\\342\\202A"'],
    ['an encoded surrogate', [0xed, 0xa0, 0x80], '\udced\udca0\udc80', '"\\355\\240\\200"'],
    ['an overlong slash', [0xc0, 0xaf], '\udcc0\udcaf', '"\\300\\257"'],
    ['valid é then a stray byte', [0xc3, 0xa9, 0xff], 'é\udcff', '"é\\377"'],
    ['U+FFFD itself, which is valid', [0xef, 0xbf, 0xbd], '\ufffd', '\ufffd'],
  ])('%s', (_, bytes, text, shown) => {
    expect(textFromBytes(Uint8Array.from(bytes))).toBe(text);
    expect([...bytesFromText(text)]).toEqual(bytes);
    expect(quotePath(text)).toBe(shown);
  });

  it('fsPath gives the bytes for a name that holds raw bytes', () => {
    expect(fsPath('dir/caf\udce9.txt')).toEqual(
      Buffer.from([...Buffer.from('dir/caf'), 0xe9, ...Buffer.from('.txt')]),
    );
  });
});

describe('withQuotedNames: JSON output for names that are not valid UTF-8', () => {
  it('gives each as git quotes it, and lists them once at the top level', () => {
    const value = { plan: { create: ['caf\udce9.txt', 'ok.txt'] }, files: [{ path: 'caf\udce9.txt' }] };
    expect(withQuotedNames(value)).toEqual({
      plan: { create: ['"caf\\351.txt"', 'ok.txt'] },
      files: [{ path: '"caf\\351.txt"' }],
      quotedNames: ['"caf\\351.txt"'],
    });
  });

  it('leaves a value without one as it is (the same object)', () => {
    const value = { plan: { create: ['café.txt', '"quoted".txt'] } };
    expect(withQuotedNames(value)).toBe(value);
  });
});

describe('unquotePath: a name given back in the quoted form every output shows it in', () => {
  it.each([
    ['"caf\\351.txt"', 'caf\udce9.txt'],
    ['"d\\351/\\"x\\"\\tin.txt"', 'd\udce9/"x"\tin.txt'],
    ['"é\\377"', 'é\udcff'],
    // Valid UTF-8 too (adversarial trial, issue 26): `diff` prints `"tab\there.txt"` for such a name.
    ['"tab\\there.txt"', 'tab\there.txt'],
    ['"quo\\"te.txt"', 'quo"te.txt'],
    ['"caf\\303\\251.txt"', 'café.txt'],
    ['"quoted.txt"', 'quoted.txt'],
    ['plain.txt', null],
    ['"unknown\\q"', null],
    ['"a"b"', null],
    ['"', null],
  ])('%s', (given, name) => {
    expect(unquotePath(given)).toBe(name);
  });

  it('undoes quotePath for any name that is not valid UTF-8', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 32 }), (bytes) => {
        const name = textFromBytes(bytes);
        if (!hasRawBytes(name)) return;
        expect(unquotePath(quotePath(name))).toBe(name);
      }),
      // A character outside the BMP before a raw byte once came back as U+FFFD.
      { numRuns: 2000, examples: [[Uint8Array.from([0xf1, 0x80, 0x80, 0x80, 0x80, 0x00])]] },
    );
  });
});

describe('unquotePath undoes quotePath for any name quotePath quotes', () => {
  it('valid UTF-8 with controls, quotes, backslashes and invisible characters', () => {
    const chars = fc.constantFrom(
      'a',
      'é',
      '"',
      '\\',
      '\t',
      '\n',
      '\u001b',
      '\u007f',
      '\u202e',
      '\u200b',
      '😀',
      '/',
    );
    fc.assert(
      fc.property(fc.array(chars, { minLength: 1, maxLength: 16 }), (parts) => {
        const name = parts.join('');
        const quoted = quotePath(name);
        if (quoted !== name) expect(unquotePath(quoted)).toBe(name);
      }),
      { numRuns: 1000 },
    );
  });
});
