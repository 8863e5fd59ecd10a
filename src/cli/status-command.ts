import { loadStructured } from '../app/views.js';
import type { TASK_STATUSES } from '../core/checkpoint-plain.js';
import { escapeControls, quotePath } from '../core/quote.js';
import { formatBytes, GONE_STORES_FIX, renderGoneStores } from '../core/snapshot-text.js';
import { formatAge } from '../core/time.js';
import type { CliContext } from './context.js';
import { EXIT } from './output.js';

// `claude-checkpoint status`, apart from commander: the CLI's parser runs it, and so does the loader's
// short path (cli-fast.ts), which loads neither commander nor the other commands (issue 26).

/** `status`: one screen on the project's checkpoint, drift, snapshots, stores and ignore rules. */
export async function showStatus(ctx: CliContext): Promise<number> {
  const { projectStatus } = await import('../app/project-status.js');
  const report = await projectStatus(ctx.deps, { projectRoot: ctx.root });
  if (ctx.out.json) {
    const { checkpoint } = report;
    ctx.out.printJson({
      ...report,
      checkpoint:
        checkpoint.found === true
          ? {
              ...withoutBrief(loadStructured(checkpoint, false)),
              goal: checkpoint.checkpoint.goal.primary,
              tasks: taskCounts(checkpoint.checkpoint.goal.tasks),
            }
          : checkpoint,
    });
    return EXIT.ok;
  }
  const { out } = ctx;
  const lines = [out.bold(`Project ${quotePath(report.root.root)}`)];
  const c = report.checkpoint;
  // The error names the file and says it is unusable: wrapped in "unusable (…)" it said so twice.
  if (c.found === 'error') lines.push(out.warn(`Checkpoint: ${escapeControls(c.error)}`));
  else if (!c.found) lines.push('Checkpoint: none saved yet');
  else {
    const counts = taskCounts(c.checkpoint.goal.tasks);
    // Issue 26: after a hook's refresh, "saved just now" and "changed since the save" read as a
    // contradiction; the files are flagged since the agent's notes fell behind (Drift.flaggedSince).
    const flaggedSince = c.drift?.flaggedSince ? new Date(c.drift.flaggedSince) : null;
    lines.push(
      `Checkpoint: saved ${formatAge(new Date(c.checkpoint.updatedAt), ctx.deps.now())}${flaggedSince ? " (a hook's refresh)" : ''}${c.fromBackup ? out.warn(' (from the backup)') : ''}`,
    );
    lines.push(`  Goal: ${escapeControls(c.checkpoint.goal.primary)}`);
    lines.push(
      `  Tasks: ${counts.done} done, ${counts.in_progress} in progress, ${counts.pending} pending, ${counts.blocked} blocked`,
    );
    if (c.drift) {
      const changed = c.drift.changedSince.length;
      const commits =
        // Not only a rewritten history: a branch checked out from an older commit, or a commit of another clone.
        c.drift.commitsSince === null
          ? "saved commit not in HEAD's history"
          : `${c.drift.commitsSince} new commit(s)`;
      const branch = c.drift.branchChanged
        ? `, branch now ${escapeControls(c.drift.currentBranch ?? 'detached')}`
        : '';
      const elsewhere = c.drift.fromHandoff?.paths.length ?? 0;
      const there = elsewhere > 0 ? ` (${elsewhere} of them on the other machine)` : '';
      const unfollowed = c.drift.unfollowed?.length ?? 0;
      const notFollowed =
        unfollowed > 0 ? `, ${out.warn(`${unfollowed} not followed (a name that is not valid UTF-8)`)}` : '';
      const none = unfollowed > 0 ? 'no other file changed' : 'no file changed';
      const since = flaggedSince
        ? ` since ${formatAge(flaggedSince, ctx.deps.now())}, flagged until the agent saves again`
        : ' since the save';
      lines.push(
        `  Drift: ${changed === 0 ? none : out.warn(`${changed} file(s) changed`)}${there}${since}${notFollowed}, ${commits}${branch}`,
      );
    } else if (c.checkpoint.git)
      lines.push(
        out.warn(`  Drift: not checked (${escapeControls(c.driftUnchecked ?? 'git could not tell')})`),
      );
    else
      lines.push(
        '  Drift: not tracked (no git facts at save time: not a git repository then, no commit yet, or git could not read it)',
      );
    // What load and brief say of the file (a field over its limit, the backup used, a damaged copy kept).
    // Drift's own warnings are in its line above.
    for (const notice of c.fileNotices) lines.push(out.warn(`  Note: ${escapeControls(notice)}`));
  }
  const s = report.snapshots;
  lines.push(
    s
      ? `Snapshots: ${s.count}${s.latest ? `, latest ${s.latest.id} (${escapeControls(s.latest.trigger)}, ${formatAge(new Date(s.latest.createdAt), ctx.deps.now())})` : ''}; store ${formatBytes(s.storeBytes)} at ${quotePath(s.storeDir)}`
      : 'Snapshots: not taken here (a home folder or the file-system root is not a project)',
  );
  const w = report.wholeStore;
  lines.push(
    `All stores: ${formatBytes(w.totalBytes)} in ${w.projects} project(s)${w.totalMaxBytes === null ? '' : ` (cap ${formatBytes(w.totalMaxBytes)})`}${w.orphans.length > 0 ? out.warn(`; ${renderGoneStores(w.orphans)} (${GONE_STORES_FIX})`) : ''}`,
  );
  lines.push(
    report.gitProblem !== null
      ? out.warn(`Git ignore: unknown (${escapeControls(report.gitProblem)})`)
      : report.checkpointIgnored === null
        ? 'Git ignore: not a git repository'
        : report.checkpointIgnored
          ? 'Git ignore: .claude-checkpoint* is ignored'
          : out.warn('Git ignore: .claude-checkpoint* is NOT ignored: add it to .gitignore'),
  );
  const included = report.includeIgnored;
  lines.push(
    included.patterns.length === 0
      ? 'Ignored files: never in snapshots (set snapshotIncludeIgnored to include some, such as .env*)'
      : `Ignored files in snapshots: ${included.patterns.join(', ')} (from ${included.from.join(' + ')}; kept in the private store, never in a handoff)`,
  );
  for (const problem of report.settingErrors)
    lines.push(
      out.warn(
        `Settings: ${problem} (snapshot, rewind, restore, diff, list, gc and handoff commands stop on it; see doctor)`,
      ),
    );
  out.print(lines.join('\n'));
  return EXIT.ok;
}

function taskCounts(tasks: ReadonlyArray<{ status: (typeof TASK_STATUSES)[number] }>) {
  const counts = { done: 0, in_progress: 0, pending: 0, blocked: 0 };
  for (const task of tasks) counts[task.status]++;
  return counts;
}

/** `status` reports the checkpoint at a glance; the brief itself is `brief --json`'s. */
function withoutBrief<T extends { brief: string }>(view: T): Omit<T, 'brief'> {
  const { brief: _brief, ...rest } = view;
  return rest;
}
