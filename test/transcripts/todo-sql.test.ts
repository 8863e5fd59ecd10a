import { describe, expect, it } from 'vitest';
import { applyTodoSql, type SqlTodo } from '../../src/transcripts/todo-sql.js';

// Copilot CLI's todo list is a table in the session's SQLite database, written by the model through its
// `sql` tool. What the tool's description tells the model (Copilot CLI 1.0.102): "`todos`: id, title,
// description, status (pending/in_progress/done/blocked), created_at, updated_at", with the example
// `INSERT INTO todos (id, title, description) VALUES ('user-model', 'Creating user model', '...'), ...`.

const run = (...queries: string[]) =>
  queries.reduce<SqlTodo[] | undefined>(
    (todos, query) => applyTodoSql(todos ?? [], query) ?? todos,
    undefined,
  );
const brief = (todos: SqlTodo[] | undefined) => todos?.map((todo) => `${todo.id}:${todo.status}`);

describe('applyTodoSql: the todos table as the statements the model ran leave it', () => {
  it("the tool description's own example: rows inserted with the default status", () => {
    const todos = run(
      `-- Todo dependency example
INSERT INTO todos (id, title, description) VALUES
  ('user-model', 'Creating user model', 'Define the User schema and relations in src/models/user.ts'),
  ('api-routes', 'Creating API routes', 'Implement routes that use the User model'),
  ('theme-toggle', 'Adding theme toggle', 'Add an independent dark-mode toggle to the settings page');
INSERT INTO todo_deps (todo_id, depends_on) VALUES ('api-routes', 'user-model');
SELECT t.* FROM todos t WHERE t.status = 'pending';`,
    );
    expect(todos).toEqual([
      {
        id: 'user-model',
        title: 'Creating user model',
        description: 'Define the User schema and relations in src/models/user.ts',
        status: 'pending',
      },
      {
        id: 'api-routes',
        title: 'Creating API routes',
        description: 'Implement routes that use the User model',
        status: 'pending',
      },
      {
        id: 'theme-toggle',
        title: 'Adding theme toggle',
        description: 'Add an independent dark-mode toggle to the settings page',
        status: 'pending',
      },
    ]);
  });

  it.each([
    ['by id', "UPDATE todos SET status = 'done' WHERE id = 'a'", ['a:done', 'b:pending', 'c:pending']],
    [
      'by a list of ids, with a timestamp',
      "UPDATE todos SET status = 'in_progress', updated_at = CURRENT_TIMESTAMP WHERE id IN ('b', 'c')",
      ['a:pending', 'b:in_progress', 'c:in_progress'],
    ],
    ['every row', "update todos set status='blocked'", ['a:blocked', 'b:blocked', 'c:blocked']],
    [
      'by status, or-ed with an id',
      "UPDATE todos SET status = 'done' WHERE status = 'in_progress' OR id = \"c\"",
      ['a:pending', 'b:pending', 'c:done'],
    ],
    ['a row deleted', "DELETE FROM todos WHERE id = 'b'", ['a:pending', 'c:pending']],
    ['every row deleted', 'DELETE FROM todos;', []],
    [
      'a row replaced',
      "INSERT OR REPLACE INTO todos (id, title, status) VALUES ('a', 'Again', 'done')",
      ['b:pending', 'c:pending', 'a:done'],
    ],
    [
      'an insert that conflicts, ignored',
      "INSERT OR IGNORE INTO todos (id, title) VALUES ('a', 'Again')",
      ['a:pending', 'b:pending', 'c:pending'],
    ],
    [
      'a title with a quote and a semicolon',
      "UPDATE todos SET title = 'It''s; done' WHERE id = 'a'",
      ['a:pending', 'b:pending', 'c:pending'],
    ],
  ])('an update %s', (_name, query, expected) => {
    const before = run("INSERT INTO todos (id, title) VALUES ('a', 'A'), ('b', 'B'), ('c', 'C')");
    const after = applyTodoSql(before ?? [], query);
    expect(brief(after)).toEqual(expected);
  });

  it("keeps a quoted title's text", () => {
    const todos = run(
      "INSERT INTO todos (id, title) VALUES ('a', 'A')",
      "UPDATE todos SET title = 'It''s; done' WHERE id = 'a'",
    );
    expect(todos?.[0]?.title).toBe("It's; done");
  });

  it('an insert without a column list takes the columns in table order', () => {
    expect(run("INSERT INTO todos VALUES ('x', 'Doing x', 'the x', 'in_progress', NULL, NULL)")).toEqual([
      { id: 'x', title: 'Doing x', description: 'the x', status: 'in_progress' },
    ]);
  });

  it.each([
    ['a read', "SELECT * FROM todos WHERE status = 'pending'"],
    [
      'another table',
      "INSERT INTO notes (id, body) VALUES ('a', 'b'); UPDATE todo_deps SET depends_on = 'x'",
    ],
    ['a condition it cannot read', "UPDATE todos SET status = 'done' WHERE created_at < datetime('now')"],
    ['not SQL', 'todos todos todos'],
  ])('leaves the list untouched on %s', (_name, query) => {
    expect(applyTodoSql([{ id: 'a', title: 'A', status: 'pending' }], query)).toBeUndefined();
  });
});
