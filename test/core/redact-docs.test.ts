import { describe, expect, it } from 'vitest';
import {
  type BenignText,
  countsBy,
  expectParts,
  familyCounts,
  type GradedSecret,
  measureGraded,
  type Part,
  pct,
  readCorpus,
  shareOf,
  tuningFailures,
} from '../helpers/redaction-corpus.js';

/**
 * The fourth corpus (issue 26): docs and scanners' rule examples from public repositories no earlier corpus
 * used (scripts/make-redaction-corpus-docs.mjs names them and the rules), each item naming its
 * repository, commit and file. It was committed, split, before the detector ran on it; the detector was
 * tuned on the tuning parts only, and the held-out part was measured once before and once at the end.
 */
const corpus = readCorpus<BenignText, GradedSecret>('redaction-corpus-docs.json');

function measure(part: Part) {
  const m = measureGraded(corpus, part);
  return {
    ...m,
    cueRate: shareOf(
      m.benign.filter((item) => item.stratum === 'cue'),
      m.damaged,
    ),
    wordRecall: 1 - shareOf(m.words, m.missed),
  };
}

function summary(part: string, m: ReturnType<typeof measure>): string {
  return `redaction docs (${part}): false redactions ${pct(m.falseRate)} of ${m.benign.length} (${pct(m.cueRate)} of the texts with a cue; by family: ${familyCounts(m)}); recall ${pct(m.recall)} of ${m.positives.length} (missed by format: ${countsBy(
    m.positives.filter((item) => m.missed.has(item)),
    (item) => item.format,
    m.missed,
  )}); plain-word passwords redacted ${pct(m.wordRecall)} of ${m.words.length}`;
}

describe('redaction on docs and scanners’ rule examples (a fourth corpus)', () => {
  it('has a tuning and a held-out part of 2,000 benign texts and 150 secrets each, all sourced', () => {
    const withWords = (part: Part) => {
      const m = measure(part);
      return { benign: m.benign, positives: [...m.positives, ...m.words] };
    };
    expectParts(corpus, withWords, { benign: 2000, secrets: 150 }, /^[\w.-]+\/[\w.-]+@[0-9a-f]{12}:/);
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
    const failures = tuningFailures(m);
    expect(m.falseRate, failures.damaged).toBeLessThanOrEqual(0.01);
    expect(m.recall, failures.missed).toBeGreaterThanOrEqual(0.99);
  });

  it('held-out part (never tuned on): at most 1% false redactions, recall within the measured figure', () => {
    const m = measure('held-out');
    // Only counts per family: the held-out texts that fail are not shown, so that nobody tunes on them.
    console.log(summary('held out', m));
    // After the seventh corpus's round: 18 of 2,384 changed (0.76%; 19 before it), recall unchanged.
    expect(m.falseRate).toBeLessThanOrEqual(0.0076);
    // Short of the 99% target (see above): the bound is the figure measured when the detector was frozen
    // (92.4%, then 93.1% after the round on the other corpora's tuning misses, 2026-12-06).
    expect(m.recall).toBeGreaterThanOrEqual(0.93);
  });
});
