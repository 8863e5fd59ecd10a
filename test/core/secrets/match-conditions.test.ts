import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTEXT_RULES } from '../../../src/core/secrets/context-rules.js';
import { allMatches } from '../../../src/core/text.js';

const fixtures = path.join(import.meta.dirname, '../../fixtures');
const texts = readdirSync(fixtures)
  .filter((name) => /^redaction-corpus.*\.json$/.test(name))
  .flatMap((name) => {
    const corpus = JSON.parse(readFileSync(path.join(fixtures, name), 'utf8')) as {
      benign?: Array<{ text: string }>;
      positives?: Array<{ text: string }>;
    };
    return [...(corpus.benign ?? []), ...(corpus.positives ?? [])].map((item) => item.text);
  });

/**
 * The lookaheads that let a rule's pattern give up early: each states only what the rest of the
 * pattern requires at that place, so without it the pattern matches the same (same places, same groups).
 */
const CONDITIONS: Array<[string, string]> = [
  ['secret-assignment', String.raw`(?=["']?[A-Za-z_][\w.-]*["']?\]?[ \t]*[:=+])`],
  ['prose-named-value', String.raw`(?=[\w.-]{0,63}\x60?\s+[(iwasrct])`],
  ['name-space-value', String.raw`(?=(?:[ \t]+(?:key|token|secret))?(?:[ \t]+-)?[ \t]+["']?[^\s"']{16})`],
  ['prose-cue', String.raw`(?=\s+[(iwasrctfo])`],
];

describe("the rules' early conditions change no match", () => {
  it.each(CONDITIONS)('%s matches every corpus text as it does without its condition', (id, condition) => {
    const pattern = CONTEXT_RULES.find((rule) => rule.id === id)?.pattern;
    expect(pattern?.source).toContain(condition);
    if (!pattern) return;
    const without = new RegExp(pattern.source.replace(condition, ''), pattern.flags);
    const read = (regex: RegExp, text: string) =>
      JSON.stringify(allMatches(regex, text).map((match) => [match.index, [...match], match.groups]));
    // Each text alone, and all of them as one (rules then meet each other's matches).
    for (const text of [...texts, texts.join('\n')]) expect(read(pattern, text)).toBe(read(without, text));
  });
});
