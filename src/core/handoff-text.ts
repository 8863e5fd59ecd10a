import type { LeftOut } from './drift.js';
import { NO_GIT_IDENTITY } from './handoff-author.js';
import { HANDOFF_REFS } from './handoff-message.js';
import { CHECKPOINT_FILE } from './paths.js';
import { escapeControls, quotePath, shellWord } from './quote.js';
import { changesNothing, planSize, type RestorePlan } from './snapshot.js';
import { renderCheckpointSwap, renderGuarded, renderPlan } from './snapshot-text.js';
import { type Reader, wordsOf } from './surface.js';

/**
 * How a person or a model is told about handoffs: the same text in the CLI and the MCP tools, but for
 * what to do next, which each surface says in its own words (`surface`, the tools' by default).
 */

/** What a push did; it ends with how to pull it elsewhere, in the reader's words. */
export function renderPushed(
  outcome: {
    author: string;
    remote: string;
    ref: string;
    commit: string;
    base: string;
    files: { added: string[]; modified: string[]; deleted: string[] };
    checkpointNotice?: string;
    skipped: {
      large: Array<{ path: string }>;
      nested: string[];
      invalidNames?: string[];
      unreadable?: Array<{ path: string; reason: string }>;
    };
  },
  surface: Reader = 'mcp',
): string {
  const { added, modified, deleted } = outcome.files;
  const name = outcome.ref.split('/').slice(3).join('/');
  return [
    `Pushed handoff ${escapeControls(outcome.ref)} to ${escapeControls(outcome.remote)} (${outcome.commit.slice(0, 12)}, on commit ${outcome.base.slice(0, 12)}): ${added.length} added, ${modified.length} modified, ${deleted.length} deleted.`,
    ...(outcome.checkpointNotice === undefined
      ? []
      : [
          `${outcome.checkpointNotice}: the handoff carries its backup ${CHECKPOINT_FILE}.prev instead, the checkpoint a load here uses (fix the file or save again, then push again, to send a newer one).`,
        ]),
    ...outcome.skipped.large.map((entry) => `Left out (over the size cap): ${quotePath(entry.path)}`),
    ...outcome.skipped.nested.map((dir) => `Left out (a nested repository): ${quotePath(dir)}`),
    ...(outcome.skipped.unreadable ?? []).map(
      (folder) => `Left out (a folder git could not read): ${quotePath(folder.path)}: ${folder.reason}`,
    ),
    ...(outcome.skipped.invalidNames ?? []).map(
      (name) => `Left out (its name is not valid UTF-8; an earlier version's snapshot): ${name}`,
    ),
    ...(outcome.author === NO_GIT_IDENTITY
      ? [
          `Author: ${NO_GIT_IDENTITY}: a commit made here would have no author either, as git has no user.name and user.email (nor GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL in the environment): set them (git config --global user.name "Your Name", then user.email) so that whoever pulls sees who handed it off.`,
        ]
      : []),
    wordsOf(surface).continueHandoff(name),
  ].join('\n');
}

/** Where in a commit a finding is, after its `commit <oid>` label. */
const FINDING_PLACE: Readonly<Record<string, string>> = {
  message: ' message',
  'handoff message': ' message',
  header: ' header',
};

export function renderSecretsFound(
  findings: ReadonlyArray<{
    file: string;
    line: number;
    rule: string;
    where?: string;
    commit?: string;
    field?: string;
    path?: string;
  }>,
  surface: Reader = 'mcp',
): string {
  // Content the handoff's tree does not hold: the commit that brought it, which the push sends too.
  const inCommit = (finding: { commit?: string }) =>
    finding.commit === undefined
      ? ''
      : `, in commit ${finding.commit} (not in the working tree: an unpushed commit the push sends too)`;
  return [
    ...findings.map((finding) => {
      if (finding.where === 'name' || finding.where === 'link target')
        return `${quotePath(finding.file)} (${finding.where === 'name' ? 'its name' : 'the link target'}) ${finding.rule}${inCommit(finding)}`;
      const at = `${quotePath(finding.file)}${FINDING_PLACE[finding.where ?? ''] ?? ''}:${finding.line} ${finding.rule}${inCommit(finding)}`;
      return finding.where === 'handoff message'
        ? `${at} (this handoff's own message: ${ownField(finding)})`
        : at;
    }),
    `Nothing was pushed: the secret scan found the above. Remove them, or ${wordsOf(surface).allowSecrets} if they are not secrets.`,
  ].join('\n');
}

/** The field of this handoff's own message a finding is on, in words. */
function ownField(finding: { field?: string; path?: string }): string {
  if (finding.field === 'leftOut' && finding.path !== undefined)
    return `the ${finding.path.endsWith('/') ? 'left-out folder' : 'left-out file'} ${quotePath(finding.path)}, a path the push leaves out and names`;
  const words = finding.field === undefined ? undefined : OWN_FIELD_WORDS[finding.field];
  return (
    words ??
    "its name, branch, author, the goal's first line from the checkpoint, and the paths the push leaves out"
  );
}

const OWN_FIELD_WORDS: Readonly<Record<string, string>> = {
  name: "the handoff's name",
  branch: 'the branch',
  author: 'the author',
  goal: "the goal's first line, from the checkpoint",
  leftOut: 'the paths the push leaves out',
};

/** What a pull did, or would do (a plan). */
export interface PullOutcome {
  ref: string;
  commit: string;
  base: string;
  branch: string | null;
  author: string;
  /** The first line of the goal the handoff's checkpoint holds (redacted), else the message's copy. */
  goal: string | null;
  /**
   * Values redacted from what the handoff brought (its checkpoint, its author and goal) before any of it
   * was shown or written, by the redactor a save here uses: its push should have kept them out.
   */
  redacted: number;
  /** Whether the project's HEAD is the handoff's base commit (nothing is applied otherwise). */
  baseMatches: boolean;
  /**
   * When HEAD here was not the base: what `--checkout` checks out, the handoff's branch when that branch
   * here points at the base, else a detached HEAD (`branch` null). Null when HEAD was the base.
   */
  checkout?: { branch: string | null } | null;
  applied: boolean;
  changed: RestorePlan;
  /** The snapshot taken before applying: restore it to undo the pull. */
  undo: string | null;
  /**
   * Where HEAD was before `--checkout` moved it (its branch, or null when detached), else null: the
   * safety snapshot is taken after the checkout, so undoing the pull brings the files back, not HEAD.
   */
  checkedOutFrom?: { branch: string | null; head: string } | null;
  /**
   * The checkpoint: `none` when the handoff carries none (the one here stays), `unchanged` when the one
   * here already is the handoff's, `written` when the pull wrote it, `would be written` when a plan (not
   * applied: a dry run, a base that does not match) would write it (`changed.checkpoint`).
   */
  checkpoint: 'none' | 'unchanged' | 'written' | 'would be written';
  /** What the other machine's push left out although it was there: the pull does not bring it. */
  leftOut?: LeftOut[];
  /**
   * The handoff names no folder (`root`): an earlier version pushed it, from a folder of its repository
   * or its top, nobody knows which; it is applied in this project as if pushed from here.
   */
  folderUnknown?: boolean;
}

/**
 * The warning for a handoff whose folder is unknown (a review: an old package's handoff pulled at the
 * repository's top planned to delete every file outside the package, and said nothing of why).
 */
function renderFolderUnknown(outcome: PullOutcome): string[] {
  return outcome.folderUnknown
    ? [
        "⚠ An earlier version pushed this handoff, and it does not say which folder of the repository it was pushed from: it is applied to this project as if pushed from here. If it came from another folder (a package, or the repository's top), the plan below writes that folder's files here and deletes the files that are not in it: pull it only in the folder it came from.",
      ]
    : [];
}

/** Why a push left a path out, in the pull's words. */
const LEFT_OUT_WHY: Record<LeftOut['kind'], string> = {
  large: 'over the size cap',
  nested: 'a nested repository',
  unreadable: 'a folder git could not read',
};

/** The paths the handoff does not bring, each with why (quoted: they come from the remote). */
function renderLeftOut(outcome: PullOutcome, limit = 50): string[] {
  const leftOut = outcome.leftOut ?? [];
  if (leftOut.length === 0) return [];
  return [
    `Not in the handoff, so not brought (the other machine's push left them out) (${leftOut.length}):`,
    ...leftOut.slice(0, limit).map((entry) => `  ${quotePath(entry.path)}: ${LEFT_OUT_WHY[entry.kind]}`),
    ...(leftOut.length > limit ? [`  … and ${leftOut.length - limit} more`] : []),
  ];
}

/**
 * The git command that puts HEAD back where `--checkout` found it: the branch, or the commit when HEAD
 * was detached. Only said, never run: HEAD moves only as far as `--checkout` documents.
 */
export function switchBackCommand(from: { branch: string | null; head: string }): string {
  return from.branch === null ? `git switch --detach ${from.head}` : `git switch ${shellWord(from.branch)}`;
}

/**
 * Security: what a handoff says of itself (author, goal, branch) comes from the remote: escaped, and
 * redacted by the pull.
 */
function pullHead(outcome: PullOutcome): string {
  const head = `Handoff ${escapeControls(outcome.ref)} (${outcome.commit.slice(0, 12)}) by ${escapeControls(outcome.author)}${outcome.goal ? `: ${escapeControls(outcome.goal)}` : ''}`;
  return outcome.redacted > 0
    ? `${head}\n${outcome.redacted} value(s) redacted from the handoff's checkpoint and metadata before anything was shown or written (its push should have kept them out).`
    : head;
}

/** What the pull did with the checkpoint, for its "Applied:" line (item 13 of a trial: none was written). */
const CHECKPOINT_DONE: Record<PullOutcome['checkpoint'], string> = {
  none: 'the handoff carries no checkpoint: the one here, if any, is left as it is',
  unchanged: "checkpoint unchanged (the one here already is the handoff's)",
  written: 'checkpoint written',
  'would be written': 'checkpoint not written (this is a plan)',
};

/** Whose checkpoint a pull writes, as its plan names it. Security: the author comes from the remote. */
function checkpointFrom(outcome: PullOutcome): string {
  return `${escapeControls(outcome.author)}'s`;
}

function baseText(outcome: PullOutcome): string {
  return `commit ${outcome.base}${outcome.branch === null ? '' : ` (branch ${escapeControls(outcome.branch)})`}`;
}

/**
 * A pull for its reader: the plan not applied (with `dryRun`, headed as a dry run and ended with how to
 * apply it, as restore's is; `remote`: the one the reader named, carried into that command), or what was
 * done.
 */
export function renderPull(
  outcome: PullOutcome,
  surface: Reader = 'mcp',
  options: { dryRun?: boolean; remote?: string | undefined } = {},
): string {
  const head = pullHead(outcome);
  const words = wordsOf(surface);
  if (!outcome.baseMatches)
    // Not "git fetch, then git checkout": the base may never have been pushed; the handoff carries it.
    return `${[head, ...renderFolderUnknown(outcome)].join('\n')}\nNothing was changed: the handoff was made on ${baseText(outcome)}, and HEAD here is another commit. To continue from it, ${words.pullCheckout}.`;
  const isEmpty = changesNothing(outcome.changed);
  if (!outcome.applied) {
    // Headed as a plan: its lines say what a pull writes, not what was written (newcomer trial).
    const title = isEmpty
      ? 'Nothing to pull: the working tree and the checkpoint here already match the handoff.'
      : `${options.dryRun ? 'Dry run: pulling' : 'Pulling'} it would change ${planSize(outcome.changed)} file(s)${outcome.changed.checkpoint ? ' and the checkpoint' : ''}${options.dryRun ? '. Nothing was changed.' : ':'}`;
    return [
      head,
      ...renderFolderUnknown(outcome),
      title,
      ...renderPlan(outcome.changed, 50, checkpointFrom(outcome)),
      ...renderLeftOut(outcome),
      ...(options.dryRun && !isEmpty
        ? [words.applyPull(outcome.ref.slice(HANDOFF_REFS.length), options.remote)]
        : []),
    ].join('\n');
  }
  const written = outcome.changed.checkpoint;
  // A pull that changed nothing took no snapshot: there is nothing to undo (as for restore).
  const done = isEmpty
    ? `${outcome.checkedOutFrom ? 'No file was changed after the checkout' : 'Nothing was changed'}: the working tree and the checkpoint here already match the handoff${outcome.checkpoint === 'none' ? ` (${CHECKPOINT_DONE.none})` : ''}.`
    : `Applied: ${planSize(outcome.changed)} file(s) changed, ${CHECKPOINT_DONE[outcome.checkpoint]}.`;
  return [
    head,
    ...renderFolderUnknown(outcome),
    done,
    ...(written ? [renderCheckpointSwap(written, checkpointFrom(outcome))] : []),
    ...(outcome.undo ? [`To undo: ${words.restoreNow(outcome.undo)}`] : []),
    // Security: a branch name is the user's, but escaped like everything a terminal shows.
    ...(outcome.checkedOutFrom
      ? [
          `${outcome.undo ? 'Then put' : 'To put'} HEAD back where it was before --checkout: ${escapeControls(switchBackCommand(outcome.checkedOutFrom))}`,
        ]
      : []),
    ...renderGuarded(outcome.changed),
    ...renderLeftOut(outcome),
  ].join('\n');
}

/**
 * What `handoff pull --checkout` asks to confirm when HEAD is not the base: the checkout (and where HEAD
 * ends up), then the files, as for any pull (a trial: an ignored file replaced went unsaid). The plan is
 * against the tree here: what the checkout and the pull change together.
 */
export function renderPullCheckout(
  outcome: PullOutcome,
  options: { dryRun?: boolean; surface?: Reader; remote?: string | undefined } = {},
): string {
  const branch = outcome.checkout?.branch ?? null;
  // Security: branch names come from the remote (the handoff's) or are the user's: escaped.
  const where =
    branch !== null
      ? `on branch ${escapeControls(branch)}, which points there`
      : outcome.branch === null
        ? 'as a detached HEAD'
        : `as a detached HEAD: branch ${escapeControls(outcome.branch)} here is at another commit (or there is none), and no branch is moved`;
  const lines = [
    pullHead(outcome),
    ...renderFolderUnknown(outcome),
    `HEAD here is another commit than the handoff's: commit ${outcome.base} is checked out first (clean tree only), ${where}; then the working tree is made equal to the handoff. What changes in the working tree, the checkout and the pull together:`,
    ...renderPlan(outcome.changed, 50, checkpointFrom(outcome)),
    ...renderLeftOut(outcome),
  ];
  if (changesNothing(outcome.changed)) lines.push('(no file changes)');
  if (options.dryRun)
    lines.push(
      'Dry run: nothing was changed.',
      // As a pull's dry run on its base says how to apply it (newcomer trial).
      wordsOf(options.surface ?? 'cli').applyPull(
        outcome.ref.slice(HANDOFF_REFS.length),
        options.remote,
        true,
      ),
    );
  return lines.join('\n');
}

/** Where a listed handoff was pushed from: a folder of the repository, its top (said by nothing), or unknown. */
function folderOf(root: string | null): string {
  if (root === null) return '  (folder unknown: an earlier version pushed it)';
  return root === '' ? '' : `  in ${escapeControls(root)}/`;
}

/** `handoff list` for people: one line per handoff; everything the remote wrote is escaped. */
export function renderHandoffList(outcome: {
  remote: string;
  handoffs: ReadonlyArray<{
    name: string;
    createdAt: string;
    author: string;
    branch: string | null;
    base: string;
    root: string | null;
    goal: string | null;
  }>;
  /** Handoffs left out, and why (already escaped). */
  notices?: readonly string[];
}): string {
  const notes = (outcome.notices ?? []).map((notice) => `Note: ${notice}.`);
  if (outcome.handoffs.length === 0)
    return [`No handoffs on ${escapeControls(outcome.remote)}.`, ...notes].join('\n');
  return [
    ...outcome.handoffs.map(
      (entry) =>
        `${escapeControls(entry.name)}  ${escapeControls(entry.createdAt)}  ${escapeControls(entry.author)}  ${entry.branch === null ? '(detached)' : escapeControls(entry.branch)}@${escapeControls(entry.base.slice(0, 9))}${folderOf(entry.root)}${entry.goal ? `  ${escapeControls(entry.goal)}` : ''}`,
    ),
    ...notes,
  ].join('\n');
}
