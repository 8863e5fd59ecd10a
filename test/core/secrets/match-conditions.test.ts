import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
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

/** Text of the pieces the gated rules read: elements, their names and values, colons, line breaks, calls. */
const gatedLike = fc
  .array(
    fc.constantFrom(
      '<password>',
      '</password>',
      '<string name="api_key">',
      '</string>',
      '<',
      '/',
      '>',
      'password',
      'token',
      'api_key',
      ':',
      ' ',
      '\n',
      '(',
      ',',
      ')',
      '"',
      "'",
      'xK9mQ2vL8pZ4tR7w',
    ),
    { maxLength: 16 },
  )
  .map((pieces) => pieces.join(''));

describe("the rules' required strings are in every text they match", () => {
  const gated = CONTEXT_RULES.filter((rule) => rule.requires !== undefined);
  it.each(gated.map((rule) => [rule.id, rule] as const))(
    '%s matches no text that lacks one of its required strings',
    (_id, rule) => {
      const holdsAll = (text: string) => (rule.requires ?? []).every((part) => text.includes(part));
      const check = (text: string) => {
        if (!holdsAll(text)) expect(allMatches(rule.pattern, text)).toEqual([]);
      };
      // Each text alone, all of them as one, and each with the required strings taken out.
      for (const text of [...texts, texts.join('\n')]) {
        check(text);
        for (const part of rule.requires ?? []) check(text.replaceAll(part, part.slice(1)));
      }
      fc.assert(fc.property(gatedLike, check), { numRuns: 3000 });
    },
  );
});
