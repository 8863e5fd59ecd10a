/**
 * The last few files parsed, by key, with the text each was parsed from. A long-running process (the MCP
 * server) reads the same checkpoint and hash memory on every save and load; when the bytes are the same
 * as last time (one string comparison), the parse is skipped. The values are shared between callers, so
 * nobody may modify them.
 */
export class ParsedFileMemo<T> {
  private readonly entries = new Map<string, { text: string; value: T }>();

  constructor(private readonly capacity = 4) {}

  parse(key: string, text: string, parse: (text: string) => T): T {
    const known = this.entries.get(key);
    if (known && known.text === text) return known.value;
    const value = parse(text);
    this.remember(key, text, value);
    return value;
  }

  /** Records what `text` parses to, known without parsing it (the value it was written from). */
  remember(key: string, text: string, value: T): void {
    this.entries.delete(key);
    this.entries.set(key, { text, value });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
