import { describe, expect, it } from 'vitest';
import { resolveRef } from '../../src/core/rewind-refs.js';
import { REWIND_ACTIONS, rewindActions } from '../../src/core/rewind-text.js';

// Newest first, as the store lists snapshots and rewind lists prompts.
const items = [
  { id: '20261202-103000-cccccc' },
  { id: '20261202-102000-bbbbbb' },
  { id: '20261201-090000-aaaaaa' },
];
const find = (ref: string) => resolveRef(items, ref, 'prompt', 'see them with rewind --list').id;

describe('resolveRef', () => {
  it.each([
    ['latest', '20261202-103000-cccccc'],
    ['latest~0', '20261202-103000-cccccc'],
    ['latest~1', '20261202-102000-bbbbbb'],
    ['latest~2', '20261201-090000-aaaaaa'],
    ['20261201', '20261201-090000-aaaaaa'],
    ['20261202-102000-bbbbbb', '20261202-102000-bbbbbb'],
    ['  latest~1 ', '20261202-102000-bbbbbb'],
  ])('%s names %s', (ref, id) => {
    expect(find(ref)).toBe(id);
  });

  it.each([
    ['latest~3', /'latest~3' goes back 3 prompt\(s\), but there are only 3: the oldest is latest~2/],
    ['latest~-1', /not a reference: use latest or latest~N/],
    ['latest^', /not a reference/],
    ['latest~x', /not a reference/],
    ['2026', /prompt id '2026' is ambiguous \(3 match\)/],
    ['nope', /no prompt 'nope': see them with rewind --list/],
    // An empty reference is named as such, not as a prefix every id matches.
    ['', /^the prompt reference is empty: give an id, a unique id prefix, latest or latest~N$/],
    ['  ', /^the prompt reference is empty/],
  ])('%s is refused with a one-line reason', (ref, message) => {
    expect(() => find(ref)).toThrow(message);
    try {
      find(ref);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
      expect((error as { code?: string }).code).toBe('INVALID_INPUT');
    }
  });
});

describe('the action menu (the spec: code options only when there is something to restore)', () => {
  it('offers all four actions, in the spec’s order, when files changed after the prompt', () => {
    expect(
      rewindActions({ changes: { added: 1, modified: 0, deleted: 0 } }).map((action) => action.label),
    ).toEqual(['Restore code and conversation', 'Restore conversation', 'Restore code', 'Cancel']);
  });

  it('offers only the conversation and Cancel when nothing changed after it', () => {
    expect(rewindActions({ changes: { added: 0, modified: 0, deleted: 0 } })).toEqual([
      REWIND_ACTIONS[1],
      REWIND_ACTIONS[3],
    ]);
  });
});
