// A limit of N characters counts code points, as the tools' JSON Schema (`maxLength`) and zod count them: an
// emoji is one character, not two UTF-16 units. A cut never falls inside a surrogate pair (issue 26: a label
// cut there kept a lone \ud83d, printed as U+FFFD).

/** How many characters (code points) `text` holds; a lone surrogate counts as one. */
export function charLength(text: string): number {
  let length = text.length;
  for (let at = 0; at < text.length - 1; at++)
    if (isPairAt(text, at)) {
      length--;
      at++;
    }
  return length;
}

/** The first `maxChars` characters (code points) of `text`: never half of a surrogate pair. */
export function cutChars(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let at = 0;
  for (let count = 0; count < maxChars && at < text.length; count++) at += isPairAt(text, at) ? 2 : 1;
  return text.slice(0, at);
}

/**
 * The first `maxUnits` UTF-16 units of `text`, one fewer when the last would be half of a pair: for a
 * host's cap that counts as JavaScript does (Claude Code's 10,000 characters of hook output).
 */
export function cutUnits(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  const end = Math.max(0, maxUnits);
  return end > 0 && isPairAt(text, end - 1) ? text.slice(0, end - 1) : text.slice(0, end);
}

function isPairAt(text: string, at: number): boolean {
  const first = text.charCodeAt(at);
  const second = text.charCodeAt(at + 1);
  return first >= 0xd800 && first <= 0xdbff && second >= 0xdc00 && second <= 0xdfff;
}

/** Shortens text to at most `maxChars` characters (code points), marking the cut with an ellipsis. */
export function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars || charLength(text) <= maxChars) return text;
  return `${cutChars(text, Math.max(0, maxChars - 1))}…`;
}

/**
 * Orders plain ASCII keys (ISO times, snapshot ids) by code unit. `localeCompare` gives the same order
 * for them, but its first call loads ICU's collator, which costs a hook more than its sorting.
 */
export function compareAscii(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Every match of a global pattern, as `matchAll` finds them, without the copy of the pattern that
 * `matchAll` makes on each call (a redaction runs each rule on each of a checkpoint's fields).
 */
export function allMatches(pattern: RegExp, text: string): RegExpExecArray[] {
  const matches: RegExpExecArray[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    matches.push(match);
    if (match[0].length === 0)
      pattern.lastIndex = advance(text, pattern.lastIndex, /[uv]/.test(pattern.flags));
  }
  pattern.lastIndex = 0;
  return matches;
}

/**
 * Calls `visit` with every match of a global pattern, in order, as allMatches finds them, without
 * collecting them first. `visit` must not run the pattern itself.
 */
export function forEachMatch(pattern: RegExp, text: string, visit: (match: RegExpExecArray) => void): void {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    visit(match);
    if (match[0].length === 0)
      pattern.lastIndex = advance(text, pattern.lastIndex, /[uv]/.test(pattern.flags));
  }
  pattern.lastIndex = 0;
}

/**
 * The next match of a global pattern from its `lastIndex`, stepping past an empty one as forEachMatch
 * does: for a loop that calls no function per match (set `lastIndex` to 0 before and after).
 */
export function nextMatch(pattern: RegExp, text: string): RegExpExecArray | null {
  const match = pattern.exec(text);
  if (match !== null && match[0].length === 0)
    pattern.lastIndex = advance(text, pattern.lastIndex, /[uv]/.test(pattern.flags));
  return match;
}

/** Past an empty match, as matchAll does: one code point in unicode mode, else one code unit. */
function advance(text: string, index: number, unicode: boolean): number {
  return unicode && isPairAt(text, index) ? index + 2 : index + 1;
}

/**
 * JSON text as a file holds it, parsed: a leading byte order mark (U+FEFF, which Windows editors write) is
 * not part of the JSON, and JSON.parse refuses it ("Unexpected token"), which made a hand-edited checkpoint
 * or settings file unusable. Throws JSON.parse's SyntaxError otherwise.
 */
export function parseJsonFile(text: string): unknown {
  return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}

/**
 * `value` as JSON, at most `maxChars` characters (code points), for a message that shows what was given:
 * arrays and objects below `maxDepth` levels are shown as `[…]` and `{…}`. JSON.stringify alone recurses
 * through the whole value: a settings value nested 30,000 levels deep overflowed the stack (input audit).
 */
export function previewJson(value: unknown, maxChars: number, maxDepth = 4): string {
  const show = (item: unknown, depth: number): string => {
    if (typeof item !== 'object' || item === null) return JSON.stringify(item) ?? String(item);
    if (Array.isArray(item))
      return depth >= maxDepth ? '[…]' : `[${item.map((inner) => show(inner, depth + 1)).join(',')}]`;
    if (depth >= maxDepth) return '{…}';
    const fields = Object.entries(item).map(
      ([key, inner]) => `${JSON.stringify(key)}:${show(inner, depth + 1)}`,
    );
    return `{${fields.join(',')}}`;
  };
  return cutChars(show(value, 0), maxChars);
}
