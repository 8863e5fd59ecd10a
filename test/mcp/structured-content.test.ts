import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { connect, type ToolResult } from '../helpers/mcp.js';

/**
 * Claude Code and VS Code give the model `JSON.stringify(structuredContent)` and drop the text when a
 * result has structured content, so everything the text says must also be in the structured result.
 */
function modelView(result: ToolResult): string {
  return result.structured ? JSON.stringify(result.structured) : result.text;
}

describe('what a client that reads only structuredContent passes to the model', () => {
  it('holds the whole brief from load_session_checkpoint, with goal, tasks, next steps, decisions and drift', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a', 'b.ts': 'b' } });
    const { call } = await connect();
    await call('save_session_checkpoint', {
      goal: 'Add OAuth login',
      tasks: [{ description: 'Callback route', status: 'done' }],
      nextSteps: ['Fix the SameSite flag'],
      decisions: ['Use iron-session'],
      projectRoot: root,
    });
    writeFileSync(path.join(root, 'b.ts'), 'edited elsewhere');

    const brief = await call('load_session_checkpoint', { projectRoot: root });
    expect(brief.structured?.brief).toBe(brief.text);
    const seen = JSON.parse(modelView(brief)).brief as string;
    for (const part of [
      '## Goal\nAdd OAuth login',
      '- [x] Callback route',
      '1. Fix the SameSite flag',
      '- Use iron-session',
      're-read before editing: `b.ts`',
    ])
      expect(seen).toContain(part);

    const full = await call('load_session_checkpoint', { projectRoot: root, format: 'full' });
    const fromText = JSON.parse(full.text);
    expect(full.structured).toMatchObject({
      checkpoint: fromText.checkpoint,
      drift: fromText.drift,
      warnings: fromText.warnings,
      brief: brief.text,
    });
  });

  it('repeats the text of every other tool, success and "nothing to resume" alike', async () => {
    const root = createRepo({ committed: { 'a.ts': 'one\n' } });
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } } });
    const nothing = await call('load_session_checkpoint', { projectRoot: root });
    const saved = await call('save_session_checkpoint', { goal: 'g', projectRoot: root });
    const taken = await call('snapshot_files', { projectRoot: root, label: 'before' });
    const id = (taken.structured as { snapshot: { id: string } }).snapshot.id;
    writeFileSync(path.join(root, 'a.ts'), 'two\n');
    const results = [
      nothing,
      saved,
      taken,
      await call('list_snapshots', { projectRoot: root }),
      await call('diff_snapshot', { projectRoot: root, snapshotId: id, path: 'a.ts' }),
      await call('restore_snapshot', { projectRoot: root, snapshotId: id }),
      await call('restore_snapshot', { projectRoot: root, snapshotId: id, dryRun: false }),
    ];
    for (const result of results) {
      expect(result.isError).toBeFalsy();
      expect(result.text.length).toBeGreaterThan(0);
      expect(result.structured?.text).toBe(result.text);
    }
    expect(modelView(results[4] as ToolResult)).toContain('+two');
    expect(modelView(results[6] as ToolResult)).toMatch(/To undo: restore_snapshot with snapshotId /);
  });

  it('puts everything the model needs in the text of an error, which clients show without structured content', async () => {
    const { call } = await connect();
    const result = await call('save_session_checkpoint', { goal: 'x'.repeat(501), projectRoot: tempDir() });
    expect(result.isError).toBe(true);
    expect(result.structured).toBeUndefined();
    expect(result.text).toContain('goal: must be at most 500 characters (got 501)');
  });
});

// A review: a store is shared by every version the user runs; a field a newer version records in a
// snapshot must not make an older server's result fail its own schema (it threw on `skipped.unreadable`).
describe('snapshot results as the client receives their schema', () => {
  it('allow keys a newer version records, in the snapshot and its parts', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    type Schema = { additionalProperties?: unknown; properties?: Record<string, Schema>; items?: Schema };
    for (const name of ['snapshot_files', 'list_snapshots']) {
      const output = tools.find((tool) => tool.name === name)?.outputSchema as Schema | undefined;
      const snapshot = output?.properties?.snapshot ?? output?.properties?.snapshots?.items;
      expect(snapshot, name).toBeDefined();
      for (const part of [snapshot, snapshot?.properties?.skipped, snapshot?.properties?.changes])
        expect(part?.additionalProperties, name).not.toBe(false);
    }
  });
});
