import { describe, expect, it } from 'vitest';
import type { SnapshotMeta } from '../../src/core/snapshot.js';
import { renderGoneStores, renderSnapshot, renderSnapshotList } from '../../src/core/snapshot-text.js';

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
