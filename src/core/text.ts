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
