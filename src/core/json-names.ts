import { quotePath } from './quote.js';
import { hasRawBytes } from './raw-path.js';

/**
 * A value for JSON output (CLI --json, MCP structured content) with each name that is not valid UTF-8
 * (see raw-path.ts) given as git quotes it: `"caf\351.txt"`, double quotes included, each such byte in
 * octal; C-unquoted, it gives the name's bytes back. Such names are listed once more in `quotedNames` at
 * the top level, so a reader tells them from a valid name that is itself written in double quotes.
 * Everything else is left as it is, and without such a name the value comes back unchanged.
 */
export function withQuotedNames<T>(value: T): T | (T & { quotedNames: string[] }) {
  const quoted = new Set<string>();
  const mapped = quoteRawNames(value, quoted);
  if (quoted.size === 0) return value;
  if (mapped === null || typeof mapped !== 'object' || Array.isArray(mapped)) return mapped as T;
  return { ...(mapped as T), quotedNames: [...quoted] };
}

function quoteRawNames(value: unknown, quoted: Set<string>): unknown {
  if (typeof value === 'string') {
    if (!hasRawBytes(value)) return value;
    const shown = quotePath(value);
    quoted.add(shown);
    return shown;
  }
  if (Array.isArray(value)) return value.map((item) => quoteRawNames(item, quoted));
  if (value === null || typeof value !== 'object' || !isPlain(value)) return value;
  const mapped: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    mapped[quoteRawNames(key, quoted) as string] = quoteRawNames(item, quoted);
  return mapped;
}

function isPlain(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
