import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mayIndexList } from '../../src/git/index-file.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// `status` tells whether git tracks the checkpoint file from git's index, read without a git process
// (project-status.ts): a real index, from real git, and what is not one.

describe('mayIndexList', () => {
  it('a real index lists its paths, and no other', () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n', 'src/b.ts': 'export {};\n' } });
    const index = path.join(root, '.git', 'index');
    expect(mayIndexList(index, 'src/b.ts\0')).toBe(true);
    expect(mayIndexList(index, '.claude-checkpoint\0')).toBe(false);
  });

  it('anything but an index of version 2 or 3 may list anything; no index lists nothing', () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const real = readFileSync(path.join(root, '.git', 'index'));
    const file = path.join(tempDir('index-'), 'index');
    const variants: Array<[string, Buffer]> = [
      ['another signature', Buffer.concat([Buffer.from('DIRX'), real.subarray(4)])],
      ['version 4', Buffer.concat([real.subarray(0, 4), Buffer.from([0, 0, 0, 4]), real.subarray(8)])],
      ['too short', real.subarray(0, 8)],
    ];
    for (const [name, bytes] of variants) {
      writeFileSync(file, bytes);
      expect(mayIndexList(file, '.claude-checkpoint\0'), name).toBe(true);
    }
    expect(mayIndexList(path.join(tempDir('index-'), 'none'), 'a.txt\0')).toBe(false);
  });
});
