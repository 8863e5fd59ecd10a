import { existsSync, lstatSync, readdirSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import { mayFilterOnCheckin } from '../git/filters.js';
import type { ObjectFormat } from '../git/oid.js';
import { readHead } from '../git/repo.js';
import { runGit } from '../git/run.js';
import { gitEnvironment } from '../git/spawn.js';
import { prepareFileWrite, writeFileAtomicSync } from './atomic-write.js';
import { nodeFs, readTextOrNull, removeQuietly } from './fs-seam.js';
import { localProbe } from './lock-owner.js';
import { objectFormatOf } from './loose-object.js';
import { ensureStoreFolders, refuseStoreFolderLink } from './store-folder.js';
import { GIT_LONG_TIMEOUT_MS, type StoreGit } from './store-git.js';

/**
 * Our scans ask for every untracked file (`--untracked-files=all`), and git keeps the untracked cache
 * for a scan only when the repository's own setting asks for the same: without this, every snapshot
 * read every folder again (a third of a scan of 100,000 files).
 */
const UNTRACKED_CACHE_FOR_ALL = ['[status]', '\tshowUntrackedFiles = all'];

/**
 * Reads the store's config once per call: stores set up by an earlier version get the settings added
 * since, and the object format the commits are written in comes from the same read. Synchronous, like
 * the other checks every snapshot makes before its scan: a small file read in place.
 */
async function readConfig(gitDir: string): Promise<ObjectFormat> {
  const file = path.join(gitDir, 'config');
  const config = readTextOrNull(file);
  // Whole and atomic, as at set-up: a kill halfway through an append would leave a config git refuses.
  if (config !== null && !/^\s*showuntrackedfiles\s*=/im.test(config))
    writeFileAtomicSync(
      file,
      `${config}${config.endsWith('\n') ? '' : '\n'}${UNTRACKED_CACHE_FOR_ALL.join('\n')}\n`,
    );
  return objectFormatOf(config ?? '');
}

/**
 * The branch every snapshot moves (see recordSnapshot), which HEAD names so that each status compares with
 * the latest snapshot. `git init` names the user's init.defaultBranch instead (`main`, say), and
 * --initial-branch needs git 2.28: HEAD is pointed here after init.
 */
const MASTER = 'refs/heads/master';

/** A store an earlier version set up under init.defaultBranch has its HEAD on that branch, unborn. */
async function pointHeadAtMaster(gitDir: string, git: StoreGit): Promise<void> {
  const head = readTextOrNull(path.join(gitDir, 'HEAD'));
  if (head === null || head === `ref: ${MASTER}\n` || !head.startsWith('ref: ')) return;
  await git(['symbolic-ref', 'HEAD', MASTER]);
}

/** The line our settings follow in the store's config, after what `git init` wrote. */
const OUR_SETTINGS = '# claude-checkpoint settings (below): rewritten whole at set-up';

/** Where the set-up stands; a test interrupts it at each step as a kill would (see initStore). */
export type SetupStep = 'init' | 'head' | 'config' | 'info' | 'borrow-index' | 'borrow-head' | 'ready';

/**
 * Creates the shadow repository on first use, or repairs one whose set-up was interrupted, and says in
 * which object format it stores. Call it holding the lock. Every step can run again after a kill at any
 * point: the ready marker is written last, and until it is there the next call redoes the set-up.
 * `interrupt` is for tests only: it is told each step before it runs and may throw, as a kill would.
 */
export async function initStore(
  root: string,
  storeDir: string,
  gitDir: string,
  git: StoreGit,
  interrupt: (step: SetupStep) => void = () => {},
): Promise<ObjectFormat> {
  const ready = path.join(gitDir, 'claude-checkpoint-ready');
  refuseStoreFolderLink(gitDir);
  if (existsSync(ready)) {
    await pointHeadAtMaster(gitDir, git);
    return readConfig(gitDir);
  }
  refuseForeignGitDir(gitDir);
  // A set-up cut short may have left our settings after git's own: a key set twice makes `git init`
  // fail for good ("could not set 'core.filemode'"; issue 26). Back to git's own part, and no lock file
  // of a git that was killed (we hold our lock: no git of ours runs here).
  cutToGitsOwnConfig(gitDir);
  for (const lock of ['config.lock', 'HEAD.lock', path.join('refs', 'heads', 'master.lock')])
    removeQuietly(path.join(gitDir, lock));
  ensureStoreFolders([gitDir]);
  writeFileAtomicSync(path.join(gitDir, SETUP_MARKER), `${root}\n`);
  interrupt('init');
  // Owner-only files and folders whatever the umask (--shared=0600), and no sample hooks (--template=).
  await runGit(['init', '--quiet', '--bare', '--shared=0600', '--template=', gitDir], { cwd: storeDir });
  interrupt('head');
  await git(['symbolic-ref', 'HEAD', MASTER]);
  interrupt('config');
  writeStoreConfig(gitDir);
  interrupt('info');
  await fsp.mkdir(path.join(gitDir, 'info'), { recursive: true, mode: 0o700 });
  await borrowFromProjectRepo(root, gitDir, git, interrupt);
  interrupt('ready');
  writeFileAtomicSync(ready, `${root}\n`);
  return readConfig(gitDir);
}

/** Written in the store's git folder before `git init` runs there: the set-up that follows is ours. */
const SETUP_MARKER = 'claude-checkpoint-setup';

/**
 * Security: `git init` (and the config, HEAD and index written after it) runs only in a folder that is
 * missing, empty, or one whose set-up we began: never over another repository's `.git` or anything else
 * found in the store's place (safety audit of 2026-12-07, item 2). A set-up an earlier version began has
 * no marker, but `git init --shared=0600` wrote its config.
 */
function refuseForeignGitDir(gitDir: string): void {
  let names: string[];
  try {
    names = readdirSync(gitDir);
  } catch {
    return; // missing: git init makes it
  }
  if (names.length === 0 || names.includes(SETUP_MARKER)) return;
  const config = readTextOrNull(path.join(gitDir, 'config')) ?? '';
  if (/^\s*sharedrepository\s*=\s*0600\s*$/im.test(config) && /^\s*bare\s*=\s*true\s*$/im.test(config))
    return;
  throw new CheckpointError(
    'UNSAFE_PATH',
    `refusing to set up the snapshot store in ${gitDir}: it holds files the store did not make (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', ...' : ''}). Nothing was written there; move it away and try again.`,
  );
}

/**
 * The part of the store's config that `git init` wrote: up to our settings' line, or (a store an
 * earlier version began to set up) up to the second `[core]` section, which was ours.
 */
export function gitsOwnConfig(config: string): string {
  const lines = config.split('\n');
  let cores = 0;
  const end = lines.findIndex(
    (line) => line === OUR_SETTINGS || (/^\s*\[core\]\s*$/i.test(line) && ++cores === 2),
  );
  if (end === -1) return config;
  return lines.slice(0, end).join('\n') + (end > 0 ? '\n' : '');
}

function cutToGitsOwnConfig(gitDir: string): void {
  const file = path.join(gitDir, 'config');
  const config = readTextOrNull(file);
  if (config === null) return;
  const own = gitsOwnConfig(config);
  if (own !== config) writeFileAtomicSync(file, own);
}

/** git's own config and then ours, written whole and atomically (a rename), so a kill leaves one or the other. */
function writeStoreConfig(gitDir: string): void {
  const file = path.join(gitDir, 'config');
  const own = gitsOwnConfig(readTextOrNull(file) ?? '');
  const ours = [
    OUR_SETTINGS,
    '[core]',
    '\tbare = false',
    '\tautocrlf = false',
    '\tsafecrlf = false',
    '\tsymlinks = true',
    '\tfilemode = true',
    '\tfsmonitor = false',
    '\tlogAllRefUpdates = false',
    `\thooksPath = ${path.join(gitDir, 'no-hooks')}`,
    '\tuntrackedCache = true',
    // Each index write then rewrites only the entries that changed, not the whole 100k-entry index.
    '\tsplitIndex = true',
    ...UNTRACKED_CACHE_FOR_ALL,
    '[gc]',
    '\tauto = 0',
    '[maintenance]',
    '\tauto = false',
    '[commit]',
    '\tgpgSign = false',
    '[index]',
    '\tthreads = true',
    // Index v4, the untracked cache and no index checksum: what git recommends for large trees.
    '[feature]',
    '\tmanyFiles = true',
    '',
  ].join('\n');
  writeFileAtomicSync(file, `${own}${own === '' || own.endsWith('\n') ? '' : '\n'}${ours}`);
}

/**
 * When the project is the top of a git repository, start from a copy of its index and read its
 * objects through `alternates`, so the first snapshot hashes only the dirty files instead of the whole
 * tree. Both are read, never written. `gc` copies the borrowed objects into the store and stops
 * borrowing, so the store then no longer depends on what the repository keeps.
 */
async function borrowFromProjectRepo(
  root: string,
  gitDir: string,
  git: StoreGit,
  interrupt: (step: SetupStep) => void,
): Promise<void> {
  // A store whose branch exists borrowed already, or holds snapshots that a new borrow would hide.
  if (hasMaster(gitDir)) return;
  let stdout: string;
  try {
    ({ stdout } = await runGit(
      [
        'rev-parse',
        '--show-prefix',
        '--show-object-format',
        '--path-format=absolute',
        '--git-common-dir',
        '--git-path',
        'index',
      ],
      { cwd: root },
    ));
  } catch {
    return; // not a repository, or git too old for --path-format: start empty
  }
  const [prefix, format, commonDir, indexPath] = stdout.split('\n');
  if (prefix !== '' || format !== 'sha1' || !commonDir || !indexPath) return;
  // The index's blobs are what git stored, after its clean filters and EOL conversion: a file the copy
  // calls unchanged would keep them, and a restore would write those bytes instead of the file's own (a
  // trial: a CRLF file came back LF). Where any attribute or config may convert, start empty.
  if (mayFilterOnCheckin(root, ['.gitattributes'], gitEnvironment())) return;
  const head = await readHead(root);
  if (!head) return;
  const shared = await fsp.readdir(path.dirname(indexPath)).catch(() => [] as string[]);
  if (shared.some((name) => name.startsWith('sharedindex.'))) return; // a split index cannot be copied alone
  interrupt('borrow-index');
  try {
    const source = await fsp.stat(indexPath);
    const copy = path.join(gitDir, 'index.claude-checkpoint-copy');
    removeQuietly(copy); // left by a kill
    // Security: 0600 from the first byte (copyFile would give the original's mode until a chmod), and in
    // place by a rename: a kill leaves no index, or the whole copy.
    const write = prepareFileWrite(nodeFs, path.join(gitDir, 'index'), await fsp.readFile(indexPath), {
      durable: false,
      tempName: path.basename(copy),
    });
    // The copy keeps the original's time: git compares each file's mtime with the index's to catch
    // edits made in the same second as the index was written ("racy git"). A newer copy would make
    // git trust stale stat data and miss such an edit.
    await fsp.utimes(copy, source.atime, source.mtime);
    write.commit();
  } catch {
    return; // no index yet
  }
  await fsp.mkdir(path.join(gitDir, 'objects', 'info'), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(
    path.join(gitDir, 'objects', 'info', 'alternates'),
    `${path.join(commonDir, 'objects')}\n`,
  );
  interrupt('borrow-head');
  // HEAD at the project's commit, so the first status lists only what differs from it; and the copied
  // index rewritten in the store's own format (v4, untracked cache, split).
  await git(['update-ref', 'refs/heads/master', head.head]);
  await git(['update-index', '--index-version', '4', '--untracked-cache', '--split-index']);
}

function hasMaster(gitDir: string): boolean {
  if (existsSync(path.join(gitDir, MASTER))) return true;
  const packed = readTextOrNull(path.join(gitDir, 'packed-refs')) ?? '';
  return packed.split('\n').some((line) => line.endsWith(` ${MASTER}`));
}

/**
 * A killed owner's git child lives on: a `git gc --prune=now` still running would delete the objects
 * the next call writes. git names it in gc.pid until it exits.
 */
export async function waitForOrphanedGc(gitDir: string): Promise<void> {
  const gcPid = path.join(gitDir, 'gc.pid');
  const deadline = Date.now() + GIT_LONG_TIMEOUT_MS;
  for (;;) {
    const text = readTextOrNull(gcPid);
    const [pid, host] = (text ?? '').trim().split(/\s+/);
    const owner = Number(pid);
    if (!text || host !== localProbe().host || !Number.isSafeInteger(owner) || !localProbe().isAlive(owner))
      return;
    if (Date.now() > deadline) return; // git's own gc.pid rules take over from here
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A killed owner's other git children live on too, and one may still hold index.lock: removing that
 * file under it would let its final rename take the next call's lock away ("Unable to write new index
 * file"). Wait while a git process of this store still runs (Linux: its command line names our git dir;
 * elsewhere: while the lock file is younger than a second), then the leftover is safe to remove.
 * Says whether there is a leftover.
 */
export async function waitForOrphanedGit(gitDir: string): Promise<boolean> {
  const lockFile = path.join(gitDir, 'index.lock');
  const deadline = Date.now() + GIT_LONG_TIMEOUT_MS;
  const marker = `\0--git-dir\0${gitDir}\0`;
  for (;;) {
    const stats = lstatSync(lockFile, { throwIfNoEntry: false });
    if (!stats) return false;
    if (Date.now() > deadline) return true;
    const running = await gitOfStoreRunning(marker);
    if (running === false) return true;
    if (running === null && Date.now() - stats.mtimeMs > 1_000) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether a process's command line contains `marker`; `null` where /proc cannot tell. */
async function gitOfStoreRunning(marker: string): Promise<boolean | null> {
  const pids = await fsp.readdir('/proc').catch(() => null);
  if (!pids) return null;
  for (const pid of pids) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const cmdline = await fsp.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.startsWith('git\0') || cmdline.includes('/git\0')) {
      if (`\0${cmdline}`.includes(marker)) return true;
    }
  }
  return false;
}

/**
 * Each folder made where missing (0700), refused where a link or anything but a folder stands in its
 * place (see store-folder.ts). In the usual case, where all exist already, that is one lstat each.
 */
export async function ensurePrivateDirs(dirs: readonly string[]): Promise<void> {
  ensureStoreFolders(dirs);
}
