import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RememberedOid } from '../../src/git/oid.js';
import { nodeFs } from '../../src/store/fs-seam.js';
import { readOidMemory, sameMemory, writeOidMemory } from '../../src/store/oid-memory.js';
import { tempDir } from '../helpers/fixtures.js';

const entry = (oid: string): RememberedOid => ({
  oid,
  size: 3,
  mtimeNs: '1700000000123456789',
  ctimeNs: '1700000000123456789',
  ino: '42',
  dev: '2049',
});

describe('the remembered oids in the private store', () => {
  it('reads back what it wrote, privately, for the same object format only', async () => {
    const storeDir = path.join(tempDir(), 'store');
    const memory = new Map([
      ['a.ts', entry('a'.repeat(40))],
      ['dir/b c.ts', entry('b'.repeat(40))],
    ]);
    await writeOidMemory(nodeFs, storeDir, 'sha1', memory);
    expect(statSync(path.join(storeDir, 'file-hashes.json')).mode & 0o777).toBe(0o600);
    expect(await readOidMemory(storeDir, 'sha1')).toEqual(memory);
    expect((await readOidMemory(storeDir, 'sha256')).size).toBe(0);
  });

  it('treats a missing, damaged or foreign file as nothing remembered, and skips malformed rows', async () => {
    const storeDir = tempDir();
    expect((await readOidMemory(storeDir, 'sha1')).size).toBe(0);
    const file = path.join(storeDir, 'file-hashes.json');
    writeFileSync(file, '{"version": 1, "format": "sha1", "files": {"a"');
    expect((await readOidMemory(storeDir, 'sha1')).size).toBe(0);
    writeFileSync(file, JSON.stringify({ version: 2, format: 'sha1', files: {} }));
    expect((await readOidMemory(storeDir, 'sha1')).size).toBe(0);
    await writeOidMemory(nodeFs, storeDir, 'sha1', new Map([['ok.ts', entry('c'.repeat(40))]]));
    const written = JSON.parse(readFileSync(file, 'utf8'));
    written.files['not-an-oid.ts'] = ['zz', 3, '1', '1', '1', '1'];
    written.files['short.ts'] = ['d'.repeat(40), 3];
    writeFileSync(file, JSON.stringify(written));
    expect([...(await readOidMemory(storeDir, 'sha1')).keys()]).toEqual(['ok.ts']);
  });

  it('knows when a hasher left the memory as it was (nothing to write)', () => {
    const kept = entry('a'.repeat(40));
    expect(sameMemory(new Map([['a', kept]]), new Map([['a', kept]]))).toBe(true);
    expect(sameMemory(new Map([['a', kept]]), new Map([['a', { ...kept }]]))).toBe(false);
    expect(sameMemory(new Map([['a', kept]]), new Map())).toBe(false);
  });
});
