import { offerPathRedaction } from './path-redaction.js';
import { redactPath } from './redact.js';

/** Lets this process's drift checks tell a listed redacted path (see path-redaction.ts): for the entries that hold the detector. */
export function offerDetectorPathRedaction(): void {
  offerPathRedaction((file) => redactPath(file).text);
}
