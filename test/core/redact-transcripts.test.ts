import { describe, expect, it } from 'vitest';
import {
  type BenignText,
  countsBy,
  expectParts,
  familyCounts,
  type Part,
  pct,
  readCorpus,
  runPart,
  type SecretText,
  shareOf,
  tuningFailures,
} from '../helpers/redaction-corpus.js';

/** `command`: a command an agent ran; `decision`: its reasoning, decision or summary text. */
type AgentText = BenignText<'command' | 'decision'>;
interface ShapedSecret extends SecretText {
  kind: 'command' | 'decision';
  /** Which benign text's shape the secret was written into, and how. */
  shape: string;
}
/**
 * The eighth corpus (issue 26): what coding agents wrote, from published transcripts and trajectories
 * (SWE-agent, mini-swe-agent, OpenHands, aider): the commands they ran and their decision texts
 * (benign), Stripe publishable keys in the same shapes (benign, counted apart), and secrets generated in
 * the providers' documented formats, written into the shapes of those benign texts
 * (scripts/make-redaction-corpus-transcripts.mjs). It was committed, split, before the detector ran on
 * it; the held-out part is measured once before and once after a round of tuning on the tuning parts.
 */
const corpus = readCorpus<AgentText, ShapedSecret>('redaction-corpus-transcripts.json');

function measure(part: Part) {
  const { benign, positives, damaged, missed } = runPart(corpus, part);
  const written = benign.filter((item) => item.family !== 'publishable-key');
  const recallOf = (items: readonly ShapedSecret[]) => 1 - shareOf(items, missed);
  return {
    benign,
    positives,
    damaged,
    missed,
    writtenRate: shareOf(written, damaged),
    commandRate: shareOf(
      written.filter((item) => item.kind === 'command'),
      damaged,
    ),
    decisionRate: shareOf(
      written.filter((item) => item.kind === 'decision'),
      damaged,
    ),
    publishableRate: shareOf(
      benign.filter((item) => item.family === 'publishable-key'),
      damaged,
    ),
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
  return `redaction transcripts (${part}): agents' texts changed ${pct(m.writtenRate)} (commands ${pct(m.commandRate)}, ${count('command')}; decisions ${pct(m.decisionRate)}, ${count('decision')}); publishable keys changed ${pct(m.publishableRate)}; by family: ${familyCounts(m)}; recall ${pct(m.recall)} of ${m.positives.length} (commands ${pct(m.commandRecall)}, decisions ${pct(m.decisionRecall)}; by shape: ${countsBy(m.positives, (item) => item.shape, m.missed)}; by format: ${countsBy(m.positives, (item) => item.format, m.missed)})`;
}

describe('redaction on what coding agents wrote in published transcripts (an eighth corpus)', () => {
  it('has a tuning and a held-out part of 1,200 benign texts and 200 secrets each, all sourced', () => {
    expectParts(corpus, measure, { benign: 1200, secrets: 200 });
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
    const failures = tuningFailures(m);
    expect(m.writtenRate, failures.damaged).toBeLessThanOrEqual(0.0008);
    expect(m.publishableRate, failures.damaged).toBe(0);
    expect(m.recall, failures.missed).toBeGreaterThanOrEqual(1);
  });

  it('held-out part (never tuned on): within the issue’s targets and the measured figures', () => {
    const m = measure('held-out');
    // Only counts per family: the held-out texts that fail are not shown, so that nobody tunes on them.
    console.log(summary('held out', m));
    // The targets (≤ 1% false redactions per kind, ≥ 99% recall), then the measured figures.
    for (const rate of [m.commandRate, m.decisionRate]) expect(rate).toBeLessThanOrEqual(0.01);
    for (const recall of [m.commandRecall, m.decisionRecall]) expect(recall).toBeGreaterThanOrEqual(0.99);
    expect(m.commandRate).toBe(0);
    expect(m.decisionRate).toBeLessThanOrEqual(0.0025);
    expect(m.publishableRate).toBe(0);
    expect(m.recall).toBe(1);
  });
});
