import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { redactText } from '../../src/core/redact.js';
import { countsBy, isHeldOut, leaksWindow, pct, tuningFailures } from '../helpers/redaction-corpus.js';

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
  /** `word`: a plain-word password (`whiteduke`, `open_sesame`), which the detector keeps on purpose. */
  strength: 'word' | 'generated-or-chosen';
  source: string;
}
/**
 * The fourth corpus (issue 26): docs and scanners' rule examples from public repositories no earlier corpus
 * used (scripts/make-redaction-corpus-docs.mjs names them and the rules), each item naming its
 * repository, commit and file. It was committed, split, before the detector ran on it; the detector was
 * tuned on the tuning parts only, and the held-out part was measured once before and once at the end.
 */
const corpus = JSON.parse(
  readFileSync(new URL('../fixtures/redaction-corpus-docs.json', import.meta.url), 'utf8'),
) as { benign: Benign[]; positives: Positive[] };

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
  const cue = benign.filter((item) => item.stratum === 'cue');
  return {
    benign,
    positives,
    words,
    damaged,
    missed,
    falseRate: damaged.size / benign.length,
    cueRate: cue.filter((item) => damaged.has(item)).length / cue.length,
    recall: 1 - positives.filter((item) => missed.has(item)).length / positives.length,
    wordRecall: 1 - words.filter((item) => missed.has(item)).length / words.length,
  };
}

function summary(part: string, m: ReturnType<typeof measure>): string {
  return `redaction docs (${part}): false redactions ${pct(m.falseRate)} of ${m.benign.length} (${pct(m.cueRate)} of the texts with a cue; by family: ${countsBy(m.benign, (item) => `${item.family}/${item.stratum}`, m.damaged)}); recall ${pct(m.recall)} of ${m.positives.length} (missed by format: ${countsBy(
    m.positives.filter((item) => m.missed.has(item)),
    (item) => item.format,
    m.missed,
  )}); plain-word passwords redacted ${pct(m.wordRecall)} of ${m.words.length}`;
}

describe('redaction on docs and scanners’ rule examples (a fourth corpus)', () => {
  it('has a tuning and a held-out part of 2,000 benign texts and 150 secrets each, all sourced', () => {
    for (const part of ['tuning', 'held-out'] as const) {
      const m = measure(part);
      expect(m.benign.length).toBeGreaterThanOrEqual(2000);
      expect(m.positives.length + m.words.length).toBeGreaterThanOrEqual(150);
    }
    for (const item of [...corpus.benign, ...corpus.positives])
      expect(item.source).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{12}:/);
  });

  // Measured: tuning 5 of 2,392 benign texts changed (0.2%), recall 100% of 154; held out, once before the
  // detector learnt from the tuning part and once after: 27 then 21 of 2,384 changed (1.1%, then 0.9%;
  // 1.2% of the texts with a cue), recall 81.9% then 88.9% of 144. The held-out misses are formats no
  // example of the tuning part showed (a crates.io, NuGet or Dependency-Track key, a Postmark token) and
  // chosen passwords in shapes the tuning part did not hold; the plain-word passwords are counted apart.
  // After the fifth corpus's round (formats from kingfisher's published rules, among them crates.io,
  // NuGet and Dependency-Track, which this part's misses had named): held out 19 changed (0.8%), recall
  // 91.7% of 144. After the sixth corpus's round: tuning 5 changed, recall 99.4%; held out 19 changed
  // (0.8%), recall 92.4% of 144 (11 missed).
  it('tuning part: at most 1% false redactions, at least 99% recall', () => {
    const m = measure('tuning');
    console.log(summary('tuning', m));
    const failures = tuningFailures(m.damaged, m.missed, (text) => redactText(text).text);
    expect(m.falseRate, failures.damaged).toBeLessThanOrEqual(0.01);
    expect(m.recall, failures.missed).toBeGreaterThanOrEqual(0.99);
  });

  it('held-out part (never tuned on): at most 1% false redactions, recall within the measured figure', () => {
    const m = measure('held-out');
    // Only counts per family: the held-out texts that fail are not shown, so that nobody tunes on them.
    console.log(summary('held out', m));
    // After the seventh corpus's round: 18 of 2,384 changed (0.76%; 19 before it), recall unchanged.
    expect(m.falseRate).toBeLessThanOrEqual(0.0076);
    // Short of the 99% target (see above): the bound is the figure measured when the detector was frozen.
    expect(m.recall).toBeGreaterThanOrEqual(0.923);
  });
});
