/**
 * Text from a remote or from a file name, made safe to print: control characters are shown the way git
 * shows them (C-style escapes such as `\n`, `\t`, `\033`), so a name with a newline cannot forge a line
 * of a plan and an escape sequence cannot retitle, clear or hide a terminal.
 */

import { bytesFromText, textFromBytes } from './raw-path.js';

const NAMED: Readonly<Record<number, string>> = {
  7: '\\a',
  8: '\\b',
  9: '\\t',
  10: '\\n',
  11: '\\v',
  12: '\\f',
  13: '\\r',
};

/**
 * C0 and DEL, C1, and the invisible characters that reorder or hide text on a terminal (bidi embeddings,
 * overrides and isolates, zero-width characters, line and paragraph separators, the BOM), and a lone
 * surrogate (not a character at all).
 */
function isUnsafe(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x206f) ||
    code === 0xfeff ||
    (code >= 0xd800 && code <= 0xdfff)
  );
}

function hasUnsafe(text: string): boolean {
  for (const char of text) if (isUnsafe(char.codePointAt(0) ?? 0)) return true;
  return false;
}

/** One unsafe character as git writes it: a named escape, else its UTF-8 bytes in octal. */
function escapeChar(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const named = NAMED[code];
  if (named) return named;
  // A byte of a name that is not valid UTF-8 (see raw-path.ts): that byte, as git shows it.
  if (code >= 0xdc80 && code <= 0xdcff) return `\\${(code - 0xdc00).toString(8)}`;
  // Any other lone surrogate (not a character at all) is shown as the replacement character's bytes.
  const bytes = new TextEncoder().encode(code >= 0xd800 && code <= 0xdfff ? '\ufffd' : char);
  return [...bytes].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');
}

/**
 * A path as `git ls-files` prints it: unchanged when it is plain, else in double quotes with `"` and `\`
 * escaped and every control character C-escaped (`"a\nb"`, `"\033]0;x\007"`). Printable non-ASCII
 * stays readable (git with core.quotePath=false), but characters that reorder or hide text are escaped
 * as git's default core.quotePath=true would.
 */
export function quotePath(path: string): string {
  if (!hasUnsafe(path) && !path.includes('"') && !path.includes('\\')) return path;
  let quoted = '';
  for (const char of path) {
    if (char === '"' || char === '\\') quoted += `\\${char}`;
    else quoted += isUnsafe(char.codePointAt(0) ?? 0) ? escapeChar(char) : char;
  }
  return `"${quoted}"`;
}

/**
 * A path as git prints it with its default core.quotePath=true (the headers of `git diff`): unchanged when
 * plain, else in double quotes with every byte over 0x7F and every control character in octal or
 * C-escaped, bytes that are not UTF-8 (see raw-path.ts) too.
 */
export function quotePathFully(path: string): string {
  let quoted = '';
  let needsQuotes = false;
  for (const byte of bytesFromText(path)) {
    if (byte === 0x22 || byte === 0x5c) quoted += `\\${String.fromCharCode(byte)}`;
    else if (byte < 0x20 || byte >= 0x7f) quoted += NAMED[byte] ?? `\\${byte.toString(8).padStart(3, '0')}`;
    else {
      quoted += String.fromCharCode(byte);
      continue;
    }
    needsQuotes = true;
  }
  return needsQuotes ? `"${quoted}"` : path;
}

/**
 * A long name cut in its middle to at most `maxChars` characters (`dddd…dddd/f.txt`), its start and its
 * end kept: a path longer than the system allows can be 4 KB, too long to read in a message.
 */
export function clipMiddle(text: string, maxChars = 160): string {
  const chars = [...text];
  if (chars.length <= maxChars) return text;
  const head = Math.ceil((maxChars - 1) / 2);
  const tail = maxChars - 1 - head;
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - tail).join('')}`;
}

/**
 * Free text (an author, a goal, a branch, a label) with every control character C-escaped and nothing
 * else changed. `multiline` keeps line feeds and tabs, and a carriage return before a line feed, for
 * text whose lines are its own (a diff, a brief).
 */
export function escapeControls(text: string, options: { multiline?: boolean } = {}): string {
  if (!hasUnsafe(text)) return text;
  const chars = [...text];
  let escaped = '';
  for (const [index, char] of chars.entries()) {
    const kept =
      !isUnsafe(char.codePointAt(0) ?? 0) ||
      (options.multiline && (char === '\n' || char === '\t' || (char === '\r' && chars[index + 1] === '\n')));
    escaped += kept ? char : escapeChar(char);
  }
  return escaped;
}

/**
 * One word of a command line a person can paste into a shell: unchanged when plain, else in single
 * quotes, or as bash's `$'…'` with control characters C-escaped (they must never reach the terminal raw).
 */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  if (!hasUnsafe(word)) return `'${word.replaceAll("'", `'\\''`)}'`;
  let quoted = '';
  for (const char of word) {
    if (char === "'" || char === '\\') quoted += `\\${char}`;
    else quoted += isUnsafe(char.codePointAt(0) ?? 0) ? escapeChar(char) : char;
  }
  return `$'${quoted}'`;
}

// Made on first use: a TextDecoder compiles Node's code for it from source (issue 26: `status` never decodes).
let strictUtf8: { decode(bytes: Uint8Array): string } | undefined;

/** Whether these bytes are valid UTF-8 (a file name that is not cannot be a string without loss). */
export function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8 ??= new TextDecoder('utf-8', { fatal: true });
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * A path given as bytes that are not valid UTF-8, as `git status` prints it: in double quotes, each byte
 * that is not part of a valid character in octal (`"caf\351.txt"`), the rest as quotePath shows it.
 */
export function quoteBytesPath(bytes: Uint8Array): string {
  const quoted = quotePath(textFromBytes(bytes));
  return quoted.startsWith('"') ? quoted : `"${quoted}"`;
}

const UNESCAPED: Readonly<Record<string, number>> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  '\\': 92,
};

/**
 * A path in the quoted form git and our outputs print (`"tab\there.txt"`, `"caf\351.txt"`) back as the
 * name it stands for; bytes that are not valid UTF-8 come back as raw-path.ts holds them. `null` when
 * `given` is no such form. A name can also really be written in double quotes: the caller decides which
 * of the two a path names (rewind.ts: the name as written, when it exists).
 */
export function unquotePath(given: string): string | null {
  if (given.length < 2 || !given.startsWith('"') || !given.endsWith('"')) return null;
  const bytes: number[] = [];
  const body = given.slice(1, -1);
  for (let at = 0; at < body.length; at++) {
    // By code point: a character outside the BMP is two code units, and one character.
    const char = String.fromCodePoint(body.codePointAt(at) ?? 0);
    if (char === '"') return null;
    if (char !== '\\') {
      bytes.push(...bytesFromText(char));
      at += char.length - 1;
      continue;
    }
    const next = body[at + 1] ?? '';
    const octal = /^[0-3][0-7]{2}/.exec(body.slice(at + 1, at + 4))?.[0];
    if (octal) {
      bytes.push(Number.parseInt(octal, 8));
      at += 3;
    } else if (next in UNESCAPED) {
      bytes.push(UNESCAPED[next] as number);
      at += 1;
    } else return null;
  }
  return textFromBytes(Uint8Array.from(bytes));
}
