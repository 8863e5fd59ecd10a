import { describe, expect, it } from 'vitest';
import {
  type BenignText,
  expectParts,
  leaksPiece,
  type Part,
  pct,
  readCorpus,
  runPart,
  type SecretText,
} from '../helpers/redaction-corpus.js';

type Benign = Omit<BenignText<'command' | 'prose' | 'code'>, 'stratum'>;
/**
 * The third corpus (issue 26): texts and secrets from public repositories no earlier corpus used
 * (scripts/make-redaction-corpus-public.mjs names them and the rules), each item naming its repository,
 * commit and file. It was committed, split, before the detector ran on it; the detector was tuned on the
 * tuning part only, and the held-out part was measured once, at the end.
 */
const corpus = readCorpus<Benign, SecretText>('redaction-corpus-public.json');

function measure(part: Part) {
  const m = runPart(corpus, part, (output, item) => leaksPiece(output, item.secret));
  return {
    ...m,
    falseRate: m.damaged.size / m.benign.length,
    recall: 1 - m.missed.size / m.positives.length,
  };
}

describe('redaction on public texts and scanners’ test secrets (a third corpus)', () => {
  it('has a tuning and a held-out part of over a thousand benign texts and 600 secrets each, all sourced', () => {
    expectParts(corpus, measure, { benign: 1200, secrets: 600 });
  });

  // Measured: tuning 0 of 1,226 benign texts changed, recall 84.9%; held out 0 of 1,237, recall 89.2%
  // (before the detector learnt from the tuning part: held out 1 changed, recall 56.1%). After the fourth
  // corpus's round (issue 26): tuning recall 85.8%, held out 89.0% (one secret more missed: 73 of 665),
  // still none changed. After the fifth corpus's round: tuning recall 88.0%, held out 90.5% (63 of 665
  // missed), none changed: a service's name then `token - '…'` is now read as a secret's name. After the
  // sixth corpus's round: tuning recall 88.9%, held out unchanged (90.5%, none changed). After a second round on the tuning parts' misses (2026-12-06, formats ported from the scanners' published rules):
  // tuning 89.9% (68 of 675 missed), held out 90.8% (61 of 665), still none changed.
  // Recall falls short of 99%: most misses are the scanners' own test shapes (a service's name and a
  // value with nothing that says secret: `keenio 'X9…'`, `swell token - '…'`) and example values the
  // allowlist keeps on purpose (AKIAIOSFODNN7EXAMPLE, aBcDeF123…, KKKK…), which the everyday corpus
  // counts as benign.
  it.each([
    ['tuning', 0.01, 0.899],
    ['held-out', 0.01, 0.908],
  ] as const)('%s part: false redactions at most %d, recall at least %d', (part, maxFalse, minRecall) => {
    const m = measure(part);
    const report = `${part}: ${m.damaged.size}/${m.benign.length} benign changed (${pct(m.falseRate)}), recall ${pct(m.recall)} (${m.missed.size}/${m.positives.length} missed)`;
    expect(m.falseRate, report).toBeLessThanOrEqual(maxFalse);
    expect(m.recall, report).toBeGreaterThanOrEqual(minRecall);
  });
});
