import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { redactText } from '../../src/core/redact.js';

// Issue 26, audit item 9: passwords written in prose and chat ("the password is …", "Password: …",
// "my password's …"), and prose that speaks of passwords without one (docs, support tickets, install
// guides). Built by scripts/make-redaction-corpus-prose.mjs; every item names its source. The held-out
// part was never tuned on: its failing texts are never printed, only counts.
interface Item {
  text: string;
  part: 'tuning' | 'held-out';
  source: string;
}
interface Secret extends Item {
  secret: string;
  /** `plain`: a plain word, a number or a placeholder, which the detector keeps on purpose. */
  kind: 'secret' | 'plain';
}
const corpus = JSON.parse(
  readFileSync(new URL('../fixtures/redaction-corpus-prose.json', import.meta.url), 'utf8'),
) as { secrets: Secret[]; benign: Item[] };

function measure(part: Item['part']) {
  const benign = corpus.benign.filter((item) => item.part === part);
  const changed = benign.filter((item) => redactText(item.text).text !== item.text);
  const secrets = corpus.secrets.filter((item) => item.part === part && item.kind === 'secret');
  const missed = secrets.filter((item) => redactText(item.text).text.includes(item.secret));
  const plain = corpus.secrets.filter((item) => item.part === part && item.kind === 'plain');
  const plainRedacted = plain.filter((item) => !redactText(item.text).text.includes(item.secret));
  const percent = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`;
  console.log(
    `redaction prose (${part}): false redactions ${changed.length} of ${benign.length} (${percent(changed.length, benign.length)}); recall ${percent(secrets.length - missed.length, secrets.length)} of ${secrets.length}; plain words and placeholders redacted ${plainRedacted.length} of ${plain.length}`,
  );
  if (part === 'tuning') {
    for (const item of changed) console.log(`  changed: ${item.text.slice(0, 160)}`);
    for (const item of missed) console.log(`  missed: ${item.text.slice(0, 160)}`);
  }
  return { changed: changed.length, benign: benign.length, missed: missed.length, secrets: secrets.length };
}

describe('redaction of passwords in prose and chat (a ninth corpus)', () => {
  it('has a tuning and a held-out part, every item sourced', () => {
    for (const item of [...corpus.secrets, ...corpus.benign]) expect(item.source).not.toBe('');
    expect(corpus.secrets.filter((item) => item.part === 'held-out').length).toBeGreaterThan(200);
    expect(corpus.benign.filter((item) => item.part === 'held-out').length).toBeGreaterThan(200);
  });

  // Measured before the prose-password rule (2026-12-07): tuning 2 of 266 changed (two Matrix links,
  // older than it), recall 66.8% of 214; held out 1 of 244 changed, recall 67.0% of 215. After: below.
  it('tuning part: within the measured figures', () => {
    const { changed, missed, secrets } = measure('tuning');
    expect(changed).toBeLessThanOrEqual(2);
    expect(1 - missed / secrets).toBeGreaterThanOrEqual(0.892);
  });

  it('held-out part (never tuned on): within the measured figures', () => {
    const { changed, missed, secrets } = measure('held-out');
    expect(changed).toBeLessThanOrEqual(1);
    expect(1 - missed / secrets).toBeGreaterThanOrEqual(0.86);
  });
});
