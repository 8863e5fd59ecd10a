import { type ParseError, parse } from 'jsonc-parser';

/**
 * An agent's JSON settings file as `setup` edits it and `doctor` reads it: JSON with comments and
 * trailing commas, which the agents accept. The object, or the offset of the first error (or 0 for
 * text that is not an object).
 */
export function parseJsoncObject(text: string): { value: Record<string, unknown> } | { errorOffset: number } {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true });
  if (errors.length > 0 || typeof value !== 'object' || value === null || Array.isArray(value))
    return { errorOffset: errors[0]?.offset ?? 0 };
  return { value: value as Record<string, unknown> };
}

/** The object in an agent's JSON settings file, `undefined` when it does not parse as one. */
export function readJsoncObject(text: string): Record<string, unknown> | undefined {
  const parsed = parseJsoncObject(text);
  return 'value' in parsed ? parsed.value : undefined;
}

/** Any JSON value in JSON-with-comments text, `undefined` when it does not parse. */
export function readJsonc(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true });
  return errors.length > 0 ? undefined : value;
}
