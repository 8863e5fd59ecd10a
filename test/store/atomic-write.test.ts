import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomicSync } from '../../src/store/atomic-write.js';
import { tempDir } from '../helpers/fixtures.js';

describe('writeFileAtomicSync (the store state and refs every snapshot writes)', () => {
  it('replaces the file whole, mode 0600 whatever the umask, leaving no temp file', () => {
    const dir = tempDir();
    const file = path.join(dir, 'state.json');
    writeFileSync(file, 'old', { mode: 0o644 });
    const umask = process.umask(0o000);
    try {
      writeFileAtomicSync(file, 'new');
    } finally {
      process.umask(umask);
    }
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('refuses to write through a link, and leaves what it points at alone', () => {
    const dir = tempDir();
    const outside = path.join(tempDir(), 'victim');
    writeFileSync(outside, 'untouched');
    symlinkSync(outside, path.join(dir, 'master'));
    expect(() => writeFileAtomicSync(path.join(dir, 'master'), 'abc\n')).toThrow(/symbolic link/);
    expect(readFileSync(outside, 'utf8')).toBe('untouched');
  });

  it('says which file it could not write, and leaves no temp file behind', () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'a-folder'));
    expect(() => writeFileAtomicSync(path.join(dir, 'a-folder'), 'x')).toThrow(/could not write .*a-folder/);
    expect(readdirSync(dir)).toEqual(['a-folder']);
  });
});
