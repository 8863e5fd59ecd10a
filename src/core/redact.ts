import type { Verdicts } from './secrets/allowlist.js';
import { type DetectorConfig, type Finding, findPathSecrets, findSecrets } from './secrets/detect.js';

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
