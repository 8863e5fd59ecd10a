// The agents' session files are JSON Lines (Claude Code, Codex, Copilot CLI) or JSON objects (Gemini
// CLI): the few steps every reader and fork of them takes, in one place.

/** A JSON object: not an array, not null. */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One line as an object; `null` for anything else, or a line cut short (an agent may still be writing it). */
export function parseJsonObject(raw: string): JsonObject | null {
  try {
    const value: unknown = JSON.parse(raw);
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** Every line of `text` as an object, index for index; `null` for blank lines and the others above. */
export function parseJsonLines(text: string): Array<JsonObject | null> {
  return text.split('\n').map((raw) => (raw.trim() === '' ? null : parseJsonObject(raw)));
}

/**
 * `value` with `from` made `to` wherever it stands whole, as a string value or as a key, at any depth: a
 * session's id in a fork. A string that only contains it (a path naming the session) is left as it is.
 */
export function renameEverywhere(value: unknown, from: string, to: string): unknown {
  if (value === from) return to;
  if (Array.isArray(value)) return value.map((item) => renameEverywhere(item, from, to));
  if (isJsonObject(value))
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key === from ? to : key,
        renameEverywhere(inner, from, to),
      ]),
    );
  return value;
}
