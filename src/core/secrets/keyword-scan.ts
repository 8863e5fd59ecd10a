/**
 * Which of a fixed set of words occur in a text, in one pass over it: each position's next three
 * characters pick, from a table, the few words that could start there, and only those are compared. A
 * regex alternation of the rules' 261 keywords tried each of them at every position (an eighth of a
 * checkpoint's redaction); an automaton that steps once a character took 3 ms to build, cold.
 */
export type KeywordScan = (text: string) => number[];

/** Five bits of each of three characters: collisions only cost a comparison. */
const KEY_BITS = 15;
const KEY_MASK = (1 << KEY_BITS) - 1;
const keyOf = (first: number, second: number, third: number) =>
  ((first & 31) << 10) | ((second & 31) << 5) | (third & 31);

/** A scan for `words` (case-sensitive): it returns the places (in `words`) of those that occur. */
export function createKeywordScan(words: readonly string[]): KeywordScan {
  // For each key, 1 + the place in `candidates` of the words that start with such three characters.
  const slots = new Uint16Array(1 << KEY_BITS);
  const candidates: number[][] = [];
  const short: number[] = [];
  words.forEach((word, id) => {
    if (word.length < 3) {
      short.push(id);
      return;
    }
    const key = keyOf(word.charCodeAt(0), word.charCodeAt(1), word.charCodeAt(2));
    if (slots[key] === 0) slots[key] = candidates.push([]);
    candidates[(slots[key] as number) - 1]?.push(id);
  });
  // Which words the text being read holds: cleared before the scan returns (one array, not one a text).
  const found = new Uint8Array(words.length);
  return (text) => {
    const ids: number[] = [];
    for (const id of short)
      if (text.includes(words[id] as string)) {
        found[id] = 1;
        ids.push(id);
      }
    // Indexed loops over a bound computed once: with `for…of` and the length read at each character, the
    // scan took a ninth of a checkpoint's redaction (a fifth more instructions than this).
    const end = text.length - 2;
    let key = end > 0 ? keyOf(0, text.charCodeAt(0), text.charCodeAt(1)) : 0;
    for (let at = 0; at < end; at++) {
      key = ((key << 5) | (text.charCodeAt(at + 2) & 31)) & KEY_MASK;
      const slot = slots[key] as number;
      if (slot === 0) continue;
      const list = candidates[slot - 1] as number[];
      for (let next = 0; next < list.length; next++) {
        const id = list[next] as number;
        if (found[id] === 0 && text.startsWith(words[id] as string, at)) {
          found[id] = 1;
          ids.push(id);
        }
      }
    }
    return cleared(found, ids);
  };
}

/** `ids`, with their marks in `found` cleared. */
function cleared(found: Uint8Array, ids: number[]): number[] {
  for (const id of ids) found[id] = 0;
  return ids;
}
