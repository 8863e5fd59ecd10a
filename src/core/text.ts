/** Shortens text to at most `maxChars` characters, marking the cut with an ellipsis. */
export function clip(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, Math.max(0, maxChars - 1))}…`;
}
