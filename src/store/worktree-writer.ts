import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import { bytesFromText, fsPath } from '../core/raw-path.js';
import { isRestorablePath } from '../core/snapshot.js';
import { CatFileBatchParser } from '../git/cat-file-batch.js';
import { gitEnvironment, runGit } from '../git/run.js';
import { readLooseHeader } from './loose-object.js';

/** From this size up, a restored file goes from git straight into its temp file (see streamBlob). */
const LARGE_BLOB_BYTES = 4 * 1024 * 1024;

/** Up to this many files to write, their objects stored loose are looked up without git (see readBlobs). */
const IN_PROCESS_MAX_OBJECTS = 100;

/** A blob too large to hold in memory: only its oid, written by git itself when its time comes. */
interface LargeBlob {
  oid: string;
}

/** Temp files of a restore are named so: excluded from snapshots, and cleaned up after a crash. */
export const RESTORE_TEMP_PREFIX = '.claude-checkpoint-restore-';

/** A file that differs between two trees. */
export interface TreeChange {
  path: string;
  status: 'A' | 'M' | 'D' | 'T';
  beforeMode: string;
  afterMode: string;
  beforeOid: string;
  afterOid: string;
}

/**
 * Writes snapshot content into the working tree. Security: every path is checked (no `..`, no `.git`,
 * not the checkpoint files), no write goes through a symlinked folder, and each file is replaced
 * atomically through a temp file created without following links.
 */
export class WorktreeWriter {
  constructor(
    private readonly root: string,
    private readonly gitDir: string,
  ) {}

  /**
   * Makes the working tree match `changes` (from the current tree to the target). Deletions first, then
   * writes, each file replaced atomically, then the empty `folders` (an undo's: git holds no folders).
   */
  async apply(
    changes: readonly TreeChange[],
    onProgress?: (done: number, total: number) => void,
    folders: readonly string[] = [],
  ): Promise<void> {
    for (const file of [...changes.map((change) => change.path), ...folders]) {
      if (!isRestorablePath(file)) {
        throw new CheckpointError(
          'UNSAFE_PATH',
          `refusing to restore '${file}': it would leave the project or touch .git`,
        );
      }
    }
    let done = 0;
    const tick = () => onProgress?.(++done, changes.length);
    // Read every blob before changing anything: a store that lost an object must fail before a single
    // file is touched, not halfway.
    const writes = changes.filter((change) => change.status !== 'D' && change.afterMode !== '160000');
    const contents = await this.readBlobs(
      writes.filter((change) => change.afterMode !== '120000').map((change) => change.afterOid),
      writes.filter((change) => change.afterMode === '120000').map((change) => change.afterOid),
    );
    for (const change of writes) {
      if (!contents.has(change.afterOid)) {
        throw new CheckpointError(
          'CORRUPT',
          `the snapshot store is missing object ${change.afterOid} for '${change.path}'; nothing was changed`,
        );
      }
    }
    const removals = changes.filter((change) => change.status === 'D' || change.status === 'T');
    for (const change of removals) {
      await this.removeFile(change.path);
      if (change.status === 'D') tick();
    }
    await this.pruneEmptyParents(
      removals.filter((change) => change.status === 'D').map((change) => change.path),
      folders,
    );
    for (const change of writes) {
      await this.writeFile(
        change.path,
        change.afterMode,
        contents.get(change.afterOid) as Buffer | LargeBlob,
      );
      tick();
    }
    for (const folder of folders) await this.makeFolder(folder);
    // The private index is left as it is: the next capture sees exactly these files as changed and
    // re-reads only them, so a restore costs what it restores, not what the tree holds.
  }

  private async safeTarget(relativePath: string): Promise<string> {
    const target = path.join(this.root, relativePath);
    const parent = path.dirname(target);
    if (parent !== this.root) {
      const real = await fsp.realpath(fsPath(parent), { encoding: 'buffer' }).catch(() => null);
      if (real !== null && !real.equals(bytesFromText(parent))) {
        throw new CheckpointError(
          'UNSAFE_PATH',
          `refusing to write '${relativePath}': a folder on its path is a symbolic link`,
        );
      }
    }
    return target;
  }

  private async removeFile(relativePath: string): Promise<void> {
    const target = await this.safeTarget(relativePath);
    const stats = await fsp.lstat(fsPath(target)).catch(() => null);
    if (!stats) return;
    if (stats.isDirectory()) await fsp.rm(fsPath(target), { recursive: true, force: true });
    else await fsp.unlink(fsPath(target));
  }

  /**
   * Removes the folders left empty by `removed`, except `kept` and the folders above them: those are
   * made again after the changes anyway (an undo's, a failed restore's rollback), and kept they keep
   * what a folder made again would not (its mode, its owner).
   */
  private async pruneEmptyParents(removed: readonly string[], kept: readonly string[]): Promise<void> {
    const keptDirs = new Set<string>();
    for (const folder of kept) {
      for (let dir = folder; dir !== '.'; dir = path.dirname(dir)) keptDirs.add(dir);
    }
    const dirs = new Set<string>();
    for (const file of removed) {
      for (let dir = path.dirname(file); dir !== '.'; dir = path.dirname(dir))
        if (!keptDirs.has(dir)) dirs.add(dir);
    }
    const deepestFirst = [...dirs].sort((a, b) => b.split('/').length - a.split('/').length);
    for (const dir of deepestFirst) await fsp.rmdir(fsPath(path.join(this.root, dir))).catch(() => undefined);
  }

  private async writeFile(relativePath: string, mode: string, content: Buffer | LargeBlob): Promise<void> {
    await this.makeParents(relativePath);
    const target = await this.safeTarget(relativePath);
    const existing = await fsp.lstat(fsPath(target)).catch(() => null);
    if (mode === '120000') {
      if (existing) await fsp.rm(fsPath(target), { recursive: true, force: true });
      // The link's target as git holds it, byte for byte.
      await fsp.symlink(content as Buffer, fsPath(target));
      return;
    }
    const executable = mode === '100755';
    let permissions: number | undefined;
    if (existing?.isFile()) {
      const kept = existing.mode & 0o777;
      permissions = executable ? kept | ((kept & 0o444) >> 2) : kept & ~0o111;
    } else if (existing) {
      await fsp.rm(fsPath(target), { recursive: true, force: true });
    }
    const temp = path.join(
      path.dirname(target),
      `.claude-checkpoint-restore-${process.pid}-${Math.random().toString(16).slice(2)}`,
    );
    const handle = await fsp.open(
      fsPath(temp),
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      executable ? 0o777 : 0o666,
    );
    try {
      try {
        if (Buffer.isBuffer(content)) await handle.writeFile(content);
        else await this.streamBlob(content.oid, handle.fd);
        if (permissions !== undefined) await handle.chmod(permissions);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fsp.rename(fsPath(temp), fsPath(target));
    } catch (error) {
      // A failed write or rename (the folder swapped under it, a name too long) leaves no temp file
      // behind (audit item 13): the rollback's snapshots never see one to take away.
      await fsp.unlink(fsPath(temp)).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Makes an empty folder (and the folders on its way) where nothing stands. Security: only real folders
   * are walked through (lstat: a link is never followed), and whatever else stands on the way is left
   * as it is, and the folder not made.
   */
  private async makeFolder(relativePath: string): Promise<void> {
    let current = this.root;
    for (const part of relativePath.split('/')) {
      current = path.join(current, part);
      const stats = await fsp.lstat(fsPath(current)).catch(() => null);
      if (stats?.isDirectory()) continue;
      if (stats) return;
      try {
        await fsp.mkdir(fsPath(current));
      } catch {
        return; // something appeared there meanwhile: left as it is
      }
    }
  }

  /** Creates missing parent folders; a file standing where a folder must go is replaced. */
  private async makeParents(relativePath: string): Promise<void> {
    const parts = relativePath.split('/').slice(0, -1);
    let current = this.root;
    for (const part of parts) {
      current = path.join(current, part);
      const stats = await fsp.lstat(fsPath(current)).catch(() => null);
      if (stats?.isDirectory()) continue;
      if (stats) await fsp.unlink(fsPath(current));
      await fsp.mkdir(fsPath(current));
    }
  }

  /**
   * Blob contents by oid, streamed from one `git cat-file --batch`. Files from LARGE_BLOB_BYTES up are
   * only checked to be there (`--batch-check`, or a loose object's header): git writes them straight
   * into their temp file later (see streamBlob), rather than through this process (issue 26: one 25 MB
   * file). `links`: symlinks' targets, always read.
   */
  private async readBlobs(
    oids: readonly string[],
    links: readonly string[] = [],
  ): Promise<Map<string, Buffer | LargeBlob>> {
    const result = new Map<string, Buffer | LargeBlob>();
    const small = new Set(links);
    let unique = [...new Set(oids)];
    // A few objects stored loose (a recent snapshot's, until a gc packs them) are looked up here, from
    // their headers: no git process only to say they are there. The others, and many, git checks.
    if (unique.length <= IN_PROCESS_MAX_OBJECTS) {
      unique = unique.filter((oid) => {
        const header = readLooseHeader(this.gitDir, oid);
        if (header?.type !== 'blob') return true;
        if (header.size >= LARGE_BLOB_BYTES) result.set(oid, { oid });
        else small.add(oid);
        return false;
      });
    }
    if (unique.length > 0) {
      const { stdout } = await runGit(
        ['--git-dir', this.gitDir, 'cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'],
        { cwd: this.root, input: `${unique.join('\n')}\n`, timeoutMs: 10 * 60_000 },
      );
      for (const line of stdout.split('\n')) {
        const [oid = '', type = '', size = ''] = line.split(' ');
        if (type !== 'blob') continue;
        if (Number(size) >= LARGE_BLOB_BYTES) result.set(oid, { oid });
        else small.add(oid);
      }
    }
    if (small.size === 0) return result;
    return new Promise((resolve, reject) => {
      const child = spawn('git', ['--git-dir', this.gitDir, 'cat-file', '--batch'], {
        cwd: this.root,
        env: gitEnvironment(),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const parser = new CatFileBatchParser(({ header, content }) => {
        const [oid = '', type = ''] = header;
        if (type !== 'missing' && oid) result.set(oid, content);
      });
      child.stdout.on('data', (chunk: Buffer) => parser.push(chunk));
      child.on('error', reject);
      child.on('close', (code) => {
        if (code === 0) resolve(result);
        else
          reject(
            new CheckpointError('GIT_FAILED', `git cat-file failed in the snapshot store (exit ${code})`),
          );
      });
      child.stdin.end(`${[...small].join('\n')}\n`);
    });
  }

  /** Has git write one blob into an open file (`fd`), its bytes never passing through this process. */
  private streamBlob(oid: string, fd: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn('git', ['--git-dir', this.gitDir, 'cat-file', 'blob', oid], {
        cwd: this.root,
        env: gitEnvironment(),
        stdio: ['ignore', fd, 'ignore'],
      });
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0
          ? resolve()
          : reject(
              new CheckpointError('GIT_FAILED', `git cat-file could not read object ${oid} (exit ${code})`),
            ),
      );
    });
  }
}
