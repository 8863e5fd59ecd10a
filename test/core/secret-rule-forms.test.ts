import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTEXT_RULES } from '../../src/core/secrets/context-rules.js';
import { ruleMatches, secretStart } from '../../src/core/secrets/detect.js';
import { cueStart } from '../../src/core/secrets/near-cues.js';
import { allMatches } from '../../src/core/text.js';

// Context rules written for speed rather than in their plain form (no `d` flag, a literal first). These tests hold each to
// its plain form on the redaction corpus (texts written before the rules) and on generated text.

const corpus = JSON.parse(
  readFileSync(new URL('../fixtures/redaction-corpus.json', import.meta.url), 'utf8'),
) as { positives: Array<{ text: string }>; benign: Array<{ text: string }> };
const corpusTexts = [...corpus.positives, ...corpus.benign].map((entry) => entry.text);

/** The texts of every redaction corpus. */
const allCorpusTexts = readdirSync(new URL('../fixtures/', import.meta.url))
  .filter((name) => /^redaction-corpus.*\.json$/.test(name))
  .flatMap((name) => {
    const { positives = [], benign = [] } = JSON.parse(
      readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'),
    ) as { positives?: Array<{ text: string }>; benign?: Array<{ text: string }> };
    return [...positives, ...benign].map((entry) => entry.text);
  });

const SECRET_GROUPS = ['secret', 'secret2', 'secret3', 'secret4'];

/** Every match's (non-empty) secret, located as detect.ts does for a pattern without the `d` flag. */
function spansFromEnd(pattern: RegExp, text: string): string[] {
  return [...text.matchAll(pattern)].flatMap((match) => {
    const name = SECRET_GROUPS.find((group) => match.groups?.[group] !== undefined);
    const value = name ? (match.groups?.[name] ?? '') : '';
    if (!name || value === '') return [];
    const start = secretStart(match, name, value);
    return [`${name}@${start}+${value.length}`];
  });
}

/** The same, from the indices the `d` flag gives. */
function spansFromIndices(pattern: RegExp, text: string): string[] {
  const withIndices = new RegExp(pattern.source, `${pattern.flags}d`);
  return [...text.matchAll(withIndices)].flatMap((match) => {
    const indices = (match as RegExpMatchArray & { indices: { groups: Record<string, [number, number]> } })
      .indices.groups;
    const name = SECRET_GROUPS.find((group) => match.groups?.[group] !== undefined);
    if (!name || match.groups?.[name] === '') return [];
    const [start, end] = indices[name] as [number, number];
    return [`${name}@${start}+${end - start}`];
  });
}

/** Text of what the rules without the `d` flag read around a value: quotes, `@`, blanks, cues, verbs. */
const valueLike = fc
  .array(
    fc.constantFrom(
      'password',
      'token',
      'Authorization: Bearer ',
      'https://',
      'u:',
      '@',
      'host.example.com',
      '/',
      '?key=',
      '&',
      ' is ',
      ' was set to ',
      ' ',
      '"',
      "'",
      '\x60',
      '“',
      '”',
      'xK9mQ2vL8pZ4tR7wY1nB3cF6',
      'xK9m',
      '\n',
    ),
    { maxLength: 16 },
  )
  .map((pieces) => pieces.join(''));

/** Text of what a URL's userinfo is made of, schemes of every length and neighbours of a scheme among them. */
const urlLike = fc
  .array(
    fc.constantFrom(
      'https',
      'x_https',
      'git+ssh',
      'x',
      'A',
      '9',
      '+',
      '.',
      '-',
      '_',
      'é',
      'a'.repeat(31),
      '://',
      ':',
      '/',
      '//',
      '@',
      'u',
      'p4ss',
      'host.example.com',
      ':8080',
      ' ',
      '"',
      '\n',
    ),
    { maxLength: 20 },
  )
  .map((pieces) => pieces.join(''));

/** Text made of the pieces these rules care about: names, flags, quotes, operators, spaces and values. */
const assignmentLike = fc
  .array(
    fc.constantFrom(
      'DB_PASSWORD',
      'api_key',
      'token',
      'x.secret',
      '--password',
      '-token',
      '--api-key',
      'name',
      '"',
      "'",
      '=',
      ':',
      ' := ',
      '=>',
      ' ',
      '\t',
      '\n',
      '-',
      ']',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable reference, as commands hold them
      '${VAR}',
      '$(cmd)',
      '<value>',
      's3cr3t',
      'hunter2hunter2',
      'aB3$xY9!',
      '"quoted value"',
      'a"b',
      "it's",
      'é',
      'İ',
    ),
    { maxLength: 24 },
  )
  .map((pieces) => pieces.join(''));

/** Text of cue words glued to each other and to what may stand beside them. */
const cueLike = fc
  .array(
    fc.constantFrom(
      'token',
      'Tokens',
      'TOKEN',
      'secret',
      'password',
      'api key',
      'API_KEY',
      'leaked',
      'rotate',
      'the value',
      '.env',
      '.env.local',
      'x',
      '9',
      '_',
      '.',
      '-',
      ' ',
      '\n',
      '"',
      '(',
      'é',
      '3c0c39d4e5f6a7b8c9d0e1f2',
    ),
    { maxLength: 16 },
  )
  .map((pieces) => pieces.join(''));

describe('context rules written for speed match their plain forms', () => {
  it('secret-assignment (no d flag): the value found from the end of each match is the one its group captured', () => {
    const rule = CONTEXT_RULES.find((candidate) => candidate.id === 'secret-assignment');
    expect(rule?.pattern.flags).not.toContain('d');
    const pattern = rule?.pattern as RegExp;
    for (const text of corpusTexts)
      expect(spansFromEnd(pattern, text)).toEqual(spansFromIndices(pattern, text));
    fc.assert(
      fc.property(assignmentLike, (text) => {
        expect(spansFromEnd(pattern, text)).toEqual(spansFromIndices(pattern, text));
      }),
      { numRuns: 3000 },
    );
  });

  // Every rule without the `d` flag (the indices cost about a microsecond a match), on every corpus's
  // texts, alone and joined, and on generated text of the pieces its values are made of.
  const withoutIndices = CONTEXT_RULES.filter((rule) => !rule.near && !rule.pattern.flags.includes('d'));
  it('the rules without the d flag include those written so for speed', () => {
    expect(withoutIndices.map((rule) => rule.id)).toEqual(
      expect.arrayContaining([
        'secret-assignment',
        'secret-flag',
        'url-credentials',
        'url-query-secret',
        'auth-header',
        'prose-cue',
        'prose-named-value',
        'name-space-value',
        'quoted-random',
      ]),
    );
  });
  it.each(withoutIndices.map((rule) => [rule.id, rule.pattern] as const))(
    '%s (no d flag): the value found from the end of each match is the one its group captured',
    (_id, pattern) => {
      for (const text of [...allCorpusTexts, allCorpusTexts.join('\n')])
        expect(spansFromEnd(pattern, text)).toEqual(spansFromIndices(pattern, text));
      fc.assert(
        fc.property(valueLike, (text) => {
          expect(spansFromEnd(pattern, text)).toEqual(spansFromIndices(pattern, text));
        }),
        { numRuns: 500 },
      );
    },
  );

  it('url-credentials (`://` first, the scheme read back) matches what the scheme-first form matches', () => {
    const fast = CONTEXT_RULES.find((candidate) => candidate.id === 'url-credentials')?.pattern as RegExp;
    const prefix = ':\\/\\/(?<=\\b[a-z][a-z0-9+.-]{0,31}:\\/\\/)';
    expect(fast.source.startsWith(prefix)).toBe(true);
    const plain = new RegExp(
      `\\b[a-z][a-z0-9+.-]{0,31}:\\/\\/${fast.source.slice(prefix.length)}`,
      fast.flags,
    );
    // The same matches, groups and secrets' places (found from the match's end, as detect.ts does).
    const read = (pattern: RegExp, text: string) =>
      JSON.stringify([
        [...text.matchAll(pattern)].map((match) => [match.index + match[0].length, match.groups]),
        spansFromEnd(pattern, text),
      ]);
    for (const text of [...allCorpusTexts, allCorpusTexts.join('\n')])
      expect(read(fast, text)).toBe(read(plain, text));
    fc.assert(
      fc.property(urlLike, (text) => {
        expect(read(fast, text)).toBe(read(plain, text));
      }),
      { numRuns: 5000 },
    );
  });

  it('secret-flag (literal first, lookbehind after) matches what the lookbehind-first form matches', () => {
    const rule = CONTEXT_RULES.find((candidate) => candidate.id === 'secret-flag');
    const fast = rule?.pattern as RegExp;
    const prefix = '-(?<=(?:\\s|^)-)-?';
    expect(fast.source.startsWith(prefix)).toBe(true);
    const plain = new RegExp(`(?<=\\s|^)--?${fast.source.slice(prefix.length)}`, fast.flags);
    const matches = (pattern: RegExp, text: string) =>
      [...text.matchAll(pattern)].map((match) => `${match.index}:${match[0]}`);
    for (const text of corpusTexts) expect(matches(fast, text)).toEqual(matches(plain, text));
    fc.assert(
      fc.property(assignmentLike, (text) => {
        expect(matches(fast, text)).toEqual(matches(plain, text));
      }),
      { numRuns: 3000 },
    );
  });

  // The character before a find matched rather than looked behind for (ContextRule.matchesCharBefore),
  // the search going on from each match's last character: the same finds as the lookbehind form.
  const charBefore = CONTEXT_RULES.filter((rule) => rule.matchesCharBefore);
  it('the rules that match the character before their find include secret-assignment and the cue words', () => {
    expect(charBefore.map((rule) => rule.id)).toEqual(['secret-assignment', 'prose-cued-value']);
  });
  it.each(charBefore.map((rule) => [rule.id, rule] as const))(
    '%s (the character before matched) finds what its lookbehind form finds',
    (_id, rule) => {
      const prefix = '(?:^|[^\\w.-])';
      expect(rule.pattern.source.startsWith(prefix)).toBe(true);
      const plain = new RegExp(`(?<![\\w.-])${rule.pattern.source.slice(prefix.length)}`, rule.pattern.flags);
      // Where each find starts (a cue's start, as collectNear reads it) and ends, its groups, its secret.
      const finds = (matches: RegExpExecArray[], start: (match: RegExpExecArray) => number) =>
        JSON.stringify(
          matches.map((match) => {
            const name = SECRET_GROUPS.find((group) => match.groups?.[group] !== undefined);
            const value = name ? (match.groups?.[name] ?? '') : '';
            return [
              rule.near ? start(match) : null,
              match.index + match[0].length,
              match.groups,
              name && value !== '' ? secretStart(match, name, value) : null,
            ];
          }),
        );
      const read = (text: string) => {
        const fast = finds(ruleMatches(rule, text), (match) => cueStart(rule, match));
        expect(fast).toBe(finds(allMatches(plain, text), (match) => match.index));
      };
      for (const text of [...allCorpusTexts, allCorpusTexts.join('\n'), allCorpusTexts.join(' ')]) read(text);
      fc.assert(fc.property(rule.near ? cueLike : assignmentLike, read), { numRuns: 3000 });
    },
  );
});
