import { CheckpointError } from './errors.js';

/**
 * The offset of the first byte that does not begin or continue a UTF-8 character (an overlong form, a
 * surrogate, past U+10FFFF, or a character cut off at the end), or -1 when every byte is UTF-8.
 */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let at = 0;
  while (at < bytes.length) {
    const lead = bytes[at] as number;
    if (lead < 0x80) {
      at++;
      continue;
    }
    // The bytes that follow the lead, and the range the first of them must fall in (RFC 3629, section 4).
    let follow: number;
    let [low, high] = [0x80, 0xbf];
    if (lead >= 0xc2 && lead <= 0xdf) follow = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      follow = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      follow = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return at;
    for (let k = 1; k <= follow; k++) {
      const byte = bytes[at + k];
      if (byte === undefined || byte < (k === 1 ? low : 0x80) || byte > (k === 1 ? high : 0xbf)) return at;
    }
    at += follow + 1;
  }
  return -1;
}

const hex = (byte: number) => `0x${byte.toString(16).padStart(2, '0')}`;

const CONVERT = 'convert it to UTF-8 (iconv -f UTF-16 -t UTF-8, for one)';

/**
 * `bytes` as text, when they are UTF-8 (a UTF-8 byte order mark, which Windows editors write, is dropped);
 * otherwise an INVALID_INPUT error that names `source` and says what is wrong (see notUtf8). Decoding
 * replaced such bytes with U+FFFD in silence, and saved "caf\ufffd goal" for a Latin-1 "café goal".
 */
export function decodeUtf8Input(bytes: Uint8Array, source: string): string {
  const bad = notUtf8(bytes);
  if (bad !== null) {
    const fix = looksLikeUtf16(bytes) ? CONVERT : 'convert it to UTF-8';
    throw new CheckpointError('INVALID_INPUT', `${source} must be UTF-8 text: ${bad}: ${fix}`);
  }
  return new TextDecoder().decode(bytes);
}

/**
 * What is wrong with `bytes` as UTF-8 text, or null when nothing is: UTF-16 when it looks like it (a byte
 * order mark, or a NUL byte, which no JSON text holds: what PowerShell 5.1's `>` writes), else "the byte
 * at offset 57 (0xe9) is not UTF-8 (text in another encoding, such as Latin-1?)". What a reader says of
 * bytes it must not decode with U+FFFD in their place.
 */
export function notUtf8(bytes: Uint8Array): string | null {
  const [first, second] = [bytes[0], bytes[1]];
  if ((first === 0xff && second === 0xfe) || (first === 0xfe && second === 0xff))
    return `it begins with a UTF-16 byte order mark (${hex(first)} ${hex(second)} at byte offset 0)`;
  const nul = bytes.indexOf(0);
  if (nul >= 0) return `it holds a NUL byte at byte offset ${nul}, which looks like UTF-16 text`;
  const bad = firstInvalidUtf8Offset(bytes);
  return bad < 0
    ? null
    : `the byte at offset ${bad} (${hex(bytes[bad] as number)}) is not UTF-8 (text in another encoding, such as Latin-1?)`;
}

function looksLikeUtf16(bytes: Uint8Array): boolean {
  const [first, second] = [bytes[0], bytes[1]];
  return (first === 0xff && second === 0xfe) || (first === 0xfe && second === 0xff) || bytes.indexOf(0) >= 0;
}
