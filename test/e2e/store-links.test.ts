import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeFs } from '../../src/store/fs-seam.js';
import { writeLooseObject } from '../../src/store/loose-object.js';
import { writeTranscriptMemory } from '../../src/store/transcript-memory.js';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// Safety audit of 2026-12-07, items 2-4: a folder or file of the store replaced by a symbolic link was
// followed, here into another repository's `.git` (its HEAD, index and config rewritten), there into a
// folder whose old files were deleted. Every folder and file of the store that we write, append, create
// or delete through is refused when it is a link, through one check (store/store-folder.ts).

async function projectWithStore() {
  const root = createRepo({ committed: { 'b.txt': 'b\n' } });
  const base = tempDir('checkpoint-store-');
  const env = { CHECKPOINT_STORE_DIR: base, HOME: tempDir('home-') };
  const first = await runCli(['snapshot'], { cwd: root, env });
  expect(first.code, first.stderr).toBe(0);
  const storeDir: string = JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout).storeDir;
  return { root, base, env, storeDir };
}

/** Every file under `dir` with its bytes: what "unchanged" is checked against. */
function contents(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else found[path.relative(dir, full)] = readFileSync(full).toString('base64');
    }
  };
  walk(dir);
  return found;
}

describe('the store’s git folder', () => {
  it('replaced by a link to another repository’s .git: refused, and that repository is left as it was', async () => {
    const { root, env, storeDir } = await projectWithStore();
    const victim = createRepo({ committed: { 'v.txt': 'v\n' } });
    writeFileSync(path.join(victim, 'staged.txt'), 'staged\n');
    git(victim, 'add', 'staged.txt');
    const before = contents(path.join(victim, '.git'));
    rmSync(path.join(storeDir, 'git'), { recursive: true });
    symlinkSync(path.join(victim, '.git'), path.join(storeDir, 'git'));
    writeFileSync(path.join(root, 'b.txt'), 'edited\n');
    for (const args of [['snapshot'], ['list'], ['gc']]) {
      const result = await runCli(args, { cwd: root, env });
      expect(result.code, `${args[0]}: ${result.stdout}`).toBe(1);
      expect(result.stderr).toMatch(/refusing to use the snapshot store .*git: it is a symbolic link/);
    }
    expect(contents(path.join(victim, '.git'))).toEqual(before);
    expect(git(victim, 'status', '--short').trim()).toBe('A  staged.txt');
  });

  it('replaced by a link to an empty folder: refused, no new store is set up there', async () => {
    const { root, env, storeDir } = await projectWithStore();
    const empty = tempDir('empty-');
    renameSync(path.join(storeDir, 'git'), path.join(storeDir, 'git.real'));
    symlinkSync(empty, path.join(storeDir, 'git'));
    const result = await runCli(['snapshot'], { cwd: root, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/it is a symbolic link/);
    expect(readdirSync(empty)).toEqual([]);
  });

  it('a folder in its place that the store did not make (another repository): git init is never run over it', async () => {
    const root = createRepo({ committed: { 'b.txt': 'b\n' } });
    const base = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: base, HOME: tempDir('home-') };
    // The store's folder is known before the first snapshot: list names it.
    const storeDir: string = JSON.parse(
      (await runCli(['list', '--json'], { cwd: root, env })).stdout,
    ).storeDir;
    const other = createRepo({ committed: { 'o.txt': 'o\n' } });
    mkdirSync(storeDir, { recursive: true, mode: 0o700 });
    renameSync(path.join(other, '.git'), path.join(storeDir, 'git'));
    const before = contents(path.join(storeDir, 'git'));
    const result = await runCli(['snapshot'], { cwd: root, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /refusing to set up the snapshot store in .*git: it holds files the store did not make/,
    );
    expect(contents(path.join(storeDir, 'git'))).toEqual(before);
  });
});

describe('the store’s own files and other folders', () => {
  it('kinds.jsonl replaced by a link: the snapshot is refused and the file it points to is not appended to', async () => {
    const { root, env, storeDir } = await projectWithStore();
    const outside = path.join(tempDir('outside-'), 'notes.txt');
    writeFileSync(outside, 'outside file\n');
    renameSync(path.join(storeDir, 'kinds.jsonl'), path.join(storeDir, 'kinds.real'));
    symlinkSync(outside, path.join(storeDir, 'kinds.jsonl'));
    writeFileSync(path.join(root, 'b.txt'), 'edited\n');
    const result = await runCli(['snapshot'], { cwd: root, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/kinds\.jsonl: it is a symbolic link/);
    expect(readFileSync(outside, 'utf8')).toBe('outside file\n');
  });

  it('transcripts/ replaced by a link: nothing is written into the folder it points to', () => {
    const storeDir = path.join(tempDir('checkpoint-store-'), 'projects', 'p-123');
    mkdirSync(storeDir, { recursive: true, mode: 0o700 });
    const outside = tempDir('outside-');
    symlinkSync(outside, path.join(storeDir, 'transcripts'));
    expect(() => writeTranscriptMemory(nodeFs, storeDir, 'claude', '/t.jsonl', { at: 1 })).toThrow(
      /transcripts: it is a symbolic link/,
    );
    expect(readdirSync(outside)).toEqual([]);
  });

  it('cache/ replaced by a link: no compiled code is written there, and no old file there is deleted', async () => {
    const { root, base, env } = await projectWithStore();
    const docs = tempDir('docs-');
    for (const name of ['cli-notes.txt', 'hook-design.md', 'other.txt']) {
      writeFileSync(path.join(docs, name), 'precious\n');
      const tenDaysAgo = new Date(Date.now() - 10 * 24 * 3_600_000);
      utimesSync(path.join(docs, name), tenDaysAgo, tenDaysAgo);
    }
    if (existsSync(path.join(base, 'cache'))) rmSync(path.join(base, 'cache'), { recursive: true });
    symlinkSync(docs, path.join(base, 'cache'));
    const result = await runCli(['status'], { cwd: root, env });
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(docs).sort()).toEqual(['cli-notes.txt', 'hook-design.md', 'other.txt']);
  });
});

// Review of 2026-12-07: the fix above missed objects/pack (gc deleted another repository's packs), the
// git folder's own files (every snapshot wrote another repository's index through a link) and the
// fan-out folders objects/xx (gc prunes through them, our loose-object writer writes into them).
describe('the store’s git folder: what is in it', () => {
  /** Another repository with packs, loose objects, packed refs and a staged file: what a link points at. */
  function victimRepo(): string {
    const victim = createRepo({ committed: { 'v.txt': 'v\n' } });
    git(victim, 'gc', '-q');
    writeFileSync(path.join(victim, 'w.txt'), 'w\n');
    git(victim, 'add', 'w.txt');
    git(victim, 'commit', '-qm', 'w');
    writeFileSync(path.join(victim, 'staged.txt'), 'staged\n');
    git(victim, 'add', 'staged.txt');
    return victim;
  }

  async function refusedEach(root: string, env: Record<string, string>, commands: string[], at: RegExp) {
    writeFileSync(path.join(root, 'b.txt'), 'edited\n');
    for (const command of commands) {
      const result = await runCli([command], { cwd: root, env });
      expect(result.code, `${command}: ${result.stdout}`).toBe(1);
      expect(result.stderr).toMatch(at);
    }
  }

  it('objects/pack replaced by a link to another repository’s packs: refused, no pack of it deleted', async () => {
    const { root, env, storeDir } = await projectWithStore();
    const victim = victimRepo();
    const before = contents(path.join(victim, '.git'));
    const pack = path.join(storeDir, 'git', 'objects', 'pack');
    rmSync(pack, { recursive: true, force: true });
    symlinkSync(path.join(victim, '.git', 'objects', 'pack'), pack);
    await refusedEach(root, env, ['snapshot', 'gc'], /objects\/pack: it is a symbolic link/);
    expect(contents(path.join(victim, '.git'))).toEqual(before);
    expect(git(victim, 'log', '--oneline').trim().split('\n')).toHaveLength(2);
  });

  it.each(['index', 'packed-refs', 'HEAD', 'config'])(
    'git/%s replaced by a link to another repository’s: refused, that file is not written',
    async (name) => {
      const { root, env, storeDir } = await projectWithStore();
      const victim = victimRepo();
      const before = contents(path.join(victim, '.git'));
      const file = path.join(storeDir, 'git', name);
      rmSync(file, { force: true });
      symlinkSync(path.join(victim, '.git', name), file);
      const at = new RegExp(`git/${name}: it is a symbolic link`);
      await refusedEach(root, env, ['snapshot', 'gc'], at);
      expect(contents(path.join(victim, '.git'))).toEqual(before);
      expect(git(victim, 'status', '--short').trim()).toBe('A  staged.txt');
    },
  );

  it('a fan-out folder objects/xx replaced by a link to another repository’s: gc refuses, prunes nothing there', async () => {
    const { root, env, storeDir } = await projectWithStore();
    const victim = victimRepo();
    const before = contents(path.join(victim, '.git'));
    const fanOut = readdirSync(path.join(victim, '.git', 'objects')).filter((name) =>
      /^[0-9a-f]{2}$/.test(name),
    );
    expect(fanOut.length).toBeGreaterThan(0);
    const planted = path.join(storeDir, 'git', 'objects', fanOut[0] as string);
    rmSync(planted, { recursive: true, force: true });
    symlinkSync(path.join(victim, '.git', 'objects', fanOut[0] as string), planted);
    const result = await runCli(['gc'], { cwd: root, env });
    expect(result.code, result.stdout).toBe(1);
    expect(result.stderr).toMatch(/objects\/[0-9a-f]{2}: it is a symbolic link/);
    expect(contents(path.join(victim, '.git'))).toEqual(before);
  });

  it('a fan-out folder replaced by a link: a snapshot, whose own git writes the new objects, refuses before it writes (brief h-left)', async () => {
    const { root, env, storeDir } = await projectWithStore();
    // The object the next snapshot's git writes (update-index --add): its fan-out folder, a link elsewhere.
    writeFileSync(path.join(root, 'new.txt'), 'a file new since the first snapshot\n');
    const oid = git(root, 'hash-object', 'new.txt').trim();
    const planted = path.join(storeDir, 'git', 'objects', oid.slice(0, 2));
    rmSync(planted, { recursive: true, force: true });
    const outside = tempDir('outside-');
    symlinkSync(outside, planted);
    const result = await runCli(['snapshot'], { cwd: root, env });
    expect(result.code, result.stdout).toBe(1);
    expect(result.stderr).toContain(`objects/${oid.slice(0, 2)}: it is a symbolic link`);
    expect(readdirSync(outside)).toEqual([]);
    // A listing writes no object: `list` and `status` still show the snapshots (and skip the check).
    const listed = await runCli(['list'], { cwd: root, env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/1 snapshot\(s\)/);
  });

  it('a fan-out folder replaced by a link: our loose-object writer refuses to write into it', async () => {
    const gitDir = path.join(tempDir('checkpoint-store-'), 'git');
    mkdirSync(path.join(gitDir, 'objects'), { recursive: true });
    const body = Buffer.from('a blob of the store\n');
    const oid = await writeLooseObject(gitDir, 'blob', body, 'sha1');
    const dir = path.join(gitDir, 'objects', oid.slice(0, 2));
    rmSync(dir, { recursive: true, force: true });
    const outside = tempDir('outside-');
    symlinkSync(outside, dir);
    await expect(writeLooseObject(gitDir, 'blob', body, 'sha1')).rejects.toThrow(/it is a symbolic link/);
    expect(readdirSync(outside)).toEqual([]);
  });
});
