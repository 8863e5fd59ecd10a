// Where a hook's input, one JSON object, ends, told from its bytes as they arrive: an agent may leave the
// pipe open after the object (hooks/hook-io.ts), so the scan keeps its place between chunks. Braces and
// brackets are counted outside strings, byte by byte (no multi-byte UTF-8 sequence holds an ASCII byte).
// A string, where most of an input is (a tool's output), is skipped to its closing quote with indexOf:
// a byte at a time there cost a Bash hook with 30 KB of output some 30M instructions.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** How far the scan is: not begun, inside the object, past its end, or before something not an object. */
export type JsonObjectPhase = 'before' | 'open' | 'whole' | 'other';

export interface JsonObjectEnd {
  /** Scans the next chunk of the input (nothing once the object is whole, or not an object). */
  add(bytes: Uint8Array): void;
  phase(): JsonObjectPhase;
}

export function createJsonObjectEnd(): JsonObjectEnd {
  let depth = 0;
  let state: 'before' | 'inside' | 'string' | 'escape' | 'whole' | 'other' = 'before';
  return {
    add(bytes) {
      for (let i = 0; i < bytes.length; i++) {
        if (state === 'whole' || state === 'other') return;
        if (state === 'string') {
          const end = closingQuote(bytes, i);
          if (end === -1) {
            // The chunk ends in the string, maybe in the middle of an escape.
            if (isOddBackslashRunBefore(bytes, bytes.length, i)) state = 'escape';
            return;
          }
          state = 'inside';
          i = end;
          continue;
        }
        const byte = bytes[i];
        if (state === 'before') {
          if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
          // Not an object: only the end of the input (or the wait) ends it.
          state = byte === 0x7b ? 'inside' : 'other';
          depth = 1;
        } else if (state === 'escape') state = 'string';
        else if (byte === QUOTE) state = 'string';
        else if (byte === 0x7b || byte === 0x5b) depth++;
        else if ((byte === 0x7d || byte === 0x5d) && --depth === 0) state = 'whole';
      }
    },
    phase: () => (state === 'before' || state === 'whole' || state === 'other' ? state : 'open'),
  };
}

/** The first quote at or after `from` that no backslash escapes (`from` is in a string, past any escape), or -1. */
function closingQuote(bytes: Uint8Array, from: number): number {
  for (let quote = bytes.indexOf(QUOTE, from); quote !== -1; quote = bytes.indexOf(QUOTE, quote + 1))
    if (!isOddBackslashRunBefore(bytes, quote, from)) return quote;
  return -1;
}

/** Whether an odd run of backslashes ends right before `at`, counting back no further than `from`. */
function isOddBackslashRunBefore(bytes: Uint8Array, at: number, from: number): boolean {
  let start = at;
  while (start > from && bytes[start - 1] === BACKSLASH) start--;
  return (at - start) % 2 === 1;
}
