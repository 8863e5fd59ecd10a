import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { redactText } from '../../src/core/redact.js';

interface Positive {
  family: string;
  format: string;
  text: string;
  secret: string;
}
interface Benign {
  family: string;
  text: string;
}
/** Built by scripts/make-redaction-corpus.mjs from published format descriptions, before the rules ran on it. */
const corpus = JSON.parse(
  readFileSync(new URL('../fixtures/redaction-corpus.json', import.meta.url), 'utf8'),
) as { positives: Positive[]; benign: Benign[] };

/** Whether any 8-character piece of the secret survived: a partial secret is still a leak. */
function leaks(output: string, secret: string): boolean {
  if (secret.length < 8) return output.includes(secret);
  for (let i = 0; i + 8 <= secret.length; i++) if (output.includes(secret.slice(i, i + 8))) return true;
  return false;
}

function byFamily<T extends { family: string }>(items: readonly T[], failed: ReadonlySet<T>): string {
  const families = [...new Set(items.map((item) => item.family))].sort();
  return families
    .map((family) => {
      const all = items.filter((item) => item.family === family);
      const bad = all.filter((item) => failed.has(item)).length;
      return `${family} ${bad}/${all.length}`;
    })
    .join(', ');
}

describe('redaction corpus (formats and look-alikes nobody here wrote rules for first)', () => {
  const missed = corpus.positives.filter((positive) =>
    leaks(redactText(positive.text).text, positive.secret),
  );
  const damaged = corpus.benign.filter((benign) => redactText(benign.text).text !== benign.text);
  const formats = new Set(corpus.positives.map((positive) => positive.format));
  const recall = 1 - missed.length / corpus.positives.length;
  const falseRate = damaged.length / corpus.benign.length;

  it('holds at least 600 secrets across 150+ formats and 300 benign look-alikes', () => {
    expect(corpus.positives.length).toBeGreaterThanOrEqual(600);
    expect(formats.size).toBeGreaterThanOrEqual(150);
    expect(corpus.benign.length).toBeGreaterThanOrEqual(300);
  });

  it('finds at least 99% of the secrets, leaving no piece of them behind', () => {
    console.log(
      `redaction recall: ${(recall * 100).toFixed(1)}% of ${corpus.positives.length} secrets in ${formats.size} formats; missed by family: ${byFamily(corpus.positives, new Set(missed))}`,
    );
    const report = missed.map(
      (positive) => `${positive.format} [${positive.family}]: ${redactText(positive.text).text}`,
    );
    expect(recall, report.join('\n')).toBeGreaterThanOrEqual(0.99);
  });

  it('changes at most 1% of the benign look-alikes', () => {
    console.log(
      `redaction false redactions: ${(falseRate * 100).toFixed(1)}% of ${corpus.benign.length} benign texts; by family: ${byFamily(corpus.benign, new Set(damaged))}`,
    );
    const report = damaged.map(
      (benign) => `[${benign.family}] ${benign.text} → ${redactText(benign.text).text}`,
    );
    expect(falseRate, report.join('\n')).toBeLessThanOrEqual(0.01);
  });

  it('is idempotent on the whole corpus', () => {
    for (const text of [
      ...corpus.positives.map((positive) => positive.text),
      ...corpus.benign.map((b) => b.text),
    ]) {
      const once = redactText(text).text;
      expect(redactText(once)).toEqual({ text: once, count: 0 });
    }
  });
});
