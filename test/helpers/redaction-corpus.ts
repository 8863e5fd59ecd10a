import { createHash } from 'node:crypto';

// What the redaction corpus tests (test/core/redact-*.test.ts) share: the split every corpus was made
// with, how a leak is told, and how figures are printed.

/** The fixed split of every corpus: the first hex digit of sha256(text), 0-7 tuning, 8-f held out. */
export function isHeldOut(text: string): boolean {
  return createHash('sha256').update(text).digest('hex').charAt(0) >= '8';
}

/**
 * Whether any piece of the secret survived: an 8-character window of it (one without whitespace, quotes
 * or backslashes, which a multi-line or quoted capture holds around the value, and not found in the text
 * apart from the secret: `FakeValu` of an id beside `FakeValues99cl…`), or a shorter secret whole.
 */
export function leaksWindow(output: string, secret: string, text: string): boolean {
  const rest = text.split(secret).join('\n');
  if (secret.length < 8) return output.includes(secret);
  for (let i = 0; i + 8 <= secret.length; i++) {
    const piece = secret.slice(i, i + 8);
    if (!/[\s"'`\\]/.test(piece) && !rest.includes(piece) && output.includes(piece)) return true;
  }
  return false;
}

/** `key bad/all` per value of `key`, sorted: where the failures are, without printing a text. */
export function countsBy<T>(items: readonly T[], key: (item: T) => string, bad: ReadonlySet<T>): string {
  return [...new Set(items.map(key))]
    .sort()
    .map((k) => {
      const all = items.filter((item) => key(item) === k);
      return `${k} ${all.filter((item) => bad.has(item)).length}/${all.length}`;
    })
    .join(', ');
}

export const pct = (value: number) => `${(value * 100).toFixed(1)}%`;

/** How every item of a corpus built from repositories names where it comes from. */
export const SOURCED = /^[\w.-]+\/[\w.-]+(@[0-9a-f]{12}:| commit [0-9a-f]{12})/;

/**
 * A tuning part's failures in full (this part is tuned on, so its texts may be read): each benign text
 * changed, with what it became, and each secret missed, with what was left.
 */
export function tuningFailures(
  damaged: Iterable<{ family: string; text: string; source: string }>,
  missed: Iterable<{ format: string; text: string }>,
  redact: (text: string) => string,
): { damaged: string; missed: string } {
  return {
    damaged: [...damaged]
      .map((item) => `[${item.family}] ${item.text} → ${redact(item.text)}  (${item.source})`)
      .join('\n'),
    missed: [...missed].map((item) => `${item.format}: ${redact(item.text)}`).join('\n'),
  };
}
