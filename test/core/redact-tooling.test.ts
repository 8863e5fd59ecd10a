import { describe, expect, it } from 'vitest';
import {
  expectParts,
  gradedCorpus,
  SCANNERS_OWN_CASES,
  tuningFailures,
} from '../helpers/redaction-corpus.js';

/**
 * The seventh corpus (issue 26), from sources no earlier corpus used: the commit messages, docs,
 * workflows, scanner configs, scripts and lock files of renovate, semantic-release, ggshield,
 * detect-secrets, talisman and earlybird, and detect-secrets' and whispers' negative cases (benign); the
 * secrets of detect-secrets' plugin tests and whispers' fixtures and values generated from
 * secrets-patterns-db's rules, each named by repository, commit and file
 * (scripts/make-redaction-corpus-tooling.mjs). It was committed, split, before the detector ran on it;
 * the held-out part is measured once before and once after a round of tuning on the tuning parts.
 */
const { corpus, measure, summary } = gradedCorpus(
  'tooling',
  'redaction-corpus-tooling.json',
  SCANNERS_OWN_CASES,
);

describe('redaction on the release and secret-scanning tools’ texts and more scanners’ cases (a seventh corpus)', () => {
  it('has a tuning and a held-out part of 2,000 benign texts and 170 secrets each, all sourced', () => {
    expectParts(corpus, measure, { benign: 2000, secrets: 170 });
  });

  // Measured once before this round's changes to the detector: tuning 69 of 2,284 benign texts changed
  // (3.0%), recall 82.4% of 188; held out 55 of 2,124 changed (2.6%; 21 of 1,941 outside the scanners'
  // own cases, 34 of their 183), recall 81.6% of 174 (32 missed). After tuning on the tuning parts of
  // all seven corpora: tuning 10 changed (0.4%), recall 88.8%; held out, measured once at the end, 11
  // changed (0.5%: 9 of 1,941 outside the scanners' own cases, 3 of 289 commands, 1 of 1,025 prose
  // texts), recall 89.7% of 174 (18 missed: 1 of 62 commands, 10 of 65 sentences, 7 of 47 scanners'
  // examples). The eighth corpus's round keeps Stripe's publishable keys (`pk_live_…`, `pk_test_…`, public
  // by design), which secrets-patterns-db's "Stripe Public … Key" rules count as secrets: recall LOWERED on
  // purpose, 88.8% to 86.7% tuning (4 keys), 89.7% to 89.1% held out (1 key). The review of these rounds
  // redacts a passphrase under a password's name again (`PASSWORD="correct horse battery staple"`, as
  // the detector before them did): held-out false redactions RAISED on purpose, 11 to 12 of 2,124 (0.52%
  // to 0.56%), the one more a scanner's own negative case; outside those cases unchanged (0.5%); no tuning
  // text changed. The round on the tuning parts' misses (2026-12-06): tuning recall 86.7% → 87.8%, held
  // out unchanged. After a second round on the tuning parts' misses (2026-12-06, formats ported from the scanners' published rules):
  // tuning 91.0% (17 of 188 missed), held out unchanged (89.1%), the same texts changed.
  it('tuning part: at most 1% false redactions, recall within the measured figure', () => {
    const m = measure('tuning');
    console.log(summary('tuning', m));
    const failures = tuningFailures(m);
    expect(m.falseRate, failures.damaged).toBeLessThanOrEqual(0.01);
    expect(m.recall, failures.missed).toBeGreaterThanOrEqual(0.909);
  });

  it('held-out part (never tuned on): within the measured figures', () => {
    const m = measure('held-out');
    // Only counts per family: the held-out texts that fail are not shown, so that nobody tunes on them.
    console.log(summary('held out', m));
    // The bounds are the figures measured when the detector was frozen: false redactions within the 1%
    // target, recall short of 99%.
    expect(m.falseRate).toBeLessThanOrEqual(0.0057);
    expect(m.everydayRate).toBeLessThanOrEqual(0.0047);
    expect(m.recall).toBeGreaterThanOrEqual(0.8908);
  });
});
