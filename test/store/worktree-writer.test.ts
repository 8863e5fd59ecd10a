import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorktreeWriter } from '../../src/store/worktree-writer.js';
import { createRepo } from '../helpers/fixtures.js';

describe('WorktreeWriter', () => {
  it('a rename that fails leaves no temp file behind (audit item 13)', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const gitDir = path.join(root, '.git');
    const oid = execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-w', '--stdin'], {
      input: 'deep\n',
      encoding: 'utf8',
    }).trim();
    // A folder whose path leaves room for the temp file's name but not for the file's own 200 bytes:
    // the temp file is written, and the rename fails (ENAMETOOLONG).
    const folders: string[] = [];
    let length = root.length;
    while (3970 - length > 241) {
      folders.push(`${'y'.repeat(239)}${folders.length % 10}`);
      length += 241;
    }
    if (3970 - length > 1) folders.push('x'.repeat(3970 - length - 1));
    const dir = folders.join('/');
    mkdirSync(path.join(root, dir), { recursive: true });
    const file = `${dir}/${'f'.repeat(200)}`;
    const writer = new WorktreeWriter(root, gitDir);
    const change = {
      path: file,
      status: 'A' as const,
      beforeMode: '000000',
      afterMode: '100644',
      beforeOid: '',
      afterOid: oid,
    };
    await expect(writer.apply([change])).rejects.toThrow(/ENAMETOOLONG/);
    expect(readdirSync(path.join(root, dir))).toEqual([]);
  });
});
