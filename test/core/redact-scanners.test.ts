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
 * The sixth corpus (issue 26), from sources no earlier corpus used: the docs, commit messages, workflows
 * and scripts of docker/cli, nektos/act and pypa/twine, and the scanners' negative cases (benign); the
 * secrets of semgrep-rules' and ripsecrets' tests and values generated from Microsoft security-utilities'
 * patterns, each named by repository, commit and file (scripts/make-redaction-corpus-scanners.mjs). It
 * was committed, split, before the detector ran on it; the held-out part is measured once before and
 * once after a round of tuning on the tuning parts.
 */
const corpus = JSON.parse(
  readFileSync(new URL('../fixtures/redaction-corpus-scanners.json', import.meta.url), 'utf8'),
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
  return `redaction scanners (${part}): false redactions ${pct(m.falseRate)} of ${m.benign.length} (outside the scanners' own cases ${pct(m.everydayRate)}: commands ${pct(m.commandRate)}, prose ${pct(m.proseRate)}; by family: ${countsBy(m.benign, (item) => `${item.family}/${item.stratum}`, m.damaged)}); recall ${pct(m.recall)} of ${m.positives.length} (by kind: ${countsBy(m.positives, (item) => item.kind, m.missed)}; by source: ${countsBy(m.positives, tool, m.missed)}); plain-word passwords redacted ${m.words.filter((item) => !m.missed.has(item)).length} of ${m.words.length}`;
}

describe('redaction on docs, commits and workflows of three more projects, and more scanners’ cases (a sixth corpus)', () => {
  it('has a tuning and a held-out part of 1,100 benign texts and 400 secrets each, all sourced', () => {
    for (const part of ['tuning', 'held-out'] as const) {
      const m = measure(part);
      expect(m.benign.length).toBeGreaterThanOrEqual(1100);
      expect(m.positives.length).toBeGreaterThanOrEqual(400);
    }
    for (const item of [...corpus.benign, ...corpus.positives]) expect(item.source).toMatch(SOURCED);
  });

  // Measured once before this round's changes to the detector (after the fix of two secrets' labels,
  // scripts/make-redaction-corpus-scanners.mjs): tuning 8 of 1,193 benign texts changed (0.7%), recall
  // 93.6% of 409; held out 11 of 1,201 changed (0.9%; 5 of 1,134 outside the scanners' own cases: 2 of
  // 322 commands, 3 of 649 prose texts), recall 90.8% of 422 (39 missed: 1 of 178 commands, 21 of 116
  // sentences, 17 of 128 scanners' examples). After tuning on the tuning parts of all six corpora and on
  // published rule lists: tuning 4 changed (0.3%), recall 97.8%; held out, measured once, 14 changed
  // (1.2%: over the 1% target; 9 of 1,134 outside the scanners' own cases, 6 of 322 commands, 3 of 649
  // prose texts), recall 94.5% (23 missed: 1 command, 6 sentences, 16 scanners' examples). After the
  // seventh corpus's round: held out 13 changed (1.1%; 8 of 1,134 outside the scanners' own cases),
  // recall unchanged. After the eighth's: 12 changed (1.0%; 7 of 1,134), recall unchanged.
  it('tuning part: at most 1% false redactions, recall within the measured figure', () => {
    const m = measure('tuning');
    console.log(summary('tuning', m));
    const failures = tuningFailures(m.damaged, m.missed, (text) => redactText(text).text);
    expect(m.falseRate, failures.damaged).toBeLessThanOrEqual(0.01);
    expect(m.recall, failures.missed).toBeGreaterThanOrEqual(0.977);
  });

  it('held-out part (never tuned on): within the measured figures', () => {
    const m = measure('held-out');
    // Only counts per family: the held-out texts that fail are not shown, so that nobody tunes on them.
    console.log(summary('held out', m));
    // The bounds are the figures measured when the detector was frozen: short of both targets.
    expect(m.falseRate).toBeLessThanOrEqual(0.01);
    expect(m.everydayRate).toBeLessThanOrEqual(0.0062);
    expect(m.recall).toBeGreaterThanOrEqual(0.945);
  });
});
