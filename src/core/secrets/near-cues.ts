import { allMatches } from '../text.js';
import type { ContextRule } from './context-rules.js';

/** A finding (detect.ts's Finding, which imports this module). */
interface Finding {
  start: number;
  end: number;
  rule: string;
}

/**
 * The candidates within `chars` of a cue on its line (ContextRule.near), each judged. Each line with a
 * cue is read for candidates once, however many cues it holds; a candidate inside a value found already
 * is not judged again (the judge reads the allowlist: most of the cost).
 *
 * Written with loops over typed arrays and numbers: with `map`, `sort` and `some` over arrays whose
 * element kinds differ from text to text (an empty `found`, a full one), V8 threw its optimised code
 * away three times in a process's first 20 redactions, and compiled it again each time (19 ms each).
 */
export function collectNear(
  text: string,
  rule: ContextRule,
  near: { chars: number; value: RegExp },
  cues: readonly RegExpMatchArray[],
  found: Finding[],
  allowed: (value: string) => boolean,
): void {
  if (cues.length === 0) return;
  const known = knownSpans(found);
  // Each line's cues, as start and end, one after the other.
  const bounds: number[] = [];
  for (let at = 0; at < cues.length; ) {
    const first = cueStart(rule, cues[at] as RegExpMatchArray);
    const lineStart = text.lastIndexOf('\n', first - 1) + 1;
    const newline = text.indexOf('\n', first);
    const lineEnd = newline === -1 ? text.length : newline;
    bounds.length = 0;
    for (; at < cues.length; at++) {
      const cue = cues[at] as RegExpMatchArray;
      const start = cueStart(rule, cue);
      if (start >= lineEnd) break;
      bounds.push(start, (cue.index ?? 0) + cue[0].length);
    }
    for (const candidate of allMatches(near.value, text.slice(lineStart, lineEnd))) {
      const value = candidate.groups?.value ?? '';
      const start = lineStart + (candidate.index ?? 0) + candidate[0].length - value.length;
      const end = start + value.length;
      if (!isNearACue(bounds, start, end, near.chars) || isKnown(known, start, end)) continue;
      if (!rule.judge(value, { before: text.slice(Math.max(0, start - 24), start) }) || allowed(value))
        continue;
      found.push({ start, end, rule: rule.id });
    }
  }
}

/** Where a cue starts in its match (see ContextRule.near). */
export function cueStart(rule: ContextRule, cue: RegExpMatchArray): number {
  const index = cue.index ?? 0;
  return rule.matchesCharBefore === true && !isCueChar(cue[0].charCodeAt(0)) ? index + 1 : index;
}

/** A letter, a digit, `_`, `.` or `-`. */
function isCueChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 46 ||
    code === 45
  );
}

/** Whether a span starts within `chars` after, or ends within `chars` before, one of the cues. */
function isNearACue(bounds: readonly number[], start: number, end: number, chars: number): boolean {
  for (let at = 0; at + 1 < bounds.length; at += 2) {
    const cueStart = bounds[at] as number;
    const cueEnd = bounds[at + 1] as number;
    if (start >= cueEnd ? start - cueEnd <= chars : end <= cueStart && cueStart - end <= chars) return true;
  }
  return false;
}

/** The spans found before: their starts in order, and for each the furthest end of it and those before. */
interface KnownSpans {
  starts: Int32Array;
  reach: Int32Array;
}

function knownSpans(found: readonly Finding[]): KnownSpans {
  const count = found.length;
  const order = new Int32Array(count);
  const unsorted = new Int32Array(count);
  for (let at = 0; at < count; at++) {
    order[at] = at;
    unsorted[at] = (found[at] as Finding).start;
  }
  // (Ties in any order: the search below takes all the spans of one start, or none.)
  order.sort((a, b) => (unsorted[a] as number) - (unsorted[b] as number));
  const starts = new Int32Array(count);
  const reach = new Int32Array(count);
  let furthest = -1;
  for (let at = 0; at < count; at++) {
    const finding = found[order[at] as number] as Finding;
    starts[at] = finding.start;
    furthest = Math.max(furthest, finding.end);
    reach[at] = furthest;
  }
  return { starts, reach };
}

/** Whether a span found before covers `start` to `end`. */
function isKnown({ starts, reach }: KnownSpans, start: number, end: number): boolean {
  let low = 0;
  let high = starts.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((starts[middle] as number) <= start) low = middle + 1;
    else high = middle;
  }
  return low > 0 && (reach[low - 1] as number) >= end;
}
