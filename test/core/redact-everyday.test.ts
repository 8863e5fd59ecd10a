import { describe, expect, it } from 'vitest';
import {
  countsBy,
  leaksPiece,
  type Part,
  pct,
  readCorpus,
  runPart,
  tuningFailures,
} from '../helpers/redaction-corpus.js';

interface Benign {
  text: string;
  source: string;
  kind: 'command' | 'prose';
  family: string;
}
interface Positive {
  text: string;
  secret: string;
  format: string;
  kind: string;
  source: string;
}
/**
 * Harvested from public sources the first corpus did not use (see its note), each item naming its source.
 * The split is fixed by the text alone: the held-out part was never looked at while tuning the detector.
 */
const corpus = readCorpus<Benign, Positive>('redaction-corpus-everyday.json');

function measure(part: Part) {
  const { benign, positives, damaged, missed } = runPart(corpus, part, (output, item) =>
    leaksPiece(output, item.secret),
  );
  const rate = (kind: string) => {
    const all = benign.filter((item) => item.kind === kind);
    return all.filter((item) => damaged.has(item)).length / all.length;
  };
  return {
    benign,
    positives,
    damaged,
    missed,
    commandRate: rate('command'),
    proseRate: rate('prose'),
    falseRate: damaged.size / benign.length,
    recall: 1 - missed.size / positives.length,
  };
}

describe('redaction on what agents write every day (a second corpus from other sources)', () => {
  it('splits into a tuning part and a held-out part of several hundred texts each', () => {
    const tuning = measure('tuning');
    const held = measure('held-out');
    expect(tuning.benign.length).toBeGreaterThanOrEqual(400);
    expect(held.benign.length).toBeGreaterThanOrEqual(400);
    expect(held.positives.length).toBeGreaterThanOrEqual(80);
    for (const item of corpus.benign) expect(item.source.length).toBeGreaterThan(0);
  });

  it('tuning part: at most 1% false redactions, at least 99% recall', () => {
    const m = measure('tuning');
    console.log(
      `redaction everyday (tuning): false redactions ${pct(m.falseRate)} of ${m.benign.length} (commands ${pct(m.commandRate)}, prose ${pct(m.proseRate)}); recall ${pct(m.recall)} of ${m.positives.length}`,
    );
    const failures = tuningFailures(m);
    expect(m.falseRate, failures.damaged).toBeLessThanOrEqual(0.01);
    expect(m.recall, failures.missed).toBeGreaterThanOrEqual(0.99);
  });

  it("held-out part (never tuned on): within the measured figures, and at most 1% outside gitleaks' cases", () => {
    const m = measure('held-out');
    const everyday = m.benign.filter((item) => item.family !== 'scanner-false-positive');
    const everydayRate = everyday.filter((item) => m.damaged.has(item)).length / everyday.length;
    // Only counts per family: the held-out texts that fail are not shown, so that nobody tunes on them.
    console.log(
      `redaction everyday (held out): false redactions ${pct(m.falseRate)} of ${m.benign.length} (commands ${pct(m.commandRate)}, prose ${pct(m.proseRate)}; without gitleaks' own false-positive cases ${pct(everydayRate)} of ${everyday.length}; by family: ${countsBy(m.benign, (item) => item.family, m.damaged)}); recall ${pct(m.recall)} of ${m.positives.length} (missed by format: ${countsBy(m.positives, (item) => item.format, m.missed)}). Targets: ≤ 1% false redactions, ≥ 99% recall.`,
    );
    // The targets (1%, 99%) are not met on the whole held-out part: gitleaks' false-positive cases of its
    // provider rules include values our rules, stricter on recall, still take for credentials (see
    // docs/security.md). These bounds are the figures measured when the detector was frozen, so a change
    // that makes them worse fails; the families an agent writes every day are held to the 1% target.
    // After the fourth corpus's round (issue 26): 19 of 584 changed (3.3%), 2 of 458 outside gitleaks'
    // cases (0.4%), recall 98.9% of 91 (before it: 23, 3 and 98.9%). After the seventh corpus's round:
    // 18 changed (3.1%), 1 of 458 outside gitleaks' cases (0.2%), recall 98.9%.
    expect(everydayRate).toBeLessThanOrEqual(0.0022);
    expect(m.falseRate).toBeLessThanOrEqual(0.031);
    expect(m.recall).toBeGreaterThanOrEqual(0.98);
  });
});
