import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { connect } from '../helpers/mcp.js';

// Issue 26: `__proto__` as a save field over MCP was accepted and dropped without a word (the SDK's request
// parsing strips that key), where any other unknown field is an error naming it. Sent as raw JSON, as a
// client's message arrives: JSON.parse makes "__proto__" an own field.
const raw = (root: string, fields: string) =>
  JSON.parse(`{"goal":"g","projectRoot":${JSON.stringify(root)},${fields}}`);

const CASES: Array<[string, string, string]> = [
  ['__proto__', '"__proto__":{"x":1}', 'unknown field "__proto__"'],
  ['__proto__, not an object', '"__proto__":1', 'unknown field "__proto__"'],
  ['constructor', '"constructor":{"x":1}', 'unknown field "constructor"'],
  ['prototype', '"prototype":{"x":1}', 'unknown field "prototype"'],
  [
    "a task's __proto__",
    '"tasks":[{"description":"d","status":"done","__proto__":{"x":1}}]',
    'tasks.0: unknown field "__proto__"',
  ],
  [
    "a file's constructor",
    '"modifiedFiles":[{"path":"a.ts","constructor":{"x":1}}]',
    'modifiedFiles.0: unknown field "constructor"',
  ],
  [
    "a command's __proto__",
    '"recentCommands":[{"command":"make","__proto__":{"note":"n"}}]',
    'recentCommands.0: unknown field "__proto__"',
  ],
];

describe('a save field named after a prototype', () => {
  it.each(CASES)(
    'over MCP: %s is refused, naming the field, and nothing is written',
    async (_, fields, message) => {
      const root = tempDir();
      const { call } = await connect({ deps: { cwd: () => root } });
      const result = await call('save_session_checkpoint', raw(root, fields));
      expect(result.isError).toBe(true);
      expect(result.text).toContain(message);
      expect(existsSync(path.join(root, '.claude-checkpoint'))).toBe(false);
    },
  );

  it('over MCP: a load field "__proto__" is refused too', async () => {
    const root = tempDir();
    const { call } = await connect({ deps: { cwd: () => root } });
    const args = JSON.parse(`{"projectRoot":${JSON.stringify(root)},"__proto__":{}}`);
    const result = await call('load_session_checkpoint', args);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('unknown field "__proto__" (accepted: format, projectRoot)');
  });

  it.each(CASES)(
    'CLI save --stdin: %s is refused, naming the field, and nothing is written',
    async (_, fields, message) => {
      const root = createRepo({ committed: { 'a.ts': 'a' } });
      const result = await runCli(['save', '--stdin'], {
        cwd: root,
        env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') },
        input: `{"goal":"g",${fields}}`,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
      expect(existsSync(path.join(root, '.claude-checkpoint'))).toBe(false);
    },
  );
});
