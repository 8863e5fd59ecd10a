import { z } from 'zod';
import { withQuotedNames } from '../core/json-names.js';

/**
 * Claude Code and VS Code hand the model `JSON.stringify(structuredContent)` and drop the text whenever
 * a result has structured content, so the structured result repeats what the text says.
 */
export const textField = z
  .string()
  .describe('What the text content says, for clients that show the model only the structured content');

/** A successful tool result: the text for clients that read content, the same text inside the structured result. */
export function textResult<T extends Record<string, unknown>>(text: string, structured: T) {
  return {
    content: [{ type: 'text' as const, text }],
    // A name that is not valid UTF-8 as git quotes it, listed in quotedNames (see json-names.ts).
    structuredContent: withQuotedNames({ ...structured, text }),
  };
}

/** The names a structured result gives as git quotes them (see withQuotedNames). */
export const quotedNamesField = z
  .array(z.string())
  .optional()
  .describe(
    'Names in this result that are not valid UTF-8, given as git quotes them ("caf\\351.txt", quotes included; C-unquote for the bytes)',
  );
