import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { takeSnapshot } from '../../src/app/rewind.js';
import { projectStoreDir } from '../../src/store/store-location.js';
import { storeSizeBytes } from '../../src/store/store-size.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

// The store's size estimate (usage.json) is never below what a snapshot added (docs/settings.md): the
// trees above ten files changed in ten folders took more than the 256 bytes a path it allowed, and a
// folder of thousands of files, whose whole tree every change in it rewrites, 5-50 times the fixed
// allowance per folder that replaced it (review), so that a store passed its cap unnoticed.

const usageAdded = (storeDir: string) =>
  (JSON.parse(readFileSync(path.join(storeDir, 'usage.json'), 'utf8')) as { addedBytes: number }).addedBytes;

/** A repository of these files, settled, with a first snapshot: then what the store and its estimate add. */
async function afterFirstSnapshot(committed: Record<string, string>) {
  const root = createRepo({ committed });
  const settled = new Date(Date.now() - 10_000);
  for (const file of Object.keys(committed)) utimesSync(path.join(root, file), settled, settled);
  return measuredFrom(root);
}

async function measuredFrom(root: string) {
  const storeBase = tempDir('usage-estimate-store-');
  const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: storeBase } });
  const storeDir = projectStoreDir(storeBase, root);
  const snapshot = async () => (await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' })).created;
  await snapshot();
  const size = () => storeSizeBytes(storeDir, path.join(storeDir, 'lock'));
  const sizeBefore = await size();
  const estimateBefore = usageAdded(storeDir);
  return {
    root,
    snapshot,
    added: async () => (await size()) - sizeBefore,
    estimated: () => usageAdded(storeDir) - estimateBefore,
  };
}

/**
 * Commits what `write` (a shell command; `$1` is the folder) puts in `folder`, a path too long to look at
 * from the disk's root with the project's in front: made and removed one folder at a time, relative, as
 * no single system call could take it whole. The files are dated a while back, as in a session: an entry
 * as new as the index stays in the split index, and its size then depends on the second the test runs.
 */
function commitDeep(root: string, folder: string, write: string): void {
  onTestFinished(() => {
    execFileSync('rm', ['-rf', folder.split('/')[0] as string], { cwd: root });
  });
  execFileSync('mkdir', ['-p', folder], { cwd: root });
  execFileSync(
    'sh',
    [
      '-c',
      `${write} && find "$1" -type f -exec touch -d "@$(($(date +%s) - 10))" {} + && git add -A && git -c user.name=test -c user.email=test@example.invalid commit -qm deep`,
      'sh',
      folder,
    ],
    { cwd: root },
  );
}

describe("a snapshot's size estimate", () => {
  it('is not below what ten files changed in ten folders added to the store', async () => {
    const committed = Object.fromEntries(
      Array.from({ length: 600 }, (_, i) => [
        `src/m${i % 3}/d${i % 30}/file-with-a-usual-name-${i}.ts`,
        `export const value${i} = ${i};\n`,
      ]),
    );
    const { root, snapshot, added, estimated } = await afterFirstSnapshot(committed);
    for (let i = 0; i < 10; i++)
      writeFileSync(
        path.join(root, Object.keys(committed)[i * 7] as string),
        `export const changed${i} = 1;\n`,
      );
    expect(await snapshot()).toBe(true);
    expect(estimated()).toBeGreaterThanOrEqual(await added());
  });

  it('is not below what changes in a folder of 3,000 files added to the store, snapshot after snapshot', async () => {
    const committed = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [
        `big/a-file-with-a-fairly-long-name-${String(i).padStart(6, '0')}.txt`,
        `content ${i}\n`,
      ]),
    );
    const { root, snapshot, added, estimated } = await afterFirstSnapshot(committed);
    const changed = path.join(root, 'big/a-file-with-a-fairly-long-name-000007.txt');
    for (let round = 0; round < 4; round++) {
      writeFileSync(changed, `changed ${round}\n`);
      expect(await snapshot()).toBe(true);
    }
    // Each round rewrites big/'s tree: some 100 KB uncompressed, well over any fixed allowance.
    expect(await added()).toBeGreaterThan(4 * 20_000);
    expect(estimated()).toBeGreaterThanOrEqual(await added());
  }, 60_000);

  it.skipIf(process.platform !== 'linux')(
    'counts a folder whose name is not valid UTF-8 too (review)',
    async () => {
      const root = createRepo({ committed: { 'a.txt': 'a\n' } });
      const folder = Buffer.concat([Buffer.from(`${root}/caf`), Buffer.from([0xe9])]);
      mkdirSync(folder);
      for (let i = 0; i < 2000; i++)
        writeFileSync(
          Buffer.concat([folder, Buffer.from(`/a-file-with-a-fairly-long-name-${i}.txt`)]),
          `${i}\n`,
        );
      const { snapshot, added, estimated } = await measuredFrom(root);
      const changed = Buffer.concat([folder, Buffer.from('/a-file-with-a-fairly-long-name-7.txt')]);
      for (let round = 0; round < 3; round++) {
        writeFileSync(changed, `changed ${round}\n`);
        expect(await snapshot()).toBe(true);
      }
      expect(estimated()).toBeGreaterThanOrEqual(await added());
    },
    60_000,
  );

  it.skipIf(process.platform !== 'linux')(
    'is taken when a committed file whose path is past PATH_MAX from the root of the disk, though not from the project, is deleted from its folder',
    async () => {
      // 20 folders of 200 bytes, one of 60 and a name of 5: 4,086 bytes from the project, which git reads,
      // and past Linux's PATH_MAX (4,096) for the deepest folder with the project's own path in front,
      // which no lstat of ours takes: the trees above the file were counted with one, which threw, and
      // the snapshot failed.
      const top = 'd'.repeat(200);
      const relative = `${Array(20).fill(top).join('/')}/${'e'.repeat(60)}/f.txt`;
      const root = createRepo({ committed: { 'a.txt': 'a\n' } });
      expect(Buffer.byteLength(relative)).toBe(4086);
      expect(Buffer.byteLength(path.join(root, path.dirname(relative)))).toBeGreaterThan(4096);
      commitDeep(root, path.dirname(relative), 'echo deep > "$1/f.txt"');
      const { snapshot, added, estimated } = await measuredFrom(root);
      execFileSync('rm', ['--', relative], { cwd: root });
      expect(await snapshot()).toBe(true);
      expect(estimated()).toBeGreaterThanOrEqual(await added());
    },
    60_000,
  );

  it.skipIf(process.platform !== 'linux')(
    'counts from git the trees of folders past PATH_MAX from the root of the disk: a folder of 900 files there (review)',
    async () => {
      // 19 folders of 200 bytes, then one whose name takes its path from the disk's root just past
      // 4,095 bytes, then `b`, holding 900 files: none of them can be looked at with the project's path in
      // front, and a deletion in `b` rewrites its 900-entry tree, which the fixed allowance undercounted.
      const top = 'd'.repeat(200);
      const root = createRepo({ committed: { 'a.txt': 'a\n' } });
      const upper = Array(19).fill(top).join('/');
      const own = 4096 - Buffer.byteLength(root) - 1 - upper.length - 1 + 3;
      const big = `${upper}/${'e'.repeat(own)}/b`;
      expect(Buffer.byteLength(path.join(root, path.dirname(big)))).toBeGreaterThan(4095);
      commitDeep(root, big, 'for i in $(seq 100 999); do echo "content $i" > "$1/$i"; done');
      const { snapshot, added, estimated } = await measuredFrom(root);
      execFileSync('rm', ['--', `${big}/500`], { cwd: root });
      expect(await snapshot()).toBe(true);
      expect(estimated()).toBeGreaterThanOrEqual(await added());
    },
    60_000,
  );

  it('never lists a folder through a link that took its place: its target lies outside the project (review)', async () => {
    const root = createRepo({ committed: { 'dir/x.txt': 'x\n', 'a.txt': 'a\n' } });
    const outside = tempDir('usage-estimate-outside-');
    for (let i = 0; i < 3000; i++)
      writeFileSync(path.join(outside, `outside-file-with-a-long-name-${i}.txt`), '');
    const { snapshot, estimated } = await measuredFrom(root);
    rmSync(path.join(root, 'dir'), { recursive: true });
    symlinkSync(outside, path.join(root, 'dir'));
    expect(await snapshot()).toBe(true);
    // Listed through the link, the outside folder's 3,000 names would count some 200 KB.
    expect(estimated()).toBeLessThan(20_000);
  });
});
