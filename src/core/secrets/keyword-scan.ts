/**
 * Which of a fixed set of words occur in a text, in one pass over it: each position's next three
 * characters pick, from a table, the few words that could start there, and only those are compared. A
 * regex alternation of the rules' 261 keywords tried each of them at every position (an eighth of a
 * checkpoint's redaction); an automaton that steps once a character took 3 ms to build, cold.
 */
export type KeywordScan = (text: string) => number[];

/** Five bits of each of three characters: collisions only cost a comparison. */
const KEY_BITS = 15;
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
  return (text) => {
    const found = new Uint8Array(words.length);
    const ids: number[] = [];
    for (const id of short)
      if (text.includes(words[id] as string)) {
        found[id] = 1;
        ids.push(id);
      }
    if (text.length < 3) return ids;
    let key = keyOf(0, text.charCodeAt(0), text.charCodeAt(1));
    for (let at = 0; at + 2 < text.length; at++) {
      key = ((key << 5) | (text.charCodeAt(at + 2) & 31)) & ((1 << KEY_BITS) - 1);
      const slot = slots[key] as number;
      if (slot === 0) continue;
      for (const id of candidates[slot - 1] as number[])
        if (found[id] === 0 && text.startsWith(words[id] as string, at)) {
          found[id] = 1;
          ids.push(id);
        }
    }
    return ids;
  };
}
