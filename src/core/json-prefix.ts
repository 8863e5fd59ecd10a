/**
 * The first bytes of a JSON object cut at a size limit, made whole again: every member that was cut is
 * dropped, never kept in part (a command cut short must not pass for the command), and the open objects
 * and arrays are closed. `null` when the prefix is no object's start or does not parse even so.
 */
export function closeJsonPrefix(prefix: string): Record<string, unknown> | null {
  // Each open container, and where its last whole member ends (at a comma, or just inside its bracket).
  const open: { close: '}' | ']'; wholeUntil: number }[] = [];
  let inString = false;
  for (let at = 0; at < prefix.length; at++) {
    const char = prefix[at];
    if (inString) {
      if (char === '\\') at++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{' || char === '[') open.push({ close: char === '{' ? '}' : ']', wholeUntil: at + 1 });
    else if (char === '}' || char === ']') {
      open.pop();
      if (open.length === 0) break; // whole after all
    } else if (char === ',') {
      const innermost = open[open.length - 1];
      if (innermost) innermost.wholeUntil = at;
    }
  }
  // A list cut short is another list (`["bash","-lc","rm -rf …` is not `["bash","-lc"]`): the member that
  // holds the outermost open array goes whole, at its object's last whole member (a review).
  const firstArray = open.findIndex((container) => container.close === ']');
  if (firstArray === 0) return null;
  const kept = firstArray === -1 ? open : open.slice(0, firstArray);
  const innermost = kept[kept.length - 1];
  const text = innermost
    ? prefix.slice(0, innermost.wholeUntil) +
      kept
        .map((container) => container.close)
        .reverse()
        .join('')
    : prefix;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
