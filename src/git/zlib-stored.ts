// zlib data whose deflate blocks are all "stored" (RFC 1950 and RFC 1951, block type 00): the bytes as
// they are, in blocks of up to 65,535, with zlib's header and Adler-32 trailer. The store writes its
// snapshots' commits this way, and `list` reads them back without node:zlib, which loads Node's whole
// stream stack with it, a tenth of the command's start-up (issue 26). A commit is a few hundred bytes, and
// gc packs it anyway; git reads any valid zlib data.

const MAX_STORED_BLOCK = 0xffff;
/** CMF: deflate, 32 KB window. FLG: no preset dictionary, "fastest" level, check bits so that
 * (CMF * 256 + FLG) is a multiple of 31. */
const HEADER = [0x78, 0x01] as const;

/** Adler-32 of `bytes` (RFC 1950, section 9). */
export function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  // 5,552 bytes is the most that can be summed before b overflows 2^32 (zlib's NMAX).
  for (let start = 0; start < bytes.length; start += 5552) {
    const end = Math.min(start + 5552, bytes.length);
    for (let i = start; i < end; i++) {
      a += bytes[i] as number;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** `bytes` as zlib data made of stored blocks only. */
export function storedZlib(bytes: Uint8Array): Buffer {
  const blocks = Math.max(1, Math.ceil(bytes.length / MAX_STORED_BLOCK));
  const out = Buffer.alloc(HEADER.length + blocks * 5 + bytes.length + 4);
  out.set(HEADER, 0);
  let at = HEADER.length;
  for (let block = 0; block < blocks; block++) {
    const start = block * MAX_STORED_BLOCK;
    const length = Math.min(MAX_STORED_BLOCK, bytes.length - start);
    out[at] = block === blocks - 1 ? 1 : 0; // BFINAL, and BTYPE 00
    out.writeUInt16LE(length, at + 1);
    out.writeUInt16LE(~length & 0xffff, at + 3);
    out.set(bytes.subarray(start, start + length), at + 5);
    at += 5 + length;
  }
  out.writeUInt32BE(adler32(bytes), at);
  return out;
}

/**
 * The bytes of zlib data made of stored blocks only; `undefined` for anything else (compressed blocks, a
 * preset dictionary, a wrong length or checksum, trailing bytes): inflate those with node:zlib.
 */
export function readStoredZlib(data: Uint8Array): Buffer | undefined {
  const cmf = data[0];
  const flg = data[1];
  if (cmf === undefined || flg === undefined) return undefined;
  if ((cmf & 0x0f) !== 8 || (cmf * 256 + flg) % 31 !== 0 || (flg & 0x20) !== 0) return undefined;
  const parts: Uint8Array[] = [];
  let at = 2;
  let final = false;
  while (!final) {
    if (at + 5 > data.length) return undefined;
    const head = data[at] as number;
    // A stored block's 3 header bits start a byte here (every earlier block was stored, so ended on a
    // byte's boundary); the other 5 bits of that byte are padding.
    if ((head & 0b110) !== 0) return undefined;
    final = (head & 1) === 1;
    const length = (data[at + 1] as number) | ((data[at + 2] as number) << 8);
    const check = (data[at + 3] as number) | ((data[at + 4] as number) << 8);
    if ((length ^ 0xffff) !== check || at + 5 + length > data.length) return undefined;
    parts.push(data.subarray(at + 5, at + 5 + length));
    at += 5 + length;
  }
  if (at + 4 !== data.length) return undefined;
  const bytes = Buffer.concat(parts);
  const expected =
    (((data[at] as number) << 24) |
      ((data[at + 1] as number) << 16) |
      ((data[at + 2] as number) << 8) |
      (data[at + 3] as number)) >>>
    0;
  return adler32(bytes) === expected ? bytes : undefined;
}
