import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SERVER_INSTRUCTIONS } from '../../src/mcp/instructions.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { connect } from '../helpers/mcp.js';

describe('the MCP server, through a real client', () => {
  it('lists both tools with output schemas and honest annotations', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName)).toEqual(
      expect.arrayContaining(['load_session_checkpoint', 'save_session_checkpoint']),
    );
    expect(byName.load_session_checkpoint?.annotations).toMatchObject({
      readOnlyHint: true,
      openWorldHint: false,
    });
    expect(byName.save_session_checkpoint?.annotations).toMatchObject({
      readOnlyHint: false,
      openWorldHint: false,
    });
    expect(byName.save_session_checkpoint?.outputSchema).toBeDefined();
    const saveProps = byName.save_session_checkpoint?.inputSchema.properties as Record<
      string,
      { maxLength?: number; maxItems?: number }
    >;
    expect(saveProps.goal?.maxLength).toBe(500);
    expect(saveProps.tasks?.maxItems).toBe(30);
    expect(byName.save_session_checkpoint?.inputSchema.required).toEqual(['goal']);
  });

  it('sends instructions that say when to load and save, within the 2 KB Claude Code shows', async () => {
    const { client } = await connect();
    const instructions = client.getInstructions() ?? '';
    expect(instructions).toBe(SERVER_INSTRUCTIONS);
    expect(Buffer.byteLength(instructions)).toBeLessThanOrEqual(2048);
    expect(instructions).toMatch(/load_session_checkpoint/);
    expect(instructions).toMatch(/before risky operations/);
  });

  it('saves and loads, with the text and structured content of the original', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' }, branch: 'feat/x', dirty: { 'a.ts': 'b' } });
    const { call } = await connect();
    const saved = await call('save_session_checkpoint', {
      goal: 'Ship',
      tasks: [{ description: 't', status: 'in_progress' }],
      recentCommands: [{ command: 'API_TOKEN=u7Rk2Qx9Lm4Tz8 make', exitCode: 2 }],
      projectRoot: root,
    });
    expect(saved.isError).toBeFalsy();
    const file = path.join(root, '.claude-checkpoint');
    expect(saved.structured).toEqual({
      path: file,
      bytes: readFileSync(file).byteLength,
      mode: 'replace',
      counts: { tasks: 1, modifiedFiles: 1, recentCommands: 1, redactions: 1 },
      warnings: ['Redacted 1 secret-looking value(s).'],
      text: saved.text,
    });
    expect(saved.text).toMatch(
      new RegExp(
        `^Checkpoint saved to ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(\\d+ bytes, replace\\)\\.\\n1 task\\(s\\), 1 file\\(s\\), 1 command\\(s\\) on feat/x@[0-9a-f]{9}\\.\\n⚠ Redacted 1 secret-looking value\\(s\\)\\.$`,
      ),
    );

    const loaded = await call('load_session_checkpoint', { projectRoot: root });
    expect(loaded.structured).toMatchObject({
      found: true,
      path: file,
      fromBackup: false,
      drift: { branchChanged: false, currentBranch: 'feat/x', commitsSince: 0, changedSince: [] },
      warnings: [],
    });
    expect(loaded.text).toMatch(/^# Resuming: /);
    expect(loaded.text).toContain('- ✗ exit 2 `API_TOKEN=«redacted» make`');

    const full = await call('load_session_checkpoint', { projectRoot: root, format: 'full' });
    const parsed = JSON.parse(full.text);
    expect(parsed.checkpoint.goal.primary).toBe('Ship');
    expect(parsed.drift.commitsSince).toBe(0);
    expect(full.structured).toMatchObject({ checkpoint: { id: parsed.checkpoint.id } });
  });

  it('answers found: false, not an error, when there is nothing to resume', async () => {
    const root = tempDir();
    const { call } = await connect();
    const result = await call('load_session_checkpoint', { projectRoot: root });
    expect(result.isError).toBeFalsy();
    expect(result.structured).toEqual({
      found: false,
      path: path.join(root, '.claude-checkpoint'),
      warnings: [],
      text: result.text,
    });
    expect(result.text).toMatch(/nothing to resume/);
  });

  it.each([
    [{ goal: 'x'.repeat(501) }, 'goal: must be at most 500 characters (got 501)'],
    [
      { goal: 'g', tasks: [{ description: 'd', status: 'later' }] },
      'tasks.0.status: must be one of pending, in_progress, done, blocked',
    ],
    [
      { goal: 'g', recentCommands: Array(51).fill({ command: 'c' }) },
      'recentCommands: must have at most 50 items (got 51)',
    ],
    [{ goal: 'g', projectRoot: 'relative' }, "projectRoot must be an absolute path: got 'relative'"],
    [
      { goal: 'g', modifiedFiles: [{ path: '/etc/passwd' }] },
      'modifiedFiles.0.path is outside the project root',
    ],
    // Issue 26: a model that sent `files`/`commands` lost its notes without a word.
    [
      { goal: 'g', files: [{ path: 'a.ts', note: 'n' }] },
      'unknown field "files"; did you mean "modifiedFiles"?',
    ],
    [
      { goal: 'g', commands: [{ command: 'ls' }] },
      'unknown field "commands"; did you mean "recentCommands"?',
    ],
    // Adversarial trial (2026-12-06): names of Object's own properties crashed the hint lookup.
    [{ goal: 'g', constructor: 1 }, 'unknown field "constructor"'],
    [{ goal: 'g', tasks: [{ description: 'd', status: 'done', toString: 1 }] }, 'unknown field "toString"'],
    [{ goal: 'g', hasOwnProperty: 1 }, 'unknown field "hasOwnProperty"'],
    // Input audit: an empty step or decision was kept, shown in the brief as "1. " and a bare "- ".
    [{ goal: 'g', nextSteps: ['Run the tests', ''] }, 'nextSteps.1: must not be empty'],
    [{ goal: 'g', decisions: [' \n\t'] }, 'decisions.0: must not be empty'],
    [{ goal: 'g', tasks: [null] }, 'tasks.0: must be an object with the fields description, status'],
    [{ goal: 'g', modifiedFiles: ['a.ts'] }, 'modifiedFiles.0: must be an object with the fields path, note'],
    // A lone surrogate is no character: shown as U+FFFD, and other languages' JSON readers refuse the file.
    [
      { goal: 'ok \ud800' },
      'goal: must be whole Unicode characters: a lone surrogate \\ud800 at character 4',
    ],
    [
      { goal: 'g', summary: '😀\udc00' },
      'summary: must be whole Unicode characters: a lone surrogate \\udc00 at character 2',
    ],
  ] as Array<[Record<string, unknown>, string]>)(
    'rejects bad input with a tool error naming the field and limit, writing nothing (%#)',
    async (args, message) => {
      const root = tempDir();
      const { call } = await connect({ deps: { cwd: () => root } });
      const result = await call('save_session_checkpoint', { projectRoot: root, ...args });
      expect(result.isError).toBe(true);
      expect(result.text).toContain(message);
      expect(existsSync(path.join(root, '.claude-checkpoint'))).toBe(false);
    },
  );

  // Bad-input trial: the project named through a link (as /tmp is on macOS) refused its own absolute
  // paths; a folder or a typo was saved as deleted without a word.
  it('takes absolute paths through a link to the project, refuses a folder, and warns of a missing file', async () => {
    const root = createRepo({ committed: { 'src/a.ts': 'a', 'top.txt': 'v1' }, dirty: { 'top.txt': 'v2' } });
    const alias = path.join(tempDir(), 'p2link');
    symlinkSync(root, alias);
    const { call } = await connect();
    const saved = await call('save_session_checkpoint', {
      goal: 'g',
      projectRoot: alias,
      modifiedFiles: [
        { path: path.join(alias, 'top.txt'), note: 'edited' },
        { path: 'src/tpyo.ts', note: 'fixed here' },
      ],
    });
    expect(saved.isError).toBeFalsy();
    expect(saved.structured?.warnings).toContain(
      "modifiedFiles.1.path: 'src/tpyo.ts' does not exist; recorded as deleted",
    );
    const folder = await call('save_session_checkpoint', {
      goal: 'g',
      projectRoot: alias,
      modifiedFiles: [{ path: 'src', note: 'folder' }],
    });
    expect(folder.isError).toBe(true);
    expect(folder.text).toContain("modifiedFiles.0.path: 'src' is a folder: name the files in it");
    const text = readFileSync(path.join(root, '.claude-checkpoint'), 'utf8');
    expect(JSON.parse(text).modifiedFiles.map((file: { path: string }) => file.path)).toEqual([
      'top.txt',
      'src/tpyo.ts',
    ]);
  });

  it("uses the client's first file:// root when no projectRoot or env is given", async () => {
    const root = tempDir();
    const { call } = await connect({ roots: [pathToFileURL(root).href], deps: { cwd: () => tempDir() } });
    const saved = await call('save_session_checkpoint', { goal: 'g' });
    expect(saved.structured?.path).toBe(path.join(root, '.claude-checkpoint'));
  });

  it('never crashes on a corrupt checkpoint: a clear tool error, and the server keeps serving', async () => {
    const root = tempDir();
    writeFileSync(path.join(root, '.claude-checkpoint'), '\u0000\u0001 not json');
    const { call } = await connect();
    const broken = await call('load_session_checkpoint', { projectRoot: root });
    expect(broken.isError).toBe(true);
    expect(broken.text).toMatch(/unusable .* and there is no backup/);
    const repaired = await call('save_session_checkpoint', { goal: 'fresh', projectRoot: root });
    expect(repaired.isError).toBeFalsy();
    expect((await call('load_session_checkpoint', { projectRoot: root })).text).toContain('fresh');
  });

  it('serializes parallel merge calls so no update is lost', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const { call } = await connect();
    await call('save_session_checkpoint', { goal: 'g', projectRoot: root });
    const results = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        call('save_session_checkpoint', {
          goal: 'g',
          mode: 'merge',
          projectRoot: root,
          recentCommands: [{ command: `c${i}` }],
        }),
      ),
    );
    expect(results.every((result) => !result.isError)).toBe(true);
    const loaded = await call('load_session_checkpoint', { projectRoot: root, format: 'full' });
    expect(JSON.parse(loaded.text).checkpoint.recentCommands).toHaveLength(15);
  });

  it('a whitespace-only summary is refused, and a merge with it keeps the saved one (bad-input trial)', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const { call } = await connect();
    await call('save_session_checkpoint', {
      goal: 'g',
      summary: 'cookie dropped on reload',
      projectRoot: root,
    });
    const merged = await call('save_session_checkpoint', {
      goal: 'g',
      summary: '   ',
      mode: 'merge',
      projectRoot: root,
    });
    expect(merged.isError).toBe(true);
    expect(merged.text).toContain('summary: must not be empty');
    const loaded = await call('load_session_checkpoint', { projectRoot: root, format: 'full' });
    expect(JSON.parse(loaded.text).checkpoint.summary).toBe('cookie dropped on reload');
  });

  it("applies the user's own patterns to a save, and a bad pattern is reported without turning the built-in rules off", async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const configDir = tempDir('checkpoint-config-');
    writeFileSync(
      path.join(configDir, 'redaction.json'),
      JSON.stringify({
        patterns: [{ id: 'acme', regex: 'acme_[a-z0-9]{24}', keywords: ['acme_'] }, '(unclosed'],
      }),
    );
    const { call } = await connect({ deps: { env: { CHECKPOINT_CONFIG_DIR: configDir } } });
    const saved = await call('save_session_checkpoint', {
      goal: 'Rotate acme_k3j5h7g9f1d2s4a6p8o0i9u7 and ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q',
      projectRoot: root,
    });
    expect(saved.isError).toBeFalsy();
    const stored = readFileSync(path.join(root, '.claude-checkpoint'), 'utf8');
    expect(stored).toContain('"primary": "Rotate «redacted» and «redacted»"');
    expect(saved.structured?.warnings).toEqual([
      expect.stringMatching(/redaction\.json: patterns\[1\]\.regex is not a valid regular expression/),
      'Redacted 2 secret-looking value(s).',
    ]);
  });
});

// Bad-input trial: a task given twice, pending then done, was kept twice.
describe('a task given twice to save_session_checkpoint', () => {
  it('is kept once with the later status, and a warning names both entries', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const { call } = await connect();
    const saved = await call('save_session_checkpoint', {
      goal: 'g',
      tasks: [
        { description: 'A', status: 'pending' },
        { description: 'B', status: 'pending' },
        { description: 'A', status: 'done' },
      ],
      projectRoot: root,
    });
    expect(saved.isError).toBeFalsy();
    expect(saved.structured?.warnings).toContain(
      "tasks.2 names the same task as tasks.0 ('A'): it is kept once, with the last status given (done)",
    );
    const file = JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));
    expect(file.goal.tasks).toEqual([
      { description: 'A', status: 'done' },
      { description: 'B', status: 'pending' },
    ]);
  });
});
