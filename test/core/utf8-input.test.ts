import { describe, expect, it } from 'vitest';
import { decodeUtf8Input, firstInvalidUtf8Offset } from '../../src/core/utf8-input.js';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

describe('firstInvalidUtf8Offset', () => {
  it.each([
    ['ASCII', bytes('{"goal":"g"}'), -1],
    ['two, three and four bytes', bytes('é € 😀'), -1],
    ['the largest code point', bytes([0xf4, 0x8f, 0xbf, 0xbf]), -1],
    ['a Latin-1 é', bytes('caf', [0xe9], ' goal'), 3],
    ['a continuation byte alone', bytes('a', [0x80]), 1],
    ['an overlong slash', bytes('ab', [0xc0, 0xaf]), 2],
    ['an overlong three-byte form', bytes([0xe0, 0x80, 0xaf]), 0],
    ['a surrogate', bytes('x', [0xed, 0xa0, 0x80]), 1],
    ['past U+10FFFF', bytes([0xf4, 0x90, 0x80, 0x80]), 0],
    ['a character cut off at the end', bytes('ok', [0xe2, 0x82]), 2],
    ['a lead byte that never leads', bytes([0xf8, 0x80]), 0],
  ])('%s', (_, input, offset) => {
    expect(firstInvalidUtf8Offset(input)).toBe(offset);
    // TextDecoder is the reference for whether the bytes are UTF-8 at all.
    const isValid = (() => {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(input);
        return true;
      } catch {
        return false;
      }
    })();
    expect(isValid).toBe(offset === -1);
  });
});

describe('decodeUtf8Input (bad-input trial: stdin that is not UTF-8 was saved with U+FFFD in silence)', () => {
  it.each([
    [
      'Latin-1 text: the offset and the byte',
      bytes('{"goal":"caf', [0xe9], ' goal"}'),
      'stdin must be UTF-8 text: the byte at offset 12 (0xe9) is not UTF-8 (text in another encoding, such as Latin-1?): convert it to UTF-8',
    ],
    [
      'UTF-16 with its byte order mark',
      Buffer.from('\ufeff{"goal":"g"}', 'utf16le'),
      'stdin must be UTF-8 text: it begins with a UTF-16 byte order mark (0xff 0xfe at byte offset 0): convert it to UTF-8 (iconv -f UTF-16 -t UTF-8, for one)',
    ],
    [
      'big-endian UTF-16 with its byte order mark',
      bytes([0xfe, 0xff, 0x00, 0x7b]),
      'stdin must be UTF-8 text: it begins with a UTF-16 byte order mark (0xfe 0xff at byte offset 0): convert it to UTF-8 (iconv -f UTF-16 -t UTF-8, for one)',
    ],
    [
      'UTF-16 without one: its NUL bytes',
      Buffer.from('{"goal":"g"}', 'utf16le'),
      'stdin must be UTF-8 text: it holds a NUL byte at byte offset 1, which looks like UTF-16 text: convert it to UTF-8 (iconv -f UTF-16 -t UTF-8, for one)',
    ],
  ])('refuses %s', (_, input, message) => {
    expect(() => decodeUtf8Input(input, 'stdin')).toThrow(message);
  });

  it('decodes UTF-8, and drops a UTF-8 byte order mark', () => {
    expect(decodeUtf8Input(bytes('{"goal":"café 😀"}'), 'stdin')).toBe('{"goal":"café 😀"}');
    expect(decodeUtf8Input(bytes([0xef, 0xbb, 0xbf], '{}'), 'stdin')).toBe('{}');
  });
});
