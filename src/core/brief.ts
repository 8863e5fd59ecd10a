import type { Drift } from './drift.js';
import { BRIEF_LIMITS } from './limits.js';
import type { Checkpoint, RecentCommand, TaskStatus } from './schema.js';
import { formatAge, formatUtc } from './time.js';

export const TASK_MARKERS: Readonly<Record<TaskStatus, string>> = {
  done: '[x]',
  in_progress: '[~]',
  pending: '[ ]',
  blocked: '[!]',
};

/** A snapshot the agent can rewind to, named at the end of the brief when one exists. */
export interface SnapshotMention {
  id: string;
  createdAt: string;
  trigger: string;
}

export interface BriefInput {
  checkpoint: Checkpoint;
  /** `null` when drift could not be computed (no git at save time or now). */
  drift: Drift | null;
  now: Date;
  /** Notices to show under the header, such as "loaded from the backup". */
  notices?: readonly string[];
  latestSnapshot?: SnapshotMention | null;
}

/**
 * Renders the compact markdown resume brief. Empty sections are left out so a small checkpoint gives
 * a small brief; long lists are capped and point to `format: "full"` for the rest.
 */
export function renderResumeBrief(input: BriefInput): string {
  const { checkpoint: c, drift, now } = input;
  const lines: string[] = [];
  const savedAt = new Date(c.updatedAt);
  lines.push(
    `# Resuming: ${c.project.name} (checkpoint saved ${formatAge(savedAt, now)}, ${formatUtc(savedAt)})`,
  );
  if (c.git) {
    const where = c.git.branch === null ? 'Detached HEAD' : `Branch ${code(c.git.branch)}`;
    lines.push(`${where} @ ${shortOid(c.git.head)}${c.git.dirty ? ' (uncommitted changes)' : ''}`);
  }
  for (const notice of input.notices ?? []) lines.push(`> ⚠ ${notice}`);

  section(lines, 'Goal', [c.goal.primary]);
  section(
    lines,
    'Tasks',
    c.goal.tasks.map((task) => `- ${TASK_MARKERS[task.status]} ${task.description}`),
  );
  if (c.summary?.trim()) section(lines, 'Where things stand', [c.summary.trim()]);
  section(
    lines,
    'Next steps',
    c.nextSteps.map((step, index) => `${index + 1}. ${step}`),
  );
  section(
    lines,
    'Decisions & gotchas',
    c.decisions.map((decision) => `- ${decision}`),
  );

  const files = c.modifiedFiles;
  const shownFiles = files.slice(0, BRIEF_LIMITS.files).map((file) => {
    const note = file.note ? ` — ${file.note}` : '';
    return `- ${file.path} (${file.status})${note}`;
  });
  if (files.length > BRIEF_LIMITS.files) {
    shownFiles.push(`- … and ${files.length - BRIEF_LIMITS.files} more (load with format "full" for all)`);
  }
  section(lines, `Files touched (${files.length})`, shownFiles);

  const commands = c.recentCommands.slice(-BRIEF_LIMITS.commands);
  section(lines, `Recent commands (last ${commands.length}, oldest first)`, commands.map(renderCommand));

  if (c.git) section(lines, 'Since this checkpoint', renderDrift(c, drift));

  if (input.latestSnapshot) {
    const snapshot = input.latestSnapshot;
    section(lines, 'Rewind', [
      `- Latest snapshot ${code(snapshot.id)} (${snapshot.trigger}, ${formatAge(new Date(snapshot.createdAt), now)}): restore_snapshot can bring the files back`,
    ]);
  }
  return `${lines.join('\n')}\n`;
}

function section(lines: string[], title: string, body: readonly string[]): void {
  if (body.length === 0) return;
  lines.push('', `## ${title}`, ...body);
}

function renderCommand(command: RecentCommand): string {
  const outcome =
    command.exitCode === undefined ? '' : command.exitCode === 0 ? '✓ ' : `✗ exit ${command.exitCode} `;
  const note = command.note ? ` — ${command.note}` : '';
  return `- ${outcome}${code(command.command)}${note}`;
}

function renderDrift(c: Checkpoint, drift: Drift | null): string[] {
  if (!drift)
    return ['- ⚠ Drift could not be checked: the project is no longer a git repository with commits'];
  const lines: string[] = [];
  if (drift.branchChanged) {
    const before = c.git?.branch ?? 'detached HEAD';
    const after = drift.currentBranch ?? 'detached HEAD';
    lines.push(`- Branch changed: ${code(before)} → ${code(after)}`);
  }
  if (!drift.savedHeadReachable) {
    lines.push(
      `- ⚠ Saved commit ${shortOid(c.git?.head ?? '')} is no longer reachable (history rewritten or reset): re-read the files above before editing`,
    );
  }
  if (drift.commitsSince !== null && drift.commitsSince > 0) {
    lines.push(`- ${drift.commitsSince} new commit(s) on HEAD`);
  }
  if (drift.changedSince.length > 0) {
    const shown = drift.changedSince.slice(0, BRIEF_LIMITS.files).map(code);
    const more = drift.changedSince.length - shown.length;
    lines.push(
      `- ⚠ Changed after the checkpoint, re-read before editing: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
    );
  } else {
    lines.push('- No file changed after the checkpoint: the rest of this brief can be trusted as is');
  }
  return lines;
}

/** The 9-character abbreviation used in the brief. */
export function shortOid(oid: string): string {
  return oid.slice(0, 9);
}

/** A markdown code span that survives backticks inside the value. */
export function code(value: string): string {
  const longestRun = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = value.startsWith('`') || value.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${value}${pad}${fence}`;
}
