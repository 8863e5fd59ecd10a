import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatFileBatchParser } from '../../src/git/cat-file-batch.js';
import { createRepo } from '../helpers/fixtures.js';

describe('reading git cat-file --batch output', () => {
  it('gives back every object byte for byte however git splits its output, a missing one included', () => {
    const root = createRepo({ committed: {} });
    const contents = [
      Buffer.from(''),
      Buffer.from('one line\n'),
      randomBytes(1024 * 1024),
      Buffer.from('x\n\n'),
    ];
    const oids = contents.map((content, index) => {
      const file = path.join(root, `f${index}`);
      writeFileSync(file, content);
      return execFileSync('git', ['hash-object', '-w', file], { cwd: root }).toString().trim();
    });
    const missing = '0123456789012345678901234567890123456789';
    const output = execFileSync('git', ['cat-file', '--batch'], {
      cwd: root,
      input: `${[...oids, missing].join('\n')}\n`,
      maxBuffer: 64 * 1024 * 1024,
    });
    for (const size of [7, 4096, 65_536, output.length]) {
      const seen: Array<{ header: string[]; content: Buffer }> = [];
      const parser = new CatFileBatchParser((object) => seen.push(object));
      for (let at = 0; at < output.length; at += size) parser.push(output.subarray(at, at + size));
      expect(seen.map((object) => object.header[0])).toEqual([...oids, missing]);
      expect(seen.at(-1)?.header[1]).toBe('missing');
      for (const [index, content] of contents.entries())
        expect(seen[index]?.content.equals(content)).toBe(true);
    }
  });
});
