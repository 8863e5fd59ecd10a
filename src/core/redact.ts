import type { Verdicts } from './secrets/allowlist.js';
import { type DetectorConfig, type Finding, findPathSecrets, findSecrets } from './secrets/detect.js';
import { clip } from './text.js';

/** What every redacted value becomes, in every field. */
export const REDACTED = '«redacted»';

export interface RedactionResult {
  text: string;
  count: number;
}

/**
 * Replaces every secret in `text` with «redacted» and counts the replacements. Idempotent: no rule
 * matches «redacted», and every span covers its whole secret, so nothing of it is left behind.
 */
export function redactText(text: string, config: DetectorConfig = {}, verdicts?: Verdicts): RedactionResult {
  return replaceFindings(text, findSecrets(text, config, verdicts));
}

/**
 * Replaces in a file path every self-identifying token (see findPathSecrets) with «redacted»: a folder
 * or a file named by a key (`AKIA…/`, `ghp_….json`, `backup_ghp_….txt`). An ordinary path is left as it is.
 */
export function redactPath(path: string, config: DetectorConfig = {}, verdicts?: Verdicts): RedactionResult {
  return replaceFindings(path, findPathSecrets(path, config, verdicts));
}

function replaceFindings(text: string, findings: readonly Finding[]): RedactionResult {
  if (findings.length === 0) return { text, count: 0 };
  let result = '';
  let from = 0;
  for (const finding of findings) {
    result += text.slice(from, finding.start) + REDACTED;
    from = finding.end;
  }
  return { text: result + text.slice(from), count: findings.length };
}

/**
 * Accumulates redactions across many fields of one document. A value is judged once in it, however many
 * fields and rules find it.
 */
export class Redactor {
  count = 0;
  private readonly verdicts: Verdicts = new Map();

  constructor(private readonly config: DetectorConfig = {}) {}

  text(value: string): string;
  text(value: string | undefined): string | undefined;
  text(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const result = redactText(value, this.config, this.verdicts);
    this.count += result.count;
    return result.text;
  }

  /** A file path, with its self-identifying tokens redacted (see redactPath). */
  path(value: string): string {
    const result = redactPath(value, this.config, this.verdicts);
    this.count += result.count;
    return result.text;
  }
}

/**
 * `text` clipped to `maxChars` after its redaction: «redacted» is longer than a short secret it replaces,
 * so a field within its limit before may be over it after, and a save never stores a field over its
 * limit (every load would call it a hand edit, and the next merge would cut it). A mark the cut would
 * fall inside is dropped whole, never left half («reda…), which no rule would know as a mark again.
 */
export function clipRedacted(text: string, maxChars: number): string {
  const clipped = clip(text, maxChars);
  if (clipped === text) return text;
  const kept = clipped.length - 1;
  const straddling = text.indexOf(REDACTED, Math.max(0, kept - REDACTED.length + 1));
  if (straddling === -1 || straddling >= kept) return clipped;
  return `${text.slice(0, straddling)}…`;
}
