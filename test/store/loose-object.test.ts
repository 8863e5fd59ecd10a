import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLooseHeader, repositoryObjectFormat, writeLooseObject } from '../../src/store/loose-object.js';
import { tempDir } from '../helpers/fixtures.js';

const run = (gitDir: string, args: string[], input?: string | Buffer) =>
  execFileSync('git', ['--git-dir', gitDir, ...args], { input, encoding: 'utf8' }).trim();

describe('loose objects written without git', () => {
  for (const format of ['sha1', 'sha256'] as const) {
    it(`are the objects git itself writes, and git reads them (${format})`, async () => {
      const gitDir = path.join(tempDir('loose-'), 'repo.git');
      execFileSync('git', ['init', '-q', '--bare', `--object-format=${format}`, gitDir]);
      expect(await repositoryObjectFormat(gitDir)).toBe(format);

      const content = Buffer.concat([Buffer.from('héllo\n'), Buffer.from([0, 1, 2, 255])]);
      const blob = await writeLooseObject(gitDir, 'blob', content, format);
      expect(blob).toBe(run(gitDir, ['hash-object', '--stdin'], content));
      expect(Buffer.from(execFileSync('git', ['--git-dir', gitDir, 'cat-file', 'blob', blob]))).toEqual(
        content,
      );

      const tree = run(gitDir, ['mktree'], `100644 blob ${blob}\tfile.bin\n`);
      const message = '{"id":"x","note":"ünïcode"}\n';
      const body = `tree ${tree}\nauthor A <a@b> 1700000000 +0000\ncommitter A <a@b> 1700000000 +0000\n\n${message}`;
      const commit = await writeLooseObject(gitDir, 'commit', Buffer.from(body), format);
      const byGit = execFileSync(
        'git',
        ['--git-dir', gitDir, 'commit-tree', '--no-gpg-sign', tree, '-F', '-'],
        {
          input: message,
          encoding: 'utf8',
          env: {
            ...process.env,
            GIT_AUTHOR_NAME: 'A',
            GIT_AUTHOR_EMAIL: 'a@b',
            GIT_COMMITTER_NAME: 'A',
            GIT_COMMITTER_EMAIL: 'a@b',
            GIT_AUTHOR_DATE: '1700000000 +0000',
            GIT_COMMITTER_DATE: '1700000000 +0000',
          },
        },
      ).trim();
      expect(commit).toBe(byGit);
      run(gitDir, ['fsck', '--strict', '--no-dangling']);

      // Written read-only, and writing it again is a no-op.
      const file = path.join(gitDir, 'objects', commit.slice(0, 2), commit.slice(2));
      expect(statSync(file).mode & 0o777).toBe(0o400);
      expect(await writeLooseObject(gitDir, 'commit', Buffer.from(body), format)).toBe(commit);
      expect(readdirSync(path.dirname(file)).filter((name) => name.startsWith('tmp_'))).toEqual([]);
    });
  }

  it('a loose header gives what `git cat-file --batch-check` does, read from the first bytes; else null', () => {
    const gitDir = path.join(tempDir('loose-'), 'repo.git');
    execFileSync('git', ['init', '-q', '--bare', gitDir]);
    // As git writes them: a file of random bytes (no compression) of 5 MB, an empty one, a tree.
    const big = randomBytes(5 * 1024 * 1024);
    const bigOid = run(gitDir, ['hash-object', '-w', '--stdin'], big);
    const emptyOid = run(gitDir, ['hash-object', '-w', '--stdin'], '');
    const treeOid = run(gitDir, ['mktree'], `100644 blob ${emptyOid}\tempty\n`);
    for (const oid of [bigOid, emptyOid, treeOid]) {
      const [type, size] = run(
        gitDir,
        ['cat-file', '--batch-check=%(objecttype) %(objectsize)'],
        `${oid}\n`,
      ).split(' ');
      expect(readLooseHeader(gitDir, oid)).toEqual({ type, size: Number(size) });
    }
    // Packed, as a gc does: not loose any more, git must be asked.
    run(gitDir, ['pack-objects', '-q', path.join(gitDir, 'objects', 'pack', 'pack')], `${emptyOid}\n`);
    run(gitDir, ['prune-packed']);
    expect(run(gitDir, ['cat-file', '-t', emptyOid])).toBe('blob');
    expect(readLooseHeader(gitDir, emptyOid)).toBeNull();
    // Security: only an oid names a file.
    expect(readLooseHeader(gitDir, '../../HEAD')).toBeNull();
    expect(readLooseHeader(gitDir, `${'0'.repeat(38)}/x`)).toBeNull();
  });

  // CI once failed "gc through the CLI" of the crash tests: a killed gc's `git prune-packed` still ran,
  // removing emptied fan-out folders, and the next snapshot's object found its folder gone (ENOENT).
  it('every object lands while another process removes empty fan-out folders, as git prune-packed does', async () => {
    const gitDir = tempDir('loose-race-');
    run(path.dirname(gitDir), ['init', '-q', '--bare', gitDir]);
    const objects = path.join(gitDir, 'objects');
    const sweeper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'), p = require('path'); const o = process.argv[1]; const end = Date.now() + 4000;
        const pause = new Int32Array(new SharedArrayBuffer(4));
        while (Date.now() < end) {
          for (const d of fs.readdirSync(o)) if (/^[0-9a-f]{2}$/.test(d)) try { fs.rmdirSync(p.join(o, d)); } catch {}
          Atomics.wait(pause, 0, 0, 0.05);
        }`,
        objects,
      ],
      { stdio: 'ignore' },
    );
    const swept = new Promise((resolve) => sweeper.on('close', resolve));
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const failures: string[] = [];
      const oids: string[] = [];
      const end = Date.now() + 1_500;
      for (let index = 0; Date.now() < end; index++) {
        try {
          oids.push(await writeLooseObject(gitDir, 'blob', Buffer.from(`object ${index}\n`), 'sha1'));
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
      expect(failures).toEqual([]);
      expect(oids.length).toBeGreaterThan(100);
      // Those the sweeper did not race are git's objects.
      expect(run(gitDir, ['cat-file', '-t', oids.at(-1) as string])).toBe('blob');
    } finally {
      sweeper.kill();
      await swept;
    }
  });
});
