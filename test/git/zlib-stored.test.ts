import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adler32, readStoredZlib, storedZlib } from '../../src/git/zlib-stored.js';
import { writeLooseObject } from '../../src/store/loose-object.js';
import { createRepo, git } from '../helpers/fixtures.js';

const bytesOf = (length: number) => new Uint8Array(length).map((_, i) => (i * 131 + length) & 0xff);
// Lengths around the 65,535-byte stored block and zlib's 5,552-byte Adler-32 run.
const LENGTHS = [0, 1, 5551, 5552, 5553, 65534, 65535, 65536, 65535 * 2 + 7, 200_000];

describe('zlib data of stored blocks (RFC 1950/1951)', () => {
  it('Adler-32 matches the published example and zlib on every length checked', () => {
    // RFC 1950's checksum of "Wikipedia", as its Wikipedia article works it out: 0x11E60398.
    expect(adler32(Buffer.from('Wikipedia', 'ascii'))).toBe(0x11e60398);
    expect(adler32(new Uint8Array(0))).toBe(1);
    for (const length of LENGTHS) {
      const bytes = bytesOf(length);
      // zlib's own trailer is the Adler-32 of the data, big-endian.
      expect(adler32(bytes), `${length} bytes`).toBe(
        deflateSync(bytes).readUInt32BE(deflateSync(bytes).length - 4),
      );
    }
  });

  it('what it writes, zlib inflates to the same bytes', () => {
    for (const length of LENGTHS) {
      const bytes = bytesOf(length);
      expect(Buffer.compare(inflateSync(storedZlib(bytes)), Buffer.from(bytes)), `${length} bytes`).toBe(0);
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (bytes) => {
        expect(Buffer.compare(inflateSync(storedZlib(bytes)), Buffer.from(bytes))).toBe(0);
      }),
    );
  });

  it('reads what zlib writes at level 0, and nothing else', () => {
    for (const length of LENGTHS) {
      const bytes = bytesOf(length);
      const stored = readStoredZlib(deflateSync(bytes, { level: 0 }));
      expect(stored && Buffer.compare(stored, Buffer.from(bytes)), `${length} bytes`).toBe(0);
      // Compressed blocks are zlib's to read.
      if (length > 0) expect(readStoredZlib(deflateSync(bytes))).toBeUndefined();
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (bytes) => {
        const read = readStoredZlib(deflateSync(bytes, { level: 0 }));
        expect(read && Buffer.compare(read, Buffer.from(bytes))).toBe(0);
      }),
    );
  });

  it('refuses damaged data: a changed byte, a cut, bytes after the end, a preset dictionary', () => {
    const data = storedZlib(Buffer.from('commit 12\0tree abc\n\nhi\n', 'utf8'));
    expect(readStoredZlib(data)?.toString('utf8')).toBe('commit 12\0tree abc\n\nhi\n');
    const flipped = Buffer.from(data);
    flipped[10] = (flipped[10] as number) ^ 1;
    expect(readStoredZlib(flipped)).toBeUndefined();
    for (let cut = 0; cut < data.length; cut++) expect(readStoredZlib(data.subarray(0, cut))).toBeUndefined();
    expect(readStoredZlib(Buffer.concat([data, Buffer.from([0])]))).toBeUndefined();
    const withDictionary = Buffer.from(data);
    withDictionary[1] = 0x20; // FDICT set, and (0x78 * 256 + 0x20) is a multiple of 31
    expect((0x78 * 256 + (withDictionary[1] as number)) % 31).toBe(0);
    expect(readStoredZlib(withDictionary)).toBeUndefined();
  });

  it('a commit the store writes is stored, and git reads and checks it', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const gitDir = path.join(root, '.git');
    const tree = git(root, 'rev-parse', 'HEAD^{tree}').trim();
    const body = Buffer.from(
      `tree ${tree}\nauthor a <a@b> 1796579821 +0000\ncommitter a <a@b> 1796579821 +0000\n\n{"id":"x"}\n`,
    );
    const oid = await writeLooseObject(gitDir, 'commit', body, 'sha1');
    const file = readFileSync(path.join(gitDir, 'objects', oid.slice(0, 2), oid.slice(2)));
    expect(readStoredZlib(file)?.subarray(-11).toString()).toBe('{"id":"x"}\n');
    expect(git(root, 'cat-file', '-p', oid)).toBe(body.toString());
    execFileSync('git', ['fsck', '--strict', '--no-dangling'], { cwd: root, stdio: 'pipe' });
  });
});
