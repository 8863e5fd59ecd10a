import { planSize, type RestorePlan } from './snapshot.js';
import { renderGuarded, renderPlan } from './snapshot-text.js';

/** How a person or a model is told about handoffs: the same words in the CLI and the MCP tools. */

export function renderPushed(outcome: {
  remote: string;
  ref: string;
  commit: string;
  base: string;
  files: { added: string[]; modified: string[]; deleted: string[] };
  skipped: { large: Array<{ path: string }>; nested: string[] };
}): string {
  const { added, modified, deleted } = outcome.files;
  const name = outcome.ref.split('/').slice(3).join('/');
  return [
    `Pushed handoff ${outcome.ref} to ${outcome.remote} (${outcome.commit.slice(0, 12)}, on commit ${outcome.base.slice(0, 12)}): ${added.length} added, ${modified.length} modified, ${deleted.length} deleted.`,
    ...outcome.skipped.large.map((entry) => `Left out (over the size cap): ${entry.path}`),
    ...outcome.skipped.nested.map((dir) => `Left out (a nested repository): ${dir}`),
    `To continue elsewhere: claude-checkpoint handoff pull --name ${name}`,
  ].join('\n');
}

export function renderSecretsFound(
  findings: ReadonlyArray<{ file: string; line: number; rule: string }>,
): string {
  return [
    ...findings.map((finding) => `${finding.file}:${finding.line} ${finding.rule}`),
    'Nothing was pushed: the secret scan found the above. Remove them, or pass --allow-secrets (allowSecrets) if they are not secrets.',
  ].join('\n');
}

/** What a pull did, or would do (a plan). */
export interface PullOutcome {
  ref: string;
  commit: string;
  base: string;
  branch: string | null;
  author: string;
  goal: string | null;
  /** Whether the project's HEAD is the handoff's base commit (nothing is applied otherwise). */
  baseMatches: boolean;
  applied: boolean;
  changed: RestorePlan;
  /** The snapshot taken before applying: restore it to undo the pull. */
  undo: string | null;
}

export function renderPull(outcome: PullOutcome): string {
  const head = `Handoff ${outcome.ref} (${outcome.commit.slice(0, 12)}) by ${outcome.author}${outcome.goal ? `: ${outcome.goal}` : ''}`;
  if (!outcome.baseMatches)
    return `${head}\nNothing was changed: the handoff was made on commit ${outcome.base}${outcome.branch ? ` (branch ${outcome.branch})` : ''}, and HEAD here is another commit. Check out that commit (git fetch, then git checkout ${outcome.branch ?? outcome.base}), or pull with --checkout on a clean tree.`;
  if (!outcome.applied) return [head, ...renderPlan(outcome.changed)].join('\n');
  return [
    `${head}\nApplied: ${planSize(outcome.changed)} file(s) changed, checkpoint written. Undo with: claude-checkpoint restore ${outcome.undo} --yes (or restore_snapshot ${outcome.undo}).`,
    ...renderGuarded(outcome.changed),
  ].join('\n');
}
