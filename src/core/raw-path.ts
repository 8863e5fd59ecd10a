/**
 * File names are bytes, to git and to the file system, and need not be valid UTF-8 (`café.txt` written in
 * Latin-1). Here they are strings: each byte that is not part of a valid UTF-8 character is kept as the
 * lone surrogate U+DC80–U+DCFF (Python's "surrogateescape"), which no valid UTF-8 decodes to. The mapping
 * is lossless both ways, and a valid name is the same string as ever.
 */

/** A byte kept as a lone surrogate: only these stand for bytes. */
const RAW_BYTE = /[\udc80-\udcff]/u;
const LONE_SURROGATE = /[\ud800-\udfff]/u;

/** Bytes as a string, losing nothing (see above): valid UTF-8 decodes as usual. */
export function textFromBytes(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // UTF-8, Buffer's default: named, it has Node compile its encodings' table (issue 26).
  const text = buffer.toString();
  // No U+FFFD: valid throughout (the usual case, decoded once).
  if (!text.includes('\ufffd')) return text;
  let decoded = '';
  let start = 0;
  for (let at = 0; at < buffer.length; ) {
    const byte = buffer[at] as number;
    if (byte < 0x80) at++;
    else {
      const length = sequenceLength(buffer, at);
      if (length > 0) at += length;
      else {
        decoded += buffer.toString('utf8', start, at) + String.fromCharCode(0xdc00 + byte);
        at++;
        start = at;
      }
    }
  }
  return decoded + buffer.toString('utf8', start);
}

/** A string as the bytes it stands for: each byte kept by textFromBytes as itself, the rest UTF-8. */
export function bytesFromText(text: string): Buffer {
  if (!LONE_SURROGATE.test(text)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let start = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(at + 1);
      if (next >= 0xdc00 && next <= 0xdfff) at++; // a pair: one character
    } else if (code >= 0xdc80 && code <= 0xdcff) {
      parts.push(Buffer.from(text.slice(start, at), 'utf8'), Buffer.of(code - 0xdc00));
      start = at + 1;
    }
  }
  parts.push(Buffer.from(text.slice(start), 'utf8'));
  return Buffer.concat(parts);
}

/** Text that is not a name (a branch, a message) as UTF-8 decoding gives it: each kept byte as U+FFFD. */
export function lossyText(text: string): string {
  return hasRawBytes(text) ? text.replace(RAW_BYTES_ALL, '\ufffd') : text;
}
const RAW_BYTES_ALL = /[\udc80-\udcff]/gu;

/** Whether a name holds bytes that are not valid UTF-8 (see textFromBytes). */
export function hasRawBytes(text: string): boolean {
  return RAW_BYTE.test(text);
}

/**
 * A path for the file system's calls: the string itself, or, when it holds bytes that are not valid
 * UTF-8, those bytes (Node would write a string's lone surrogates as U+FFFD, a name no file has).
 */
export function fsPath(text: string): string | Buffer {
  return hasRawBytes(text) ? bytesFromText(text) : text;
}

/** The length of the valid UTF-8 character at `at` (its lead byte is 0x80 or over), 0 when there is none. */
function sequenceLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at] as number;
  const follows = (offset: number, low = 0x80, high = 0xbf) => {
    const byte = bytes[at + offset];
    return byte !== undefined && byte >= low && byte <= high;
  };
  if (lead >= 0xc2 && lead <= 0xdf) return follows(1) ? 2 : 0;
  // The second byte's range rules out overlong forms (E0, F0), surrogates (ED) and past U+10FFFF (F4).
  if (lead === 0xe0) return follows(1, 0xa0) && follows(2) ? 3 : 0;
  if (lead === 0xed) return follows(1, 0x80, 0x9f) && follows(2) ? 3 : 0;
  if (lead >= 0xe1 && lead <= 0xef) return follows(1) && follows(2) ? 3 : 0;
  if (lead === 0xf0) return follows(1, 0x90) && follows(2) && follows(3) ? 4 : 0;
  if (lead >= 0xf1 && lead <= 0xf3) return follows(1) && follows(2) && follows(3) ? 4 : 0;
  if (lead === 0xf4) return follows(1, 0x80, 0x8f) && follows(2) && follows(3) ? 4 : 0;
  return 0;
}
