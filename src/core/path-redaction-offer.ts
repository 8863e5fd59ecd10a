import { offerPathRedaction } from './path-redaction.js';

/**
 * Lets this process's drift checks tell a listed redacted path (see path-redaction.ts): for the entries
 * that hold the detector, which loads only when a checkpoint lists such a path.
 */
export function offerDetectorPathRedaction(): void {
  offerPathRedaction(async () => {
    const { redactPath } = await import('./redact.js');
    return (file) => redactPath(file).text;
  });
}
