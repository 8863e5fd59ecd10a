import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { redactText } from '../../src/core/redact.js';

interface Positive {
  format: string;
  context: string;
  text: string;
  secret: string;
}
const corpus = JSON.parse(
  readFileSync(new URL('../fixtures/redaction-corpus.json', import.meta.url), 'utf8'),
) as {
  positives: Positive[];
  benign: string[];
};

/** Whether any 8-character piece of the secret survived: a partial secret is still a leak. */
function leaks(output: string, secret: string): boolean {
  for (let i = 0; i + 8 <= secret.length; i++) if (output.includes(secret.slice(i, i + 8))) return true;
  return output.includes(secret);
}

describe('redaction corpus (scanner grade)', () => {
  const missed = corpus.positives.filter((positive) =>
    leaks(redactText(positive.text).text, positive.secret),
  );
  const falsePositives = corpus.benign.filter((text) => redactText(text).text !== text);
  const formats = new Set(corpus.positives.map((positive) => positive.format));

  it('ships at least 200 positives across 40+ formats and 100 benign look-alikes', () => {
    expect(corpus.positives.length).toBeGreaterThanOrEqual(200);
    expect(formats.size).toBeGreaterThanOrEqual(40);
    expect(corpus.benign.length).toBeGreaterThanOrEqual(100);
  });

  it('finds every secret, leaving no piece of it behind', () => {
    const recall = 1 - missed.length / corpus.positives.length;
    console.log(
      `redaction recall: ${(recall * 100).toFixed(1)}% of ${corpus.positives.length} secrets in ${formats.size} formats`,
    );
    expect(
      missed.map((positive) => `${positive.format} (${positive.context}): ${redactText(positive.text).text}`),
    ).toEqual([]);
  });

  it('leaves every benign look-alike untouched', () => {
    const rate = falsePositives.length / corpus.benign.length;
    console.log(
      `redaction false positives: ${(rate * 100).toFixed(1)}% of ${corpus.benign.length} benign texts`,
    );
    expect(falsePositives.map((text) => `${text} → ${redactText(text).text}`)).toEqual([]);
  });

  it('is idempotent on the whole corpus', () => {
    for (const text of [...corpus.positives.map((positive) => positive.text), ...corpus.benign]) {
      const once = redactText(text).text;
      expect(redactText(once)).toEqual({ text: once, count: 0 });
    }
  });
});
