import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isGitOnPath } from '../../src/git/git-on-path.js';
import { tempDir } from '../helpers/fixtures.js';

function folderWith(entry: 'executable' | 'not executable' | 'a folder' | 'nothing'): string {
  const dir = tempDir('git-on-path-');
  const file = path.join(dir, 'git');
  if (entry === 'executable') writeFileSync(file, '#!/bin/sh\n', { mode: 0o755 });
  if (entry === 'not executable') writeFileSync(file, '#!/bin/sh\n', { mode: 0o644 });
  if (entry === 'a folder') mkdirSync(file);
  return dir;
}

describe.skipIf(process.platform === 'win32')(
  'isGitOnPath (issue 26: a hook host started where git cannot run)',
  () => {
    it.each([
      ['an executable git', ['executable'], true],
      ['only a git that is not executable', ['not executable'], false],
      ['only a folder named git', ['a folder'], false],
      ['no git at all', ['nothing'], false],
      ['a git after folders without one', ['nothing', 'a folder', 'executable'], true],
    ] as const)('%s on PATH: %s', (_title, entries, expected) => {
      const PATH = entries.map((entry) => folderWith(entry)).join(path.delimiter);
      expect(isGitOnPath({ PATH })).toBe(expected);
    });

    it('says yes where there is no PATH to look in (the spawn decides), and no for an empty one', () => {
      expect(isGitOnPath({})).toBe(true);
      expect(isGitOnPath({ PATH: '' })).toBe(false);
    });

    it('the real PATH of this test has git', () => {
      expect(isGitOnPath(process.env)).toBe(true);
    });
  },
);
