import { CheckpointError } from '../core/errors.js';
import {
  type DetectorConfig,
  findPathSecrets,
  findSecrets,
  type LocatedFinding,
  locateFindings,
} from '../core/secrets/detect.js';
import type { AppDeps } from './deps.js';
import { loadRedactionConfig } from './redaction.js';

/** Larger inputs are refused rather than scanned slowly: this is a check for text, not a disk scanner. */
export const SCAN_MAX_BYTES = 10 * 1024 * 1024;

export interface ScanInput {
  /** Shown in findings: a path, or "-" for standard input. */
  name: string;
  text: string;
}

export interface ScanReport {
  findings: Array<LocatedFinding & { file: string }>;
  scanned: number;
  /** Inputs left out, with why (binary content). */
  skipped: Array<{ file: string; reason: string }>;
}

/**
 * Runs the redaction detector over texts and says where each secret is, never what it is. A bad
 * redaction config is an error here (a pre-commit check must not pass on a config it cannot read).
 */
export async function scanTexts(
  deps: AppDeps,
  inputs: readonly ScanInput[],
  projectRoot: string,
): Promise<ScanReport> {
  const config = await loadScanConfig(deps, projectRoot);
  const report: ScanReport = { findings: [], scanned: 0, skipped: [] };
  for (const input of inputs) {
    if (input.text.includes('\u0000')) {
      report.skipped.push({ file: input.name, reason: 'binary content' });
      continue;
    }
    report.scanned++;
    for (const finding of locateSecrets(input.text, config))
      report.findings.push({ ...finding, file: input.name });
  }
  return report;
}

/** The detector's settings for a project: the user's and the project's own, refused when unreadable. */
export async function loadScanConfig(deps: AppDeps, projectRoot: string): Promise<DetectorConfig> {
  const redaction = await loadRedactionConfig(deps.fs, deps.env, projectRoot);
  if (redaction.problems.length > 0)
    throw new CheckpointError('INVALID_INPUT', redaction.problems.join('; '));
  return redaction.config;
}

export function locateSecrets(text: string, config: DetectorConfig): LocatedFinding[] {
  return locateFindings(text, findSecrets(text, config));
}

/** The self-identifying tokens in paths, one a line (see findPathSecrets), located. */
export function locatePathSecrets(text: string, config: DetectorConfig): LocatedFinding[] {
  return locateFindings(text, findPathSecrets(text, config));
}
