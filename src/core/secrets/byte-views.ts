/**
 * The texts to scan in a file's bytes, so that a secret is found whatever the encoding: what a scan of
 * UTF-8 text alone misses (a NUL byte, UTF-16 of either byte order with or without a byte order mark, a
 * single-byte encoding, text inside a binary) is decoded or read byte for byte.
 */

export interface ByteView {
  /** How the bytes were read, named in findings. */
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'bytes' | 'bytes without NULs';
  text: string;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export function byteViews(bytes: Uint8Array): ByteView[] {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return utf8OrBytes(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return utf16(bytes.subarray(2), 'utf-16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return utf16(bytes.subarray(2), 'utf-16be');
  return utf8OrBytes(bytes);
}

/** UTF-8 when it is valid and has no NUL; otherwise every byte as one character, with and without NULs. */
function utf8OrBytes(bytes: Uint8Array): ByteView[] {
  const hasNul = bytes.includes(0);
  if (!hasNul) {
    try {
      return [{ encoding: 'utf-8', text: UTF8.decode(bytes) }];
    } catch {
      // Not UTF-8: a single-byte encoding or binary, read byte for byte below.
    }
  }
  // Latin-1 maps each byte to one character: the ASCII of any ASCII-compatible encoding stays as it is.
  const views: ByteView[] = [{ encoding: 'bytes', text: latin1(bytes) }];
  // UTF-16 and UTF-32 text of ASCII characters, of either byte order and at any offset (inside a binary
  // too), is that ASCII with NULs between: dropping every NUL brings it back.
  if (hasNul)
    views.push({ encoding: 'bytes without NULs', text: latin1(bytes.filter((byte) => byte !== 0)) });
  return views;
}

/** UTF-16 announced by a byte order mark, decoded; the byte views too, in case the mark lies. */
function utf16(bytes: Uint8Array, encoding: 'utf-16le' | 'utf-16be'): ByteView[] {
  const littleEndian = Uint8Array.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  if (encoding === 'utf-16be')
    for (let index = 0; index + 1 < littleEndian.length; index += 2) {
      const first = littleEndian[index] ?? 0;
      littleEndian[index] = littleEndian[index + 1] ?? 0;
      littleEndian[index + 1] = first;
    }
  const text = new TextDecoder('utf-16le').decode(littleEndian);
  return [{ encoding, text }, ...utf8OrBytes(bytes)];
}

function latin1(bytes: Uint8Array): string {
  let text = '';
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let start = 0; start < bytes.length; start += 8192)
    text += String.fromCharCode(...bytes.subarray(start, start + 8192));
  return text;
}
