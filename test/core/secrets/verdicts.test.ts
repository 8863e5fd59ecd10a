import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redactor, redactText } from '../../../src/core/redact.js';
import { looksLikeSecret, withVerdicts } from '../../../src/core/secrets/allowlist.js';

const corpus = JSON.parse(
  readFileSync(path.join(import.meta.dirname, '../../fixtures/redaction-corpus.json'), 'utf8'),
) as { benign: Array<{ text: string }>; positives: Array<{ text: string }> };
const texts = [...corpus.benign, ...corpus.positives].map((item) => item.text);

describe('verdicts remembered for one document', () => {
  it('redacts every field of a document as each field alone is redacted', () => {
    const redactor = new Redactor();
    // Twice over: the second pass reads every value's verdict back.
    const document = [...texts, ...texts];
    expect(document.map((text) => redactor.text(text))).toEqual(
      document.map((text) => redactText(text).text),
    );
    expect(redactor.count).toBe(document.reduce((count, text) => count + redactText(text).count, 0));
  });

  it('keeps a verdict per strength: a value is judged again under another name', () => {
    const verdicts = new Map<string, Map<string, boolean>>();
    withVerdicts(verdicts, () => {
      expect(looksLikeSecret('hunter2hunter', 'password')).toBe(true);
      expect(looksLikeSecret('hunter2hunter', 'weak')).toBe(false);
    });
    expect(verdicts.get('p')?.get('hunter2hunter')).toBe(true);
    expect(verdicts.get('w')?.get('hunter2hunter')).toBe(false);
  });

  it('stays bounded, however many values a document holds', () => {
    const verdicts = new Map<string, Map<string, boolean>>();
    withVerdicts(verdicts, () => {
      for (let at = 0; at < 10_000; at++) looksLikeSecret(`Xk9mQ2vL8pZ${at}`, 'strong');
    });
    expect(verdicts.get('s')?.size).toBeLessThanOrEqual(4096);
  });
});
