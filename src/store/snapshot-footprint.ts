import { spawn } from 'node:child_process';
import { type BatchObject, CatFileBatchParser } from '../git/cat-file-batch.js';
import type { ObjectFormat } from '../git/oid.js';
import { gitEnvironment, runGit } from '../git/run.js';

/** A snapshot as the footprint walk sees it: its commit (whose tree and parent it follows). */
export interface WalkedSnapshot {
  id: string;
  commit: string;
}

/**
 * What each snapshot adds to the store, in bytes on disk: the objects it reaches (its commit, trees,
 * blobs, and the commit of what it kept aside with that commit's tree) that no snapshot before it in
 * `order` reaches. Walked once, each tree read once however many snapshots share it, so the cost grows
 * with the distinct objects, not with snapshots × files.
 *
 * Give the snapshots that must stay first and the rest newest first: then deleting the oldest ones, one
 * by one from the end, frees about what this says each of them adds (a repack later compresses what
 * stays further, so the store ends up at or below the figure).
 */
export async function snapshotFootprints(
  gitDir: string,
  cwd: string,
  order: readonly WalkedSnapshot[],
  format: ObjectFormat,
): Promise<Map<string, number>> {
  const owner = new Map<string, number>(); // object -> index in `order` of the first snapshot reaching it
  const blobs: string[] = [];
  const bytes = new Array<number>(order.length).fill(0);
  const oidBytes = format === 'sha256' ? 32 : 20;
  const reader = new BatchReader(gitDir, cwd);
  try {
    for (const [index, snapshot] of order.entries()) {
      let frontier = owner.has(snapshot.commit) ? [] : [snapshot.commit];
      for (const oid of frontier) owner.set(oid, index);
      while (frontier.length > 0) {
        const next: string[] = [];
        for (const object of await reader.read(frontier)) {
          const [, type = '', , disk = '0'] = object.header;
          bytes[index] = (bytes[index] ?? 0) + Number(disk);
          const add = (oid: string, isBlob: boolean) => {
            if (owner.has(oid)) return;
            owner.set(oid, index);
            if (isBlob) blobs.push(oid);
            else next.push(oid);
          };
          if (type === 'commit') {
            // A snapshot's commit: its tree, and its parent (what a restore kept aside), if any.
            for (const line of object.content.toString('utf8').split('\n')) {
              if (line === '') break;
              const [key, value] = line.split(' ');
              if ((key === 'tree' || key === 'parent') && value) add(value, false);
            }
          } else if (type === 'tree') {
            for (const entry of treeEntries(object.content, oidBytes)) {
              if (entry.mode === '160000') continue; // a submodule's commit is not in this store
              add(entry.oid, entry.mode !== '40000');
            }
          }
        }
        frontier = next;
      }
    }
  } finally {
    reader.close();
  }
  // Blobs' sizes in one pass: their content is never read.
  if (blobs.length > 0) {
    const { stdout } = await runGit(
      ['--git-dir', gitDir, 'cat-file', '--batch-check=%(objectname) %(objectsize:disk)'],
      { cwd, input: `${blobs.join('\n')}\n`, timeoutMs: 10 * 60_000 },
    );
    for (const line of stdout.split('\n')) {
      const [oid = '', disk = ''] = line.split(' ');
      const index = owner.get(oid);
      if (index !== undefined && /^\d+$/.test(disk)) bytes[index] = (bytes[index] ?? 0) + Number(disk);
    }
  }
  return new Map(order.map((snapshot, index) => [snapshot.id, bytes[index] ?? 0]));
}

/** A tree object's entries: `<mode> <name>\0<oid bytes>`, repeated. */
function* treeEntries(content: Buffer, oidBytes: number): Generator<{ mode: string; oid: string }> {
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(32, at);
    const nul = content.indexOf(0, space);
    if (space < 0 || nul < 0) return;
    const mode = content.subarray(at, space).toString('latin1');
    const oid = content.subarray(nul + 1, nul + 1 + oidBytes).toString('hex');
    at = nul + 1 + oidBytes;
    yield { mode, oid };
  }
}

/** One `git cat-file --batch` kept open: objects asked for in rounds, answered in order. */
class BatchReader {
  private readonly child;
  private readonly waiting: Array<(object: BatchObject) => void> = [];
  private failure: Error | null = null;

  constructor(gitDir: string, cwd: string) {
    this.child = spawn(
      'git',
      [
        '--git-dir',
        gitDir,
        'cat-file',
        '--batch=%(objectname) %(objecttype) %(objectsize) %(objectsize:disk)',
      ],
      { cwd, env: gitEnvironment(), stdio: ['pipe', 'pipe', 'ignore'], windowsHide: true },
    );
    const parser = new CatFileBatchParser((object) => this.waiting.shift()?.(object), 2);
    this.child.stdout.on('data', (chunk: Buffer) => parser.push(chunk));
    this.child.stdin.on('error', () => undefined);
    const fail = (error: Error) => {
      this.failure = error;
      for (const resolve of this.waiting.splice(0))
        resolve({ header: ['', 'missing'], content: Buffer.alloc(0) });
    };
    this.child.on('error', fail);
    this.child.on('close', () => fail(new Error('git cat-file ended early')));
  }

  read(oids: readonly string[]): Promise<BatchObject[]> {
    if (this.failure) return Promise.reject(this.failure);
    const answers = oids.map((_oid) => new Promise<BatchObject>((resolve) => this.waiting.push(resolve)));
    this.child.stdin.write(`${oids.join('\n')}\n`);
    return Promise.all(answers).then((objects) => {
      if (this.failure) throw this.failure;
      return objects;
    });
  }

  close(): void {
    this.child.stdin.end();
  }
}
