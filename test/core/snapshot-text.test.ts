import { describe, expect, it } from 'vitest';
import type { SnapshotMeta } from '../../src/core/snapshot.js';
import {
  renderGoneStores,
  renderRestore,
  renderSnapshot,
  renderSnapshotList,
} from '../../src/core/snapshot-text.js';

// A trigger stored before `snapshot --trigger` was checked (issue 26) may hold anything.
const stored: SnapshotMeta = {
  id: '20261130-140102-a1b2c3',
  createdAt: '2026-11-30T14:01:02.000Z',
  trigger: 'a\nb\u001b[31m',
  git: null,
  changes: { added: 1, modified: 0, deleted: 0 },
  skipped: { large: [], nested: [] },
};

describe('a stored trigger with control characters', () => {
  it.each([
    ['list', () => renderSnapshotList([stored], 1, 1024, new Date(stored.createdAt))],
    ['the snapshot taken', () => renderSnapshot(true, stored)],
  ])('%s prints it escaped, on its own line', (_name, render) => {
    const text = render();
    expect(text).toContain('a\\nb\\033[31m');
    expect(text).not.toContain('\u001b');
    expect(text).not.toMatch(/a\nb/);
  });
});

describe('the undo of a path-limited restore (new-user trial 2026-12-06)', () => {
  const applied = {
    snapshot: { id: '20261130-140102-a1b2c3' },
    dryRun: false,
    plan: { overwrite: ['src/a.ts'], create: [], delete: [], keptAside: [], refused: [] },
    paths: ['src'],
    undoSnapshotId: '20261130-150000-000001',
    undo: { snapshotId: '20261130-150000-000001', paths: ['src', 'docs'] },
    interrupted: {
      target: '20261130-140102-a1b2c3',
      undo: '20261130-150000-000001',
      current: '20261130-150500-000002',
    },
  };
  it.each([
    [
      'cli',
      'To undo (back to the state before the interrupted restore): claude-checkpoint restore 20261130-150000-000001 --yes -- src docs',
      'is snapshot 20261130-150500-000002: claude-checkpoint restore 20261130-150500-000002 --yes -- src',
    ],
    [
      'mcp',
      'To undo (back to the state before the interrupted restore): restore_snapshot with snapshotId "20261130-150000-000001", paths ["src","docs"] and dryRun: false',
      'is snapshot 20261130-150500-000002: restore_snapshot with snapshotId "20261130-150500-000002", paths ["src"] and dryRun: false',
    ],
  ] as const)(
    '%s: the undo names its paths, the state just before this restore this one’s',
    (surface, undo, current) => {
      const text = renderRestore(applied, surface);
      expect(text).toContain(undo);
      expect(text).toContain(current);
      // Rewind trial: `latest` names that snapshot now, not the one restored from.
      expect(text).toContain(
        '\n`latest` is now snapshot 20261130-150500-000002, taken just before this restore; to restore more from 20261130-140102-a1b2c3, name it.\n',
      );
    },
  );
});

describe('renderGoneStores', () => {
  it.each([
    [['/a'], 'the store of a folder that no longer exists: /a'],
    [['/a', '/b', '/c'], '3 stores of folders that no longer exist: /a, /b, /c'],
    [['/a', '/b', '/c', '/d', '/e'], '5 stores of folders that no longer exist: /a, /b, /c and 2 more'],
    [['/my\napp'], 'the store of a folder that no longer exists: "/my\\napp"'],
  ])('%j: %s', (roots, expected) => {
    expect(renderGoneStores(roots.map((root) => ({ root })))).toBe(expected);
  });
});

describe('a list that shows only the newest (daily-use trial)', () => {
  // 770 snapshots after a week: "… and 750 older" left no way to the rest but guessing a flag.
  const plain = { ...stored, trigger: 'prompt' };
  it.each([
    ['cli', 770, '- … and 769 older (`claude-checkpoint list --limit 770` shows more)'],
    ['mcp', 770, '- … and 769 older (list_snapshots with limit 770 shows more)'],
    ['mcp', 5000, '- … and 4999 older (list_snapshots with limit 1000 shows more)'],
  ] as const)('over %s, with %i in all, says how to see more', (surface, total, line) => {
    const text = renderSnapshotList([plain], total, 1024, new Date(plain.createdAt), surface);
    expect(text.split('\n').at(-1)).toBe(line);
  });

  it('says nothing more when the list is whole', () => {
    expect(renderSnapshotList([plain], 1, 1024, new Date(plain.createdAt), 'cli')).not.toContain('older');
  });
});
