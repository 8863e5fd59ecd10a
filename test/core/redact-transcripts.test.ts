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
  /** `command`: a command an agent ran; `decision`: its reasoning, decision or summary text. */
  kind: 'command' | 'decision';
  family: string;
  /** `cue`: the text holds a word or shape detectors react to (pass, token, key, `{{`, a long run…). */
  stratum: 'cue' | 'plain';
}
interface Positive {
  text: string;
  secret: string;
  format: string;
  kind: 'command' | 'decision';
  /** Which benign text's shape the secret was written into, and how. */
  shape: string;
  source: string;
}
/**
 * The eighth corpus (issue 26): what coding agents wrote, from published transcripts and trajectories
 * (SWE-agent, mini-swe-agent, OpenHands, aider): the commands they ran and their decision texts
 * (benign), Stripe publishable keys in the same shapes (benign, counted apart), and secrets generated in
 * the providers' documented formats, written into the shapes of those benign texts
 * (scripts/make-redaction-corpus-transcripts.mjs). It was committed, split, before the detector ran on
 * it; the held-out part is measured once before and once after a round of tuning on the tuning parts.
 */
const corpus = JSON.parse(
  readFileSync(new URL('../fixtures/redaction-corpus-transcripts.json', import.meta.url), 'utf8'),
) as { benign: Benign[]; positives: Positive[] };

function measure(part: 'tuning' | 'held-out') {
  const inPart = (text: string) => isHeldOut(text) === (part === 'held-out');
  const benign = corpus.benign.filter((item) => inPart(item.text));
  const positives = corpus.positives.filter((item) => inPart(item.text));
  const damaged = new Set(benign.filter((item) => redactText(item.text).text !== item.text));
  const missed = new Set(
    positives.filter((item) => leaksWindow(redactText(item.text).text, item.secret, item.text)),
  );
  const written = benign.filter((item) => item.family !== 'publishable-key');
  const rate = (items: readonly Benign[]) => items.filter((item) => damaged.has(item)).length / items.length;
  const recallOf = (items: readonly Positive[]) =>
    1 - items.filter((item) => missed.has(item)).length / items.length;
  return {
    benign,
    positives,
    damaged,
    missed,
    writtenRate: rate(written),
    commandRate: rate(written.filter((item) => item.kind === 'command')),
    decisionRate: rate(written.filter((item) => item.kind === 'decision')),
    publishableRate: rate(benign.filter((item) => item.family === 'publishable-key')),
    recall: recallOf(positives),
    commandRecall: recallOf(positives.filter((item) => item.kind === 'command')),
    decisionRecall: recallOf(positives.filter((item) => item.kind === 'decision')),
  };
}

function summary(part: string, m: ReturnType<typeof measure>): string {
  const written = m.benign.filter((item) => item.family !== 'publishable-key');
  const count = (kind: string) => {
    const all = written.filter((item) => item.kind === kind);
    return `${all.filter((item) => m.damaged.has(item)).length} of ${all.length}`;
  };
  return `redaction transcripts (${part}): agents' texts changed ${pct(m.writtenRate)} (commands ${pct(m.commandRate)}, ${count('command')}; decisions ${pct(m.decisionRate)}, ${count('decision')}); publishable keys changed ${pct(m.publishableRate)}; by family: ${countsBy(m.benign, (item) => `${item.family}/${item.stratum}`, m.damaged)}; recall ${pct(m.recall)} of ${m.positives.length} (commands ${pct(m.commandRecall)}, decisions ${pct(m.decisionRecall)}; by shape: ${countsBy(m.positives, (item) => item.shape, m.missed)}; by format: ${countsBy(m.positives, (item) => item.format, m.missed)})`;
}

describe('redaction on what coding agents wrote in published transcripts (an eighth corpus)', () => {
  it('has a tuning and a held-out part of 1,200 benign texts and 200 secrets each, all sourced', () => {
    for (const part of ['tuning', 'held-out'] as const) {
      const m = measure(part);
      expect(m.benign.length).toBeGreaterThanOrEqual(1200);
      expect(m.positives.length).toBeGreaterThanOrEqual(200);
    }
    for (const item of [...corpus.benign, ...corpus.positives]) expect(item.source).toMatch(SOURCED);
  });

  // Measured once before this round's changes to the detector (the URL formats' secret fixed to the
  // password first; see the script): tuning 1 of 1,295 agents' texts changed, 10 of 13 publishable keys,
  // recall 99.1% of 232; held out 3 of 1,292 agents' texts changed (0 of 90 commands, 3 of 1,202
  // decisions), 14 of 15 publishable keys, recall 100% of 216. After tuning on the tuning parts of all
  // eight corpora: tuning 1 changed (a Mixpanel project token named `project_token`, redacted on
  // purpose: named and shaped as a credential), 0 of 13 publishable keys, recall 100%; held out, measured
  // at the end: 3 of 1,292 changed (0 of 90 commands, 3 of 1,202 decisions), 0 of 15 publishable keys,
  // recall 100% of 216 (109 commands, 107 decisions).
  it('tuning part: within the issue’s targets and the measured figures', () => {
    const m = measure('tuning');
    console.log(summary('tuning', m));
    const failures = tuningFailures(m.damaged, m.missed, (text) => redactText(text).text);
    expect(m.writtenRate, failures.damaged).toBeLessThanOrEqual(0.0008);
    expect(m.publishableRate, failures.damaged).toBe(0);
    expect(m.recall, failures.missed).toBeGreaterThanOrEqual(1);
  });

  it('held-out part (never tuned on): within the issue’s targets and the measured figures', () => {
    const m = measure('held-out');
    // Only counts per family: the held-out texts that fail are not shown, so that nobody tunes on them.
    console.log(summary('held out', m));
    // The issue's targets (≤ 1% false redactions per kind, ≥ 99% recall), then the measured figures.
    for (const rate of [m.commandRate, m.decisionRate]) expect(rate).toBeLessThanOrEqual(0.01);
    for (const recall of [m.commandRecall, m.decisionRecall]) expect(recall).toBeGreaterThanOrEqual(0.99);
    expect(m.commandRate).toBe(0);
    expect(m.decisionRate).toBeLessThanOrEqual(0.0025);
    expect(m.publishableRate).toBe(0);
    expect(m.recall).toBe(1);
  });
});
