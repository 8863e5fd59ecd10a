import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { redactText } from '../../src/core/redact.js';
import {
  countsBy,
  isHeldOut,
  leaksWindow,
  pct,
  SOURCED,
  tuningFailures,
} from '../helpers/redaction-corpus.js';

interface Benign {
  text: string;
  source: string;
  kind: 'command' | 'prose' | 'config' | 'code';
  family: string;
  /** `cue`: the text holds a word or shape detectors react to (pass, token, key, `{{`, a long run…). */
  stratum: 'cue' | 'plain';
}
interface Positive {
  text: string;
  secret: string;
  format: string;
  /** `scanner-example`: as the scanner wrote it; `command`, `prose`: the secret in an everyday shape. */
  kind: 'scanner-example' | 'command' | 'prose';
  /** `word`: a plain-word password (`CorrectHorseBatteryStaple`), which the detector keeps on purpose. */
  strength: 'word' | 'generated-or-chosen';
  source: string;
}
/**
 * The seventh corpus (issue 26), from sources no earlier corpus used: the commit messages, docs,
 * workflows, scanner configs, scripts and lock files of renovate, semantic-release, ggshield,
 * detect-secrets, talisman and earlybird, and detect-secrets' and whispers' negative cases (benign); the
 * secrets of detect-secrets' plugin tests and whispers' fixtures and values generated from
 * secrets-patterns-db's rules, each named by repository, commit and file
 * (scripts/make-redaction-corpus-tooling.mjs). It was committed, split, before the detector ran on it;
 * the held-out part is measured once before and once after a round of tuning on the tuning parts.
 */
const corpus = JSON.parse(
  readFileSync(new URL('../fixtures/redaction-corpus-tooling.json', import.meta.url), 'utf8'),
) as { benign: Benign[]; positives: Positive[] };

const SCANNER_FAMILIES = new Set(['scanner-negative', 'scanner-placeholder']);

function measure(part: 'tuning' | 'held-out') {
  const inPart = (text: string) => isHeldOut(text) === (part === 'held-out');
  const benign = corpus.benign.filter((item) => inPart(item.text));
  const all = corpus.positives.filter((item) => inPart(item.text));
  const positives = all.filter((item) => item.strength !== 'word');
  const words = all.filter((item) => item.strength === 'word');
  const damaged = new Set(benign.filter((item) => redactText(item.text).text !== item.text));
  const missed = new Set(
    all.filter((item) => leaksWindow(redactText(item.text).text, item.secret, item.text)),
  );
  const everyday = benign.filter((item) => !SCANNER_FAMILIES.has(item.family));
  const rate = (items: readonly Benign[]) => items.filter((item) => damaged.has(item)).length / items.length;
  return {
    benign,
    positives,
    words,
    damaged,
    missed,
    falseRate: damaged.size / benign.length,
    everydayRate: rate(everyday),
    commandRate: rate(everyday.filter((item) => item.kind === 'command')),
    proseRate: rate(everyday.filter((item) => item.kind === 'prose')),
    recall: 1 - positives.filter((item) => missed.has(item)).length / positives.length,
  };
}

const tool = (item: Positive) => item.format.split(' ')[0] ?? '';

function summary(part: string, m: ReturnType<typeof measure>): string {
  return `redaction tooling (${part}): false redactions ${pct(m.falseRate)} of ${m.benign.length} (outside the scanners' own cases ${pct(m.everydayRate)}: commands ${pct(m.commandRate)}, prose ${pct(m.proseRate)}; by family: ${countsBy(m.benign, (item) => `${item.family}/${item.stratum}`, m.damaged)}); recall ${pct(m.recall)} of ${m.positives.length} (by kind: ${countsBy(m.positives, (item) => item.kind, m.missed)}; by source: ${countsBy(m.positives, tool, m.missed)}); plain-word passwords redacted ${m.words.filter((item) => !m.missed.has(item)).length} of ${m.words.length}`;
}

describe('redaction on the release and secret-scanning tools’ texts and more scanners’ cases (a seventh corpus)', () => {
  it('has a tuning and a held-out part of 2,000 benign texts and 170 secrets each, all sourced', () => {
    for (const part of ['tuning', 'held-out'] as const) {
      const m = measure(part);
      expect(m.benign.length).toBeGreaterThanOrEqual(2000);
      expect(m.positives.length).toBeGreaterThanOrEqual(170);
    }
    for (const item of [...corpus.benign, ...corpus.positives]) expect(item.source).toMatch(SOURCED);
  });

  // Measured once before this round's changes to the detector: tuning 69 of 2,284 benign texts changed
  // (3.0%), recall 82.4% of 188; held out 55 of 2,124 changed (2.6%; 21 of 1,941 outside the scanners'
  // own cases, 34 of their 183), recall 81.6% of 174 (32 missed). After tuning on the tuning parts of
  // all seven corpora: tuning 10 changed (0.4%), recall 88.8%; held out, measured once at the end, 11
  // changed (0.5%: 9 of 1,941 outside the scanners' own cases, 3 of 289 commands, 1 of 1,025 prose
  // texts), recall 89.7% of 174 (18 missed: 1 of 62 commands, 10 of 65 sentences, 7 of 47 scanners'
  // examples). The eighth corpus's round keeps Stripe's publishable keys (`pk_live_…`, `pk_test_…`, public
  // by design), which secrets-patterns-db's "Stripe Public … Key" rules count as secrets: recall LOWERED on
  // purpose, 88.8% to 86.7% tuning (4 keys), 89.7% to 89.1% held out (1 key).
  it('tuning part: at most 1% false redactions, recall within the measured figure', () => {
    const m = measure('tuning');
    console.log(summary('tuning', m));
    const failures = tuningFailures(m.damaged, m.missed, (text) => redactText(text).text);
    expect(m.falseRate, failures.damaged).toBeLessThanOrEqual(0.01);
    expect(m.recall, failures.missed).toBeGreaterThanOrEqual(0.867);
  });

  it('held-out part (never tuned on): within the measured figures', () => {
    const m = measure('held-out');
    // Only counts per family: the held-out texts that fail are not shown, so that nobody tunes on them.
    console.log(summary('held out', m));
    // The bounds are the figures measured when the detector was frozen: false redactions within the 1%
    // target, recall short of 99%.
    expect(m.falseRate).toBeLessThanOrEqual(0.0052);
    expect(m.everydayRate).toBeLessThanOrEqual(0.0047);
    expect(m.recall).toBeGreaterThanOrEqual(0.8908);
  });
});
