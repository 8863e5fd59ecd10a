import { describe, expect, it } from 'vitest';
import {
  expectParts,
  gradedCorpus,
  SCANNERS_OWN_CASES,
  tuningFailures,
} from '../helpers/redaction-corpus.js';

/**
 * The sixth corpus (issue 26), from sources no earlier corpus used: the docs, commit messages, workflows
 * and scripts of docker/cli, nektos/act and pypa/twine, and the scanners' negative cases (benign); the
 * secrets of semgrep-rules' and ripsecrets' tests and values generated from Microsoft security-utilities'
 * patterns, each named by repository, commit and file (scripts/make-redaction-corpus-scanners.mjs). It
 * was committed, split, before the detector ran on it; the held-out part is measured once before and
 * once after a round of tuning on the tuning parts.
 */
const { corpus, measure, summary } = gradedCorpus(
  'scanners',
  'redaction-corpus-scanners.json',
  SCANNERS_OWN_CASES,
);

describe('redaction on docs, commits and workflows of three more projects, and more scanners’ cases (a sixth corpus)', () => {
  it('has a tuning and a held-out part of 1,100 benign texts and 400 secrets each, all sourced', () => {
    expectParts(corpus, measure, { benign: 1100, secrets: 400 });
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
  // recall unchanged. After the eighth's: 12 changed (1.0%; 7 of 1,134), recall unchanged. After the round
  // on the tuning parts' misses (2026-12-06): recall 97.8% → 98.3% tuning, 94.5% → 94.8% held out. After
  // a second round on the tuning parts' misses (2026-12-06, formats ported from the scanners' published rules): 98.8% tuning (5 of 409 missed), 95.3% held out (20 of 422), the same texts changed.
  it('tuning part: at most 1% false redactions, recall within the measured figure', () => {
    const m = measure('tuning');
    console.log(summary('tuning', m));
    const failures = tuningFailures(m);
    expect(m.falseRate, failures.damaged).toBeLessThanOrEqual(0.01);
    expect(m.recall, failures.missed).toBeGreaterThanOrEqual(0.987);
  });

  it('held-out part (never tuned on): within the measured figures', () => {
    const m = measure('held-out');
    // Only counts per family: the held-out texts that fail are not shown, so that nobody tunes on them.
    console.log(summary('held out', m));
    // The bounds are the figures measured when the detector was frozen: short of both targets.
    expect(m.falseRate).toBeLessThanOrEqual(0.01);
    expect(m.everydayRate).toBeLessThanOrEqual(0.0062);
    expect(m.recall).toBeGreaterThanOrEqual(0.952);
  });
});
