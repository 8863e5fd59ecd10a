/** Shortens text to at most `maxChars` characters, marking the cut with an ellipsis. */
export function clip(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, Math.max(0, maxChars - 1))}…`;
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
  if (!unicode || index + 1 >= text.length) return index + 1;
  const first = text.charCodeAt(index);
  const second = text.charCodeAt(index + 1);
  return first >= 0xd800 && first <= 0xdbff && second >= 0xdc00 && second <= 0xdfff ? index + 2 : index + 1;
}
