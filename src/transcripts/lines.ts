import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** How much of a transcript is read at a time: small enough to keep memory flat on a gigabyte file. */
export const CHUNK_BYTES = 1024 * 1024;
/** Longer lines (a huge file in a tool result) are skipped: nothing a record needs is only in them. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;

/**
 * A JSON line as the readers' byte tests expect it: compact, as JSON.stringify writes it (`"type":"user"`).
 * Every agent writes its lines so, but a line written with spaces (`{"type": "user", ...}`, as Python's
 * json.dumps writes by default) is valid JSON Lines too: it is given with the whitespace outside its
 * strings removed, byte by byte, in one pass (never parsed: a line of megabytes costs no more than its
 * read, and keys' order and escapes stay as written). A compact line is given as it is, after a look at
 * its first key (a writer spaces every separator of a line, or none). A line that is not JSON (not an
 * object or array, a string left open) is given as it is.
 */
export function compactJsonLine(line: Buffer): Buffer {
  if (isCompactStart(line)) return line;
  let start = 0;
  while (start < line.length && isJsonSpace(line[start] as number)) start++;
  if (line[start] !== OPEN_BRACE && line[start] !== OPEN_BRACKET) return line;
  const out = Buffer.allocUnsafe(line.length);
  let length = 0;
  for (let index = start; index < line.length; index++) {
    const byte = line[index] as number;
    if (isJsonSpace(byte)) continue;
    if (byte !== QUOTE) {
      out[length++] = byte;
      continue;
    }
    // A string is copied whole: its closing quote found natively, past escaped ones (an odd run of
    // backslashes before it), so a string of megabytes costs one copy.
    const end = closingQuote(line, index + 1);
    if (end === -1) return line;
    length += line.copy(out, length, index, end + 1);
    index = end;
  }
  return out.subarray(0, length);
}

/** The index of the quote that closes a string whose content starts at `from`, or -1: it is left open. */
function closingQuote(line: Buffer, from: number): number {
  for (let quote = line.indexOf(QUOTE, from); quote !== -1; quote = line.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && line[quote - backslashes - 1] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

/** The same for a line held as text (see compactJsonLine). */
export function compactJsonText(line: string): string {
  if (isCompactStart(Buffer.from(line.slice(0, 200)))) return line;
  const bytes = Buffer.from(line);
  const compact = compactJsonLine(bytes);
  return compact === bytes ? line : compact.toString('utf8');
}

/** JSON's whitespace: space, tab, line feed, carriage return. */
function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === NEWLINE || byte === 0x0d;
}

/** Whether a line starts as JSON.stringify writes an object: `{}`, or `{"key":` and no space after it. */
function isCompactStart(line: Buffer): boolean {
  if (line[0] !== OPEN_BRACE) return false;
  if (line[1] === 0x7d) return true;
  if (line[1] !== QUOTE) return false;
  const end = line.indexOf(QUOTE, 2);
  if (end === -1 || line[end + 1] !== COLON) return false;
  const after = line[end + 2];
  return after !== undefined && after !== 0x20 && after !== 0x09 && after !== 0x0d && after !== NEWLINE;
}

/**
 * readLinesBackward of a JSON Lines file, each line compact (see compactJsonLine): what every transcript
 * reader tests its bytes on. `bytes` is the line's length in the file (a compacted line is shorter).
 */
export function readJsonLinesBackward(
  fd: number,
  from: number,
  to: number,
  visit: (line: Buffer, start: number, bytes: number) => boolean,
  chunkBytes = CHUNK_BYTES,
): number {
  return readLinesBackward(
    fd,
    from,
    to,
    (line, start) => visit(compactJsonLine(line), start, line.length),
    chunkBytes,
  );
}

/** readLinesForward of a JSON Lines file, each line compact (see compactJsonLine). */
export function readJsonLinesForward(
  fd: number,
  from: number,
  to: number,
  maxBytes: number,
  visit: (line: Buffer) => boolean,
  chunkBytes = CHUNK_BYTES,
): number {
  return readLinesForward(fd, from, to, maxBytes, (line) => visit(compactJsonLine(line)), chunkBytes);
}

/**
 * The complete lines of `fd` between `from` and `to`, newest first, each as a view of the bytes (no
 * copy, no decoding: the caller decides from the bytes whether a line is worth parsing; the view is
 * reused once `visit` returns). Bytes after the
 * last newline before `to` are a line still being written and are left out. `visit` returns true to stop.
 * Returns the end of the last complete line: where the next read starts.
 */
export function readLinesBackward(
  fd: number,
  from: number,
  to: number,
  visit: (line: Buffer, start: number) => boolean,
  chunkBytes = CHUNK_BYTES,
): number {
  let end = -1; // end of the last complete line, once found
  let carry: Buffer[] = []; // the start of the line that continues into the chunk read before
  let carryBytes = 0;
  let position = to;
  // One buffer for every chunk: a line given to `visit` is valid only during the call (what outlives it,
  // the start of a line continued in the next chunk, is copied).
  const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, Math.max(to - from, 1)));
  while (position > from) {
    const length = Math.min(chunkBytes, position - from);
    position -= length;
    const chunk = buffer.subarray(0, length);
    readFully(fd, chunk, position);
    let lineEnd = length; // the tail of this chunk belongs to the carried line
    for (let index = chunk.lastIndexOf(NEWLINE, length - 1); index !== -1; ) {
      const tail = chunk.subarray(index + 1, lineEnd);
      if (end === -1) {
        end = position + index + 1; // what follows the last newline is still being written
      } else if (carryBytes + tail.length <= MAX_LINE_BYTES) {
        const line = carry.length === 0 ? tail : Buffer.concat([tail, ...carry]);
        if (line.length > 0 && visit(line, position + index + 1)) return end;
      }
      carry = [];
      carryBytes = 0;
      lineEnd = index;
      index = index === 0 ? -1 : chunk.lastIndexOf(NEWLINE, index - 1);
    }
    // A line that starts in an earlier chunk: keep its end, unless it is past any use.
    if (end === -1) {
      carry = [];
    } else if (lineEnd > 0) {
      if (carryBytes + lineEnd <= MAX_LINE_BYTES) {
        carry.unshift(Buffer.from(chunk.subarray(0, lineEnd)));
        carryBytes += lineEnd;
      } else {
        carry = [];
        carryBytes = Number.POSITIVE_INFINITY;
      }
    }
  }
  // The first line of the range (the range starts at a line boundary).
  if (end !== -1 && carry.length > 0 && carryBytes <= MAX_LINE_BYTES) visit(Buffer.concat(carry), from);
  return end === -1 ? from : end;
}

/**
 * The complete lines of `fd` from `from` on, oldest first, until `visit` returns true or `maxBytes` have
 * been read. Returns where it stopped.
 */
export function readLinesForward(
  fd: number,
  from: number,
  to: number,
  maxBytes: number,
  visit: (line: Buffer) => boolean,
  chunkBytes = CHUNK_BYTES,
): number {
  let position = from;
  let pending: Buffer = Buffer.alloc(0);
  const limit = Math.min(to, from + maxBytes);
  while (position < limit) {
    const chunk = Buffer.allocUnsafe(Math.min(chunkBytes, limit - position));
    readFully(fd, chunk, position);
    const text = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    const base = position - pending.length;
    position += chunk.length;
    let start = 0;
    for (let index = text.indexOf(NEWLINE); index !== -1; index = text.indexOf(NEWLINE, start)) {
      if (visit(text.subarray(start, index))) return base + index + 1;
      start = index + 1;
    }
    pending = Buffer.from(text.subarray(start));
    if (pending.length > MAX_LINE_BYTES) return position; // a line past any use: stop here
  }
  return position - pending.length;
}

function readFully(fd: number, buffer: Buffer, position: number): void {
  let done = 0;
  while (done < buffer.length) {
    const read = readSync(fd, buffer, done, buffer.length - done, position + done);
    if (read === 0) throw new Error('the transcript got shorter while it was read');
    done += read;
  }
}

/** The last `maxBytes` of a file as text (a first line may be cut), or `null` when it cannot be read. */
export function readFileTail(file: string, maxBytes: number): string | null {
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const length = Math.min(size, maxBytes);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      return buffer.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}
