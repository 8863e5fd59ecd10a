import { z } from 'zod';

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
    structuredContent: { ...structured, text },
  };
}
