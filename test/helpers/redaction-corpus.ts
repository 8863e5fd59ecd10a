import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { redactText } from '../../src/core/redact.js';

// What the redaction corpus tests (test/core/redact-*.test.ts) share: the corpora's items, the split
// every corpus was made with, running a part through the detector, how a leak is told, and how figures
// are printed. Each test keeps its own corpus, families, bounds and the figures they were measured at.

export type Part = 'tuning' | 'held-out';

/** A benign text of a corpus: the detector must leave it unchanged. */
export interface BenignText<Kind extends string = 'command' | 'prose' | 'config' | 'code'> {
  text: string;
  source: string;
  kind: Kind;
  family: string;
  /** `cue`: the text holds a word or shape detectors react to (pass, token, key, `{{`, a long run…). */
  stratum: 'cue' | 'plain';
}

/** A secret in its text: no piece of it may come out of the detector. */
export interface SecretText {
  text: string;
  secret: string;
  format: string;
  source: string;
}

/** A secret of a corpus of scanners' examples (the fourth to the seventh), graded by strength. */
export interface GradedSecret extends SecretText {
  /** `word`: a plain-word password (`letmein`, `CorrectHorseBatteryStaple`), which the detector keeps on purpose. */
  strength: 'word' | 'generated-or-chosen';
}

/** A graded secret as a scanner wrote it, or written into an everyday shape. */
export interface ScannerSecret extends GradedSecret {
  /** `scanner-example`: as the scanner wrote it; `command`, `prose`: the secret in an everyday shape. */
  kind: 'scanner-example' | 'command' | 'prose';
}

export interface Corpus<B, P> {
  benign: B[];
  positives: P[];
}

/** A corpus's fixture, test/fixtures/`file`. */
export function readCorpus<B, P>(file: string): Corpus<B, P> {
  return JSON.parse(readFileSync(new URL(`../fixtures/${file}`, import.meta.url), 'utf8')) as Corpus<B, P>;
}

const redacted = (text: string) => redactText(text).text;

/** The fixed split of every corpus: the first hex digit of sha256(text), 0-7 tuning, 8-f held out. */
export function isHeldOut(text: string): boolean {
  return createHash('sha256').update(text).digest('hex').charAt(0) >= '8';
}

/**
 * Whether any piece of the secret survived: an 8-character window of it (one without whitespace, quotes
 * or backslashes, which a multi-line or quoted capture holds around the value, and not found in the text
 * apart from the secret: `FakeValu` of an id beside `FakeValues99cl…`), or a shorter secret whole.
 */
export function leaksWindow(output: string, secret: string, text: string): boolean {
  const rest = text.split(secret).join('\n');
  if (secret.length < 8) return output.includes(secret);
  for (let i = 0; i + 8 <= secret.length; i++) {
    const piece = secret.slice(i, i + 8);
    if (!/[\s"'`\\]/.test(piece) && !rest.includes(piece) && output.includes(piece)) return true;
  }
  return false;
}

/** `key bad/all` per value of `key`, sorted: where the failures are, without printing a text. */
export function countsBy<T>(items: readonly T[], key: (item: T) => string, bad: ReadonlySet<T>): string {
  return [...new Set(items.map(key))]
    .sort()
    .map((k) => {
      const all = items.filter((item) => key(item) === k);
      return `${k} ${all.filter((item) => bad.has(item)).length}/${all.length}`;
    })
    .join(', ');
}

/** Whether any 8-character piece of the secret survived: a partial secret is still a leak. */
export function leaksPiece(output: string, secret: string): boolean {
  for (let i = 0; i + 8 <= secret.length; i++) if (output.includes(secret.slice(i, i + 8))) return true;
  return false;
}

/**
 * One part of a corpus run through the detector: its benign texts and secrets, the benign texts it
 * changed (`damaged`) and the secrets that leaked (`missed`, told by `leaks`: leaksWindow unless given).
 */
export function runPart<B extends { text: string }, P extends { text: string; secret: string }>(
  corpus: Corpus<B, P>,
  part: Part,
  leaks: (output: string, item: P) => boolean = (output, item) => leaksWindow(output, item.secret, item.text),
) {
  const inPart = (text: string) => isHeldOut(text) === (part === 'held-out');
  const benign = corpus.benign.filter((item) => inPart(item.text));
  const positives = corpus.positives.filter((item) => inPart(item.text));
  const damaged = new Set(benign.filter((item) => redacted(item.text) !== item.text));
  const missed = new Set(positives.filter((item) => leaks(redacted(item.text), item)));
  return { benign, positives, damaged, missed };
}

/** The share of `items` that is in `bad` (of benign texts: changed; of secrets: missed). */
export const shareOf = <T>(items: readonly T[], bad: ReadonlySet<T>) =>
  items.filter((item) => bad.has(item)).length / items.length;

/**
 * One part of a corpus of graded secrets: the plain-word passwords (`words`) counted apart from the
 * other secrets (`positives`), the share of benign texts changed and the recall of the other secrets.
 */
export function measureGraded<B extends BenignText, P extends GradedSecret>(
  corpus: Corpus<B, P>,
  part: Part,
) {
  const { benign, positives: all, damaged, missed } = runPart(corpus, part);
  const positives = all.filter((item) => item.strength !== 'word');
  return {
    benign,
    positives,
    words: all.filter((item) => item.strength === 'word'),
    damaged,
    missed,
    falseRate: damaged.size / benign.length,
    recall: 1 - shareOf(positives, missed),
  };
}

/**
 * A graded part's figures outside the scanners' own cases (the benign texts `isEveryday` keeps): the
 * share changed, and of its commands and its prose.
 */
function everydayRates<B extends BenignText>(
  m: { benign: readonly B[]; damaged: ReadonlySet<B> },
  isEveryday: (item: B) => boolean,
) {
  const everyday = m.benign.filter(isEveryday);
  return {
    everydayRate: shareOf(everyday, m.damaged),
    commandRate: shareOf(
      everyday.filter((item) => item.kind === 'command'),
      m.damaged,
    ),
    proseRate: shareOf(
      everyday.filter((item) => item.kind === 'prose'),
      m.damaged,
    ),
  };
}

/** `family/stratum bad/all` of a part's benign texts: where the false redactions are. */
export const familyCounts = <B extends BenignText<string>>(m: {
  benign: readonly B[];
  damaged: ReadonlySet<B>;
}) => countsBy(m.benign, (item) => `${item.family}/${item.stratum}`, m.damaged);

/**
 * The line a test of scanners' examples prints for a part: false redactions (outside `outside`, the
 * scanners' own cases, and by family), recall (by each grouping of `recallBy`), plain-word passwords.
 */
function describeGraded<P extends GradedSecret>(
  corpus: string,
  part: string,
  m: ReturnType<typeof measureGraded<BenignText, P>> & ReturnType<typeof everydayRates>,
  outside: string,
  recallBy: Record<string, (item: P) => string>,
): string {
  const by = Object.entries(recallBy)
    .map(([name, key]) => `by ${name}: ${countsBy(m.positives, key, m.missed)}`)
    .join('; ');
  return `redaction ${corpus} (${part}): false redactions ${pct(m.falseRate)} of ${m.benign.length} (outside ${outside} ${pct(m.everydayRate)}: commands ${pct(m.commandRate)}, prose ${pct(m.proseRate)}; by family: ${familyCounts(m)}); recall ${pct(m.recall)} of ${m.positives.length} (${by}); plain-word passwords redacted ${m.words.filter((item) => !m.missed.has(item)).length} of ${m.words.length}`;
}

export interface GradedFamilies {
  /** The benign texts outside the scanners' own cases. */
  isEveryday: (item: BenignText) => boolean;
  /** What the printed line calls the scanners' own cases. */
  outside: string;
  /** The groupings of the secrets missed in the printed line. */
  recallBy: Record<string, (item: ScannerSecret) => string>;
}

/** The sixth and seventh corpora's: the scanners' negative cases and placeholders apart, recall by kind and by scanner. */
export const SCANNERS_OWN_CASES: GradedFamilies = {
  isEveryday: (item) => item.family !== 'scanner-negative' && item.family !== 'scanner-placeholder',
  outside: "the scanners' own cases",
  recallBy: { kind: (item) => item.kind, source: (item) => item.format.split(' ')[0] ?? '' },
};

/**
 * A corpus of scanners' examples and everyday texts (test/fixtures/`file`), its parts measured with the
 * scanners' own cases apart (`families`), and `summary`, the line printed for a part.
 */
export function gradedCorpus(name: string, file: string, families: GradedFamilies) {
  const corpus = readCorpus<BenignText, ScannerSecret>(file);
  const measure = (part: Part) => {
    const m = measureGraded(corpus, part);
    return { ...m, ...everydayRates(m, families.isEveryday) };
  };
  const summary = (part: string, m: ReturnType<typeof measure>) =>
    describeGraded(name, part, m, families.outside, families.recallBy);
  return { corpus, measure, summary };
}

/**
 * Each part holds at least `min` benign texts and secrets (as `count` counts them), and every item names
 * where it comes from (`sourced`).
 */
export function expectParts(
  corpus: Corpus<{ source: string }, { source: string }>,
  count: (part: Part) => { benign: readonly unknown[]; positives: readonly unknown[] },
  min: { benign: number; secrets: number },
  sourced: RegExp = SOURCED,
): void {
  for (const part of ['tuning', 'held-out'] as const) {
    const m = count(part);
    expect(m.benign.length).toBeGreaterThanOrEqual(min.benign);
    expect(m.positives.length).toBeGreaterThanOrEqual(min.secrets);
  }
  for (const item of [...corpus.benign, ...corpus.positives]) expect(item.source).toMatch(sourced);
}

export const pct = (value: number) => `${(value * 100).toFixed(1)}%`;

/** How every item of a corpus built from repositories names where it comes from. */
export const SOURCED = /^[\w.-]+\/[\w.-]+(@[0-9a-f]{12}:| commit [0-9a-f]{12})/;

/**
 * A tuning part's failures in full (this part is tuned on, so its texts may be read): each benign text
 * changed, with what it became, and each secret missed, with what was left.
 */
export function tuningFailures(m: {
  damaged: Iterable<{ family: string; text: string; source: string }>;
  missed: Iterable<{ format: string; text: string }>;
}): { damaged: string; missed: string } {
  return {
    damaged: [...m.damaged]
      .map((item) => `[${item.family}] ${item.text} → ${redacted(item.text)}  (${item.source})`)
      .join('\n'),
    missed: [...m.missed].map((item) => `${item.format}: ${redacted(item.text)}`).join('\n'),
  };
}
