import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError, describeError } from '../core/errors.js';
import { HANDOFF_REFS } from '../core/handoff-message.js';
import { clipMiddle, escapeControls } from '../core/quote.js';
import { redactText } from '../core/redact.js';
import { type Surface, WORDS } from '../core/surface.js';
import { copyIntoStore } from './objects.js';
import { runGit } from './run.js';

/**
 * The handoff's only contact with a remote: the user's own git, run in the project with the user's own
 * configuration and credentials. Objects move between the remote and the private store (named to git
 * through its object-directory variables), so the project's refs, index, config and FETCH_HEAD are never
 * written.
 */

export { HANDOFF_REFS };

const NETWORK_TIMEOUT_MS = 5 * 60_000;
/** No background gc or maintenance in the user's repository on our account. */
const QUIET = ['-c', 'gc.auto=0', '-c', 'maintenance.auto=false'];

export function handoffRef(name: string): string {
  return `${HANDOFF_REFS}${name}`;
}

/** A handoff name: what git accepts in a ref, kept simple (letters, digits, `._-/`, no `..`). */
/** `field`: how the reader's surface names the value (`--name`, `name`), for the error. */
export function checkHandoffName(name: string, field = 'name'): string {
  if (
    !/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/.test(name) ||
    // git refuses a ref whose name has a part that begins with a dot (a review: `apps/.tools/main`).
    name.includes('/.') ||
    name.split('/').some((part) => part.endsWith('.lock')) ||
    name.includes('..') ||
    name.includes('//') ||
    name.endsWith('/') ||
    name.endsWith('.lock') ||
    name.endsWith('.')
  )
    throw new CheckpointError(
      'INVALID_INPUT',
      `${field} must be 1-100 characters of letters, digits and . _ - / (no "..", no part beginning with "." or ending in ".lock", not ending in "/" or "."): got '${name}'`,
    );
  return name;
}

/**
 * The remote to use: the one named, else the branch's push remote, else `origin`; it must exist.
 * `surface`: whose words name the remote argument in errors.
 */
export async function chooseRemote(
  root: string,
  named: string | undefined,
  branch: string | null,
  surface: Surface,
): Promise<string> {
  const remotes = (await runGit(['remote'], { cwd: root })).stdout.split('\n').filter(Boolean);
  let remote = named;
  // Only a remote not given at all falls back: `''` is named, and refused below as no remote here.
  if (remote === undefined && branch) {
    for (const key of [`branch.${branch}.pushRemote`, 'remote.pushDefault', `branch.${branch}.remote`]) {
      const value = (
        await runGit(['config', '--get', key], { cwd: root, okExitCodes: [0, 1] })
      ).stdout.trim();
      if (value && remotes.includes(value)) {
        remote = value;
        break;
      }
    }
  }
  remote ??= 'origin';
  checkRemoteName(remote, surface);
  if (!remotes.includes(remote))
    throw new CheckpointError(
      'INVALID_INPUT',
      remotes.length === 0
        ? // The field's name only where the user gave one: no --remote was given, none is wrong.
          `${named !== undefined ? `remote '${escapeControls(named)}' does not exist here: ` : ''}this repository has no remote to hand off through (add one with \`git remote add\`)`
        : `remote '${escapeControls(remote)}' does not exist here; the remotes are: ${remotes.map((name) => escapeControls(name)).join(', ')}`,
    );
  return remote;
}

/**
 * Security: a remote's name comes from the repository's config or the command line, and one that starts
 * with "-" (`--upload-pack=<command>`) would be read by git as an option that runs a command. It is
 * refused here, and every call below also passes it after `--`.
 */
function checkRemoteName(remote: string, surface: Surface): void {
  if (remote.startsWith('-'))
    throw new CheckpointError(
      'INVALID_INPUT',
      `remote '${escapeControls(remote)}' starts with "-", which git would read as an option: it is not used (rename it with git remote rename, or ${WORDS[surface].otherRemote})`,
    );
}

/**
 * The remote's URL as git resolves it (`insteadOf` applied), which names the repository whatever the
 * remote is called here; no network call. Security: without the user and password a URL may carry
 * (`https://user:token@host/...`), since it is kept in the store.
 */
export async function remoteUrl(root: string, remote: string): Promise<string> {
  const { stdout } = await runGit(['remote', 'get-url', '--', remote], { cwd: root });
  return stdout.trim().replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/@]*@/, '$1');
}

/** The handoff refs on the remote (all, or one name), as ref → commit. */
export async function listRemoteHandoffs(
  root: string,
  remote: string,
  name?: string,
): Promise<Map<string, string>> {
  const pattern = name === undefined ? `${HANDOFF_REFS}*` : handoffRef(name);
  const { stdout } = await network(['ls-remote', '--refs', '--', remote, pattern], root, remote, {});
  const refs = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const [oid, ref] = line.split('\t');
    if (oid && ref?.startsWith(HANDOFF_REFS)) refs.set(ref, oid);
  }
  return refs;
}

/**
 * Every object id the remote advertises now (its branches, tags peeled or not, HEAD, handoffs): what
 * `git push` takes the remote to have, and so skips. One round-trip to the remote.
 */
export async function advertisedObjects(root: string, remote: string): Promise<string[]> {
  const { stdout } = await network(['ls-remote', '--', remote], root, remote, {});
  const oids = new Set<string>();
  for (const line of stdout.split('\n')) {
    const oid = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)\t/.exec(line)?.[1];
    if (oid) oids.add(oid);
  }
  return [...oids];
}

/**
 * Fetches handoff commits (ref → commit) from the remote into the store's objects (nothing in the project
 * changes), and makes sure the store can read them on its own: their commits, and with `content` their
 * trees and files too. Returns the handoffs fetched: another machine may drop or push over one between
 * the listing and this fetch. With `gone: 'skip'` (a listing) one dropped is left out, and one pushed
 * over is listed again and read at its new commit (a second time, if it moved again meanwhile); with
 * `'refuse'` (a pull of one) either is an error that says so.
 */
export async function fetchIntoStore(
  root: string,
  remote: string,
  handoffs: ReadonlyMap<string, string>,
  objects: { store: string; project: string },
  /** `surface`: whose words name the handoff's name (`--name`, `name`) in the error of a `'refuse'`. */
  options: { content: boolean; gone: 'skip' } | { content: boolean; gone: 'refuse'; surface: Surface },
): Promise<{ refs: Map<string, string>; notices: string[] }> {
  const wanted = new Map(handoffs);
  const notices: string[] = [];
  let fetching = [...wanted.keys()];
  for (let round = 1; ; round++) {
    for (const ref of await fetchPresent(root, remote, fetching, objects, options)) wanted.delete(ref);
    const types = await objectTypes(objects, [...wanted.values()]);
    // A ref at a tag or a blob is no handoff (nothing a push of ours makes): left out, as a commit that
    // is not a handoff is, and never taken for one pushed over (review 6: it failed the whole list).
    for (const [ref, oid] of wanted) {
      const type = types.get(oid);
      if (type === undefined || type === 'commit') continue;
      if (options.gone === 'refuse') throw notAHandoff(ref, remote, `its ref names a ${type}, not a commit`);
      wanted.delete(ref);
    }
    // A handoff pushed over since the listing: the fetch brought the new commit, not the one listed.
    const moved = [...wanted.keys()].filter((ref) => !types.has(wanted.get(ref) as string));
    if (moved.length === 0) break;
    const named = escapeControls((moved[0] as string).slice(HANDOFF_REFS.length));
    if (options.gone === 'refuse')
      throw new CheckpointError(
        'GIT_FAILED',
        `handoff '${named}' on remote '${escapeControls(remote)}' changed while this command ran (someone pushed it again): nothing was changed; run it again to see the new one`,
      );
    if (round === 2) {
      // Still moving: someone is pushing it again and again. The rest of the list is still good.
      for (const ref of moved) {
        wanted.delete(ref);
        notices.push(
          `handoff '${escapeControls(ref.slice(HANDOFF_REFS.length))}' on remote '${escapeControls(remote)}' is left out: it changed twice while this command read it (someone is pushing it again); run it again to see it`,
        );
      }
      break;
    }
    // Listed again: where the fetch found it (its commit is here now), or further on (fetched again).
    const now = await listRemoteHandoffs(root, remote);
    const again = await objectTypes(
      objects,
      moved.flatMap((ref) => now.get(ref) ?? []),
    );
    fetching = [];
    for (const ref of moved) {
      const commit = now.get(ref);
      if (commit === undefined) wanted.delete(ref);
      else {
        wanted.set(ref, commit);
        if (!again.has(commit)) fetching.push(ref);
      }
    }
  }
  await copyIntoStore(path.dirname(objects.store), objects.project, [...wanted.values()], options);
  return { refs: wanted, notices };
}

/** The error for a handoff ref that names no handoff (a tag, a blob, a commit of something else). */
export function notAHandoff(ref: string, remote: string, why: string): CheckpointError {
  return new CheckpointError(
    'CORRUPT',
    `'${escapeControls(ref.slice(HANDOFF_REFS.length))}' on remote '${escapeControls(remote)}' is not a handoff (${why}): nothing was changed`,
  );
}

/**
 * Fetches these handoff refs. Returns those dropped since they were listed: with `gone: 'skip'` the rest
 * are fetched; with `'refuse'` that is an error that says so.
 */
async function fetchPresent(
  root: string,
  remote: string,
  refs: readonly string[],
  objects: { store: string; project: string },
  options: { gone: 'skip' } | { gone: 'refuse'; surface: Surface },
): Promise<string[]> {
  let wanted = [...refs];
  const dropped: string[] = [];
  for (let attempt = 1; wanted.length > 0; attempt++) {
    try {
      await fetchRefs(root, remote, wanted, objects);
      break;
    } catch (error) {
      // A handoff dropped since the listing: gone, not a remote out of reach (trial of issue 26).
      const gone = /couldn't find remote ref (\S+)/.exec(describeError(error))?.[1];
      if (gone === undefined || attempt === 3) throw error;
      const now = await listRemoteHandoffs(root, remote);
      if (options.gone === 'refuse' && !now.has(gone))
        throw new CheckpointError(
          'INVALID_INPUT',
          `${WORDS[options.surface].handoffNameField}: handoff '${escapeControls(gone.slice(HANDOFF_REFS.length))}' was dropped from remote '${escapeControls(remote)}' while this command ran (it is no longer there)`,
        );
      dropped.push(...wanted.filter((ref) => !now.has(ref)));
      wanted = wanted.filter((ref) => now.has(ref));
    }
  }
  return dropped;
}

async function fetchRefs(
  root: string,
  remote: string,
  refs: readonly string[],
  objects: { store: string; project: string },
): Promise<void> {
  await network(
    [
      ...QUIET,
      // The objects land in the private store: owner-only, like everything else in it, whatever the umask.
      '-c',
      'core.sharedRepository=0600',
      'fetch',
      '--quiet',
      '--no-write-fetch-head',
      '--no-tags',
      '--no-recurse-submodules',
      '--',
      remote,
      ...refs,
    ],
    root,
    remote,
    { GIT_OBJECT_DIRECTORY: objects.store, GIT_ALTERNATE_OBJECT_DIRECTORIES: objects.project },
  );
}

/** Which of these commits the store (or the project, which it borrows from) holds. */
async function objectTypes(
  objects: { store: string; project: string },
  commits: readonly string[],
): Promise<Map<string, string>> {
  if (commits.length === 0) return new Map();
  const gitDir = path.dirname(objects.store);
  const { stdout } = await runGit(
    ['--git-dir', gitDir, 'cat-file', '--batch-check=%(objectname) %(objecttype)'],
    {
      cwd: gitDir,
      input: `${commits.join('\n')}\n`,
      extraEnv: { GIT_ALTERNATE_OBJECT_DIRECTORIES: objects.project },
    },
  );
  const types = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const [oid, type] = line.split(' ');
    // "<oid> missing": not here.
    if (oid && type && type !== 'missing') types.set(oid, type);
  }
  return types;
}

/**
 * Pushes a commit of the store to the handoff ref. `expected` is the remote's ref as this machine last
 * saw it (`null`: must not exist yet); `seenElsewhere`, the commits this machine pushed or pulled under
 * that name on any remote; `pushedFrom`, where the handoff found there was pushed from when that is
 * another folder of the repository than this project's (in words), else null; `force` replaces whatever is there. `surface`: whose words a refusal says how
 * to replace it in. With `verify`, the project's pre-push hook runs, as for `git push`.
 */
export async function pushFromStore(
  root: string,
  remote: string,
  commit: string,
  ref: string,
  lease:
    | {
        expected: string | null;
        seenElsewhere?: readonly string[];
        pushedFrom?: (commit: string) => Promise<string | null>;
      }
    | 'force',
  storeObjects: string,
  surface: Surface,
  options: { verify: boolean },
): Promise<void> {
  const leaseArgs = lease === 'force' ? [] : [`--force-with-lease=${ref}:${lease.expected ?? ''}`];
  const refspec = `${lease === 'force' ? '+' : ''}${commit}:${ref}`;
  // The store's objects are named to git, and so to the hook it runs: a pre-push scanner reads the commit.
  const answer = await pushRef(root, remote, ref, leaseArgs, refspec, options.verify, {
    GIT_ALTERNATE_OBJECT_DIRECTORIES: storeObjects,
  });
  const words = WORDS[surface];
  const name = ref.slice(HANDOFF_REFS.length);
  switch (answer.kind) {
    case 'done':
      return;
    case 'hook refused':
      throw new CheckpointError(
        'GIT_FAILED',
        `${hookRefused(answer)}; nothing was pushed: fix what it reports, or ${words.skipPrePush}`,
      );
    case 'remote refused':
      throw new CheckpointError(
        'GIT_FAILED',
        `${remoteRefused(remote, ref, answer)}; nothing was pushed: ask whoever runs the remote, or hand off through another (${words.otherRemote})`,
      );
    case 'failed':
      throw new CheckpointError('GIT_FAILED', `the push to remote '${remote}' failed: ${answer.said}`);
    case 'stale':
      break;
  }
  const now = lease === 'force' ? undefined : (await listRemoteHandoffs(root, remote, name)).get(ref);
  // A handoff dropped since this machine last saw it is nobody's work any more: push it as a new one
  // (and still refuse if someone pushed one under that name meanwhile).
  if (lease !== 'force' && lease.expected !== null && now === undefined)
    return pushFromStore(root, remote, commit, ref, { expected: null }, storeObjects, surface, options);
  // One this machine pushed or pulled, known here under another remote's URL (one whose URL the user
  // changed, from https to ssh say): the commit is that very handoff, so it is this machine's to replace.
  if (lease !== 'force' && now !== undefined && now !== lease.expected && lease.seenElsewhere?.includes(now))
    return pushFromStore(root, remote, commit, ref, { expected: now }, storeObjects, surface, options);
  // Another package's handoff (its own store, so never this project's to know): not another machine's,
  // and neither a pull here nor --force is the way (a review: both were suggested, in a monorepo).
  const from =
    lease !== 'force' && lease.expected === null && now !== undefined ? await lease.pushedFrom?.(now) : null;
  if (from)
    throw new CheckpointError(
      'GIT_FAILED',
      `the handoff named '${name}' on ${remote} was pushed ${from}: it is not this project's; push yours under another name (${words.handoffName} <other>)`,
    );
  // Never pushed or pulled at this address, but under this name elsewhere: perhaps this very repository
  // before a `git remote set-url`, its handoff pushed over since; perhaps another repository. The message
  // holds for both (a review: "which this machine has not pushed or pulled" of one it had pushed).
  if (lease !== 'force' && lease.expected === null && (lease.seenElsewhere?.length ?? 0) > 0)
    throw new CheckpointError(
      'GIT_FAILED',
      `the handoff named '${name}' on ${remote} is not one this machine pushed or pulled at this remote's address; this machine did push or pull a handoff of that name at another address (if that was this repository before its URL changed, someone pushed over it since): ${words.pullFirst(name)}, push yours under another name (${words.handoffName} <other>), or ${words.replaceHandoff}`,
    );
  // Never pushed or pulled here: not a handoff that "changed", but another machine's (issue 26).
  if (lease !== 'force' && lease.expected === null)
    throw new CheckpointError(
      'GIT_FAILED',
      `another machine pushed a handoff named '${name}' to ${remote}, which this machine has not pushed or pulled: push yours under another name (${words.handoffName} <other>), ${words.pullFirst(name)}, or ${words.replaceHandoff}`,
    );
  throw new CheckpointError(
    'GIT_FAILED',
    `the handoff ${ref} on ${remote} changed since this machine last pushed or pulled it (someone else's handoff?): ${words.pullFirst(name)}, or ${words.replaceHandoff}`,
  );
}

/**
 * Deletes `ref` on the remote, only while it still points at `expected` (the commit the person was shown):
 * a handoff pushed over it in the meantime is someone's newer work, and stays. With `verify`, the
 * project's pre-push hook runs, as for `git push --delete`. False when another machine dropped it first.
 */
export async function deleteRemoteRef(
  root: string,
  remote: string,
  ref: string,
  expected: string,
  options: { verify: boolean },
): Promise<boolean> {
  const answer = await pushRef(
    root,
    remote,
    ref,
    [`--force-with-lease=${ref}:${expected}`],
    `:${ref}`,
    options.verify,
    {},
  );
  switch (answer.kind) {
    case 'done':
      return true;
    case 'stale':
      // Dropped by another machine meanwhile: nothing left to delete, and nobody's work lost.
      if (!(await listRemoteHandoffs(root, remote, ref.slice(HANDOFF_REFS.length))).has(ref)) return false;
      throw new CheckpointError('GIT_FAILED', handoffChangedSinceListed(ref, remote));
    case 'hook refused':
      throw new CheckpointError(
        'GIT_FAILED',
        `${hookRefused(answer)}; nothing was deleted: fix what it reports, or pass --no-verify to drop it without running the hook (as git push --no-verify)`,
      );
    case 'remote refused':
      throw new CheckpointError('GIT_FAILED', `${remoteRefused(remote, ref, answer)}; nothing was deleted`);
    case 'failed':
      throw new CheckpointError('GIT_FAILED', `the push to remote '${remote}' failed: ${answer.said}`);
  }
}

/** Why a drop deleted nothing: the handoff is no longer the one the person was shown. */
export function handoffChangedSinceListed(ref: string, remote: string): string {
  return `the handoff ${ref} on ${remote} changed since it was listed (someone pushed it again): nothing was deleted; list it again before dropping it`;
}

/** How one `git push` of one ref ended, from git's own status line for that ref (`--porcelain`). */
type PushAnswer =
  | { kind: 'done' }
  /** The lease failed: the remote's ref is not what this machine expected (another machine's push). */
  | { kind: 'stale' }
  /** The remote itself said no (a hook or a rule there): `reason` is git's, `said` the remote's own lines. */
  | { kind: 'remote refused'; reason: string; said: string[] }
  /** The project's pre-push hook stopped it before anything was sent; `said` is what the hook printed. */
  | { kind: 'hook refused'; hook: string; said: string[] }
  | { kind: 'failed'; said: string };

async function pushRef(
  root: string,
  remote: string,
  ref: string,
  leaseArgs: readonly string[],
  refspec: string,
  verify: boolean,
  extraEnv: Record<string, string>,
): Promise<PushAnswer> {
  const result = await network(
    [
      ...QUIET,
      'push',
      '--porcelain',
      ...(verify ? [] : ['--no-verify']),
      ...leaseArgs,
      '--',
      remote,
      refspec,
    ],
    root,
    remote,
    extraEnv,
    [0, 1],
  );
  // `<flag>\t<from>:<to>\t<summary>`, e.g. `!\t:refs/x\t[remote rejected] (pre-receive hook declined)`.
  const status = result.stdout
    .split('\n')
    .map((line) => line.split('\t'))
    .find((fields) => fields.length >= 3 && fields[1]?.endsWith(`:${ref}`));
  if (result.exitCode === 0) return { kind: 'done' };
  if (status === undefined) {
    // No status line: git stopped before sending, which with exit 1 is the pre-push hook's refusal.
    const hook = verify
      ? (
          await runGit(['rev-parse', '--git-path', 'hooks/pre-push'], { cwd: root, okExitCodes: [0, 128] })
        ).stdout.trim()
      : '';
    if (hook === '' || !(await isExecutable(path.resolve(root, hook))))
      return { kind: 'failed', said: lastLine(redactText(result.stderr).text) };
    // The hook's own output goes to git's stdout and stderr.
    return { kind: 'hook refused', hook, said: saidLines(`${result.stdout}\n${result.stderr}`, 'hook') };
  }
  const summary = status[2] ?? '';
  const said = saidLines(result.stderr, 'remote');
  if (summary.startsWith('[remote rejected]') || summary.startsWith('[remote failure]'))
    return { kind: 'remote refused', reason: summary.replace(/^\[[^\]]*\]\s*/, ''), said };
  if (summary.startsWith('[rejected]')) return { kind: 'stale' };
  return { kind: 'failed', said: `${summary}${said.length > 0 ? `: ${said.join(' | ')}` : ''}` };
}

/**
 * What the pre-push hook or the remote printed, for a one-line message: git's own lines dropped, the
 * remote's `remote:` prefix and padding taken off, at most a few lines, each clipped.
 *
 * Security: a hook or a remote may echo what it found (a secret scanner prints its match), and the
 * message reaches a model through the MCP tools: redacted like every other text, and as a whole before
 * it is cut into lines, so that a secret over several lines (a private key's body) is caught whole.
 */
function saidLines(output: string, from: 'remote' | 'hook'): string[] {
  const lines = redactText(output)
    .text.split('\n')
    // The remote's lines only: a pre-push hook that let the push through may have printed too.
    .filter((line) => from === 'hook' || line.startsWith('remote:'))
    .map((line) => line.replace(/^remote:\s?/, '').trimEnd())
    .filter((line) => line.trim() !== '' && !(from === 'hook' && isGitsOwnLine(line)));
  const kept = lines.slice(0, SAID_MAX_LINES).map((line) => clipMiddle(line.trim(), 200));
  if (lines.length > SAID_MAX_LINES) kept.push(`(${lines.length - SAID_MAX_LINES} more lines)`);
  return kept;
}

/**
 * git's own lines among a refused push's output: its closing error, and `--porcelain`'s `To <url>` and
 * `Done` (one word after `To`, so that a hook's "To skip this, ..." stays).
 */
function isGitsOwnLine(line: string): boolean {
  return /^(error: failed to push some refs|To \S+$|Done$)/.test(line);
}

const SAID_MAX_LINES = 8;

function hookRefused(answer: { hook: string; said: string[] }): string {
  const said = answer.said.length > 0 ? `: ${answer.said.join(' | ')}` : ' (it printed nothing)';
  return `this repository's pre-push hook (${answer.hook}) refused the push, as it refuses \`git push\`${said}`;
}

function remoteRefused(remote: string, ref: string, answer: { reason: string; said: string[] }): string {
  const said = answer.said.length > 0 ? `: ${answer.said.join(' | ')}` : '';
  // Another handoff's name in the way of this one's in git's refs (`web` and `web/main`): a review found it
  // blamed on the remote.
  // git says `'…/web/main' exists; cannot create '…/web'` either way round; a lock it could not take is
  // the remote's own trouble (a review).
  if (/exists; cannot create/i.test(`${answer.reason} ${answer.said.join(' ')}`))
    return `remote '${remote}' refused ${ref}: another handoff's name is in its way (a handoff named as a folder of this name, or this name as a folder of that one's: \`web\` and \`web/main\` cannot both be)${said}; push under another name with --name (see \`handoff list\`)`;
  return `remote '${remote}' refused ${ref}${answer.reason ? ` ${answer.reason}` : ''}${said} (the remote's own rule, a hook or a permission there, not another machine's handoff)`;
}

async function isExecutable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}

function lastLine(text: string): string {
  return text.trim().split('\n').filter(Boolean).at(-1) ?? 'no reason given';
}

/** A network git call: the user's config and credentials, a long timeout, a one-line error. */
async function network(
  args: readonly string[],
  root: string,
  remote: string,
  extraEnv: Record<string, string>,
  okExitCodes: readonly number[] = [0],
) {
  try {
    return await runGit(args, { cwd: root, timeoutMs: NETWORK_TIMEOUT_MS, extraEnv, okExitCodes });
  } catch (error) {
    const detail = (error as Error).message.split('\n')[0] ?? '';
    throw new CheckpointError('GIT_FAILED', `could not reach remote '${remote}': ${detail}`, {
      cause: error,
    });
  }
}
