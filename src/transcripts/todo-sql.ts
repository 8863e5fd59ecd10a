/**
 * Copilot CLI keeps the session's todo list in a table of its session database, which the model writes
 * with SQL through its `sql` tool: "`todos`: id, title, description, status
 * (pending/in_progress/done/blocked), created_at, updated_at" (the tool's description, 1.0.102). The
 * database is SQLite, which Node 20 cannot read; the statements are in the session's events, so the list
 * is rebuilt from them. Only the statements a model writes for a todo list are understood (INSERT,
 * UPDATE and DELETE on `todos` with literal values and simple conditions); others are skipped.
 */
export interface SqlTodo {
  id: string;
  title: string;
  description?: string | undefined;
  status: string;
}

type Token =
  | { kind: 'word'; text: string; upper: string }
  | { kind: 'string'; text: string; quote: string }
  | { kind: 'number'; text: string }
  | { kind: 'punct'; text: string };

type Value = string | number | null;

/** The columns of `todos` in table order, for an INSERT without a column list. */
const TABLE_COLUMNS = ['id', 'title', 'description', 'status', 'created_at', 'updated_at'];
const TABLE = 'todos';
/** A query longer than this is not a todo list update. */
const MAX_QUERY_CHARS = 256 * 1024;

/**
 * The list after `query` ran on `todos`, or `undefined` when no statement of it changed the table in a way
 * read here (a SELECT, another table, a condition not understood).
 */
export function applyTodoSql(todos: readonly SqlTodo[], query: string): SqlTodo[] | undefined {
  if (query.length > MAX_QUERY_CHARS || !/todos/i.test(query)) return undefined;
  let list: SqlTodo[] | undefined;
  for (const statement of statements(tokenize(query))) {
    const next = applyStatement(list ?? [...todos], statement);
    if (next) list = next;
  }
  return list;
}

function applyStatement(todos: SqlTodo[], tokens: Token[]): SqlTodo[] | undefined {
  const reader = new TokenReader(tokens);
  const first = reader.word();
  if (first === 'INSERT' || first === 'REPLACE') return applyInsert(todos, reader, first === 'REPLACE');
  if (first === 'UPDATE') return applyUpdate(todos, reader);
  if (first === 'DELETE') return applyDelete(todos, reader);
  return undefined;
}

function applyInsert(todos: SqlTodo[], reader: TokenReader, replaceAll: boolean): SqlTodo[] | undefined {
  let onConflict: 'replace' | 'ignore' | 'fail' = replaceAll ? 'replace' : 'fail';
  if (reader.acceptWord('OR')) {
    const action = reader.word();
    onConflict = action === 'REPLACE' ? 'replace' : action === 'IGNORE' ? 'ignore' : 'fail';
  }
  if (!reader.acceptWord('INTO') || !reader.acceptTable()) return undefined;
  let columns = TABLE_COLUMNS;
  if (reader.acceptPunct('(')) {
    columns = [];
    do {
      const column = reader.name();
      if (column === undefined) return undefined;
      columns.push(column.toLowerCase());
    } while (reader.acceptPunct(','));
    if (!reader.acceptPunct(')')) return undefined;
  }
  if (!reader.acceptWord('VALUES')) return undefined;
  const list = [...todos];
  do {
    const row = reader.valueList();
    if (!row || row.length !== columns.length) return undefined;
    const fields = new Map(columns.map((column, index) => [column, row[index]]));
    const id = fields.get('id');
    if (id === undefined || id === null) return undefined;
    const todo: SqlTodo = {
      id: String(id),
      title: textOf(fields.get('title')) ?? '',
      ...(textOf(fields.get('description')) !== undefined
        ? { description: textOf(fields.get('description')) }
        : {}),
      status: textOf(fields.get('status')) ?? 'pending',
    };
    const at = list.findIndex((existing) => existing.id === todo.id);
    if (at !== -1) {
      // A plain INSERT on a taken id fails the statement, and SQLite rolls the whole statement back.
      if (onConflict === 'fail') return undefined;
      if (onConflict === 'ignore') continue;
      list.splice(at, 1); // REPLACE deletes the old row; the new one comes last
    }
    list.push(todo);
  } while (reader.acceptPunct(','));
  return list;
}

function applyUpdate(todos: SqlTodo[], reader: TokenReader): SqlTodo[] | undefined {
  if (reader.acceptWord('OR')) reader.word();
  if (!reader.acceptTable() || !reader.acceptWord('SET')) return undefined;
  const changes = new Map<string, Value | undefined>();
  do {
    const column = reader.name();
    if (column === undefined || !reader.acceptPunct('=')) return undefined;
    // A column we keep needs a literal; others (timestamps) may be any expression.
    changes.set(column.toLowerCase(), reader.valueOrSkip());
  } while (reader.acceptPunct(','));
  for (const column of ['id', 'title', 'description', 'status'])
    if (changes.has(column) && changes.get(column) === undefined) return undefined;
  const matches = reader.where();
  if (!matches) return undefined;
  return todos.map((todo) => {
    if (!matches(todo)) return todo;
    const next = { ...todo };
    for (const [column, value] of changes) {
      if (column === 'id' && value !== null && value !== undefined) next.id = String(value);
      if (column === 'title') next.title = textOf(value) ?? '';
      if (column === 'description') next.description = textOf(value);
      if (column === 'status') next.status = textOf(value) ?? next.status;
    }
    return next;
  });
}

function applyDelete(todos: SqlTodo[], reader: TokenReader): SqlTodo[] | undefined {
  if (!reader.acceptWord('FROM') || !reader.acceptTable()) return undefined;
  const matches = reader.where();
  return matches ? todos.filter((todo) => !matches(todo)) : undefined;
}

function textOf(value: Value | undefined): string | undefined {
  return value === null || value === undefined ? undefined : String(value);
}

type Condition = (todo: SqlTodo) => boolean;

class TokenReader {
  private at = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }

  word(): string | undefined {
    const token = this.peek();
    if (token?.kind !== 'word') return undefined;
    this.at++;
    return token.upper;
  }

  acceptWord(word: string): boolean {
    const token = this.peek();
    if (token?.kind !== 'word' || token.upper !== word) return false;
    this.at++;
    return true;
  }

  acceptPunct(text: string): boolean {
    const token = this.peek();
    if (token?.kind !== 'punct' || token.text !== text) return false;
    this.at++;
    return true;
  }

  /** `todos`, `main.todos` or a quoted form of either. */
  acceptTable(): boolean {
    let name = this.name();
    if (name?.toLowerCase() === 'main' && this.acceptPunct('.')) name = this.name();
    return name?.toLowerCase() === TABLE;
  }

  /** An identifier, bare or quoted ("x", `x`, [x]). */
  name(): string | undefined {
    const token = this.peek();
    if (token?.kind === 'word') {
      this.at++;
      return token.text;
    }
    if (token?.kind === 'string' && token.quote !== "'") {
      this.at++;
      return token.text;
    }
    return undefined;
  }

  /** A literal: a string, a number, NULL; `undefined` for anything else (which is left unread). */
  value(): Value | undefined {
    const token = this.peek();
    let negative = false;
    if (token?.kind === 'punct' && token.text === '-' && this.tokens[this.at + 1]?.kind === 'number') {
      negative = true;
      this.at++;
    }
    const next = this.peek();
    if (next?.kind === 'string') {
      this.at++;
      return next.text;
    }
    if (next?.kind === 'number') {
      this.at++;
      return negative ? -Number(next.text) : Number(next.text);
    }
    if (next?.kind === 'word' && next.upper === 'NULL') {
      this.at++;
      return null;
    }
    return undefined;
  }

  /** A literal, or any expression skipped up to the next `,` or the end at its own depth (`undefined`). */
  valueOrSkip(): Value | undefined {
    const start = this.at;
    const literal = this.value();
    const after = this.peek();
    const ends =
      after === undefined ||
      (after.kind === 'punct' && (after.text === ',' || after.text === ')')) ||
      (after.kind === 'word' && after.upper === 'WHERE');
    if (literal !== undefined && ends) return literal;
    this.at = start;
    let depth = 0;
    for (let token = this.peek(); token; token = this.peek()) {
      if (token.kind === 'punct' && token.text === '(') depth++;
      if (token.kind === 'punct' && token.text === ')') {
        if (depth === 0) break;
        depth--;
      }
      if (depth === 0 && token.kind === 'punct' && token.text === ',') break;
      if (depth === 0 && token.kind === 'word' && token.upper === 'WHERE') break;
      this.at++;
    }
    return undefined;
  }

  /** `(v, v, ...)` of literals or skipped expressions (those read as `null`). */
  valueList(): Value[] | undefined {
    if (!this.acceptPunct('(')) return undefined;
    const values: Value[] = [];
    do {
      values.push(this.valueOrSkip() ?? null);
    } while (this.acceptPunct(','));
    return this.acceptPunct(')') ? values : undefined;
  }

  /**
   * `WHERE` with comparisons of a column to literals (`=`, `!=`, `<>`, `IN`, `NOT IN`) joined by AND /
   * OR; no WHERE matches every row. `undefined` for a condition not understood, or text after it.
   */
  where(): Condition | undefined {
    if (this.peek() === undefined) return () => true;
    if (!this.acceptWord('WHERE')) return undefined;
    const condition = this.disjunction();
    return condition && this.peek() === undefined ? condition : undefined;
  }

  private disjunction(): Condition | undefined {
    const parts: Condition[] = [];
    do {
      const part = this.conjunction();
      if (!part) return undefined;
      parts.push(part);
    } while (this.acceptWord('OR'));
    return (todo) => parts.some((part) => part(todo));
  }

  private conjunction(): Condition | undefined {
    const parts: Condition[] = [];
    do {
      const part = this.comparison();
      if (!part) return undefined;
      parts.push(part);
    } while (this.acceptWord('AND'));
    return (todo) => parts.every((part) => part(todo));
  }

  private comparison(): Condition | undefined {
    if (this.acceptPunct('(')) {
      const inner = this.disjunction();
      return inner && this.acceptPunct(')') ? inner : undefined;
    }
    let column = this.name()?.toLowerCase();
    // A table alias or name before the column (t.status).
    if (column !== undefined && this.acceptPunct('.')) column = this.name()?.toLowerCase();
    if (column !== 'id' && column !== 'title' && column !== 'status' && column !== 'description')
      return undefined;
    const field = (todo: SqlTodo) => todo[column];
    const negated = this.acceptWord('NOT');
    if (this.acceptWord('IN')) {
      const list = this.valueList();
      if (!list) return undefined;
      const texts = list.map((value) => textOf(value));
      return (todo) => texts.includes(field(todo)) !== negated;
    }
    if (negated) return undefined;
    let equal: boolean;
    if (this.acceptPunct('=') || this.acceptPunct('==')) equal = true;
    else if (this.acceptPunct('!=') || this.acceptPunct('<>')) equal = false;
    else return undefined;
    const value = this.value();
    if (value === undefined) return undefined;
    return (todo) => (field(todo) === textOf(value)) === equal;
  }
}

/** The statements of a token list, split at top-level semicolons; empty ones left out. */
function statements(tokens: Token[]): Token[][] {
  const all: Token[][] = [[]];
  for (const token of tokens) {
    if (token.kind === 'punct' && token.text === ';') all.push([]);
    else all[all.length - 1]?.push(token);
  }
  return all.filter((statement) => statement.length > 0);
}

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < query.length) {
    const char = query[at] as string;
    if (/\s/.test(char)) {
      at++;
    } else if (query.startsWith('--', at)) {
      const end = query.indexOf('\n', at);
      at = end === -1 ? query.length : end + 1;
    } else if (query.startsWith('/*', at)) {
      const end = query.indexOf('*/', at + 2);
      at = end === -1 ? query.length : end + 2;
    } else if (char === "'" || char === '"' || char === '`' || char === '[') {
      const close = char === '[' ? ']' : char;
      let text = '';
      let index = at + 1;
      for (; index < query.length; index++) {
        if (query[index] !== close) text += query[index];
        else if (close !== ']' && query[index + 1] === close) {
          text += close; // a doubled quote stands for one
          index++;
        } else break;
      }
      tokens.push({ kind: 'string', text, quote: char });
      at = index + 1;
    } else if (/[A-Za-z_]/.test(char)) {
      const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(query.slice(at, at + 200))?.[0] ?? char;
      tokens.push({ kind: 'word', text: word, upper: word.toUpperCase() });
      at += word.length;
    } else if (/[0-9]/.test(char) || (char === '.' && /[0-9]/.test(query[at + 1] ?? ''))) {
      const number = /^[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?/.exec(query.slice(at, at + 100))?.[0] ?? char;
      tokens.push({ kind: 'number', text: number });
      at += number.length;
    } else {
      const two = query.slice(at, at + 2);
      const text = ['!=', '<>', '==', '<=', '>=', '||'].includes(two) ? two : char;
      tokens.push({ kind: 'punct', text });
      at += text.length;
    }
  }
  return tokens;
}
