import { type Command, Option } from 'commander';
import type { GcAllOutcome, RestoreOutcome } from '../app/rewind.js';
import { quotePath } from '../core/quote.js';
import { changesNothing, planSize, SNAPSHOT_DEFAULTS } from '../core/snapshot.js';
import {
  describeOverCap,
  formatBytes,
  renderDiff,
  renderPlan,
  renderRestore,
  snapshotSummary,
} from '../core/snapshot-text.js';
import { wordsFor } from '../core/surface.js';
import { commandFolderOf, pathsFromOf, type Runner, refuseEmpty, withCommonOptions } from './context.js';
import { showSnapshotList } from './list-command.js';
import { confirm, EXIT } from './output.js';
import { registerRewindMenuCommand } from './rewind-menu-command.js';
import { slowProgress } from './slow-progress.js';
import { takeSnapshotNow } from './snapshot-command.js';

export function registerRewindCommands(program: Command, run: Runner): void {
  registerRewindMenuCommand(program, run);
  withCommonOptions(
    program
      .command('snapshot')
      .description('take a snapshot of the whole working tree now')
      .option('--label <text>', 'a short note on why')
      .option(
        '--trigger <name>',
        `why it was taken, shown in \`list\`: any name of lowercase letters, digits and dashes, at most ${SNAPSHOT_DEFAULTS.triggerChars} characters, such as pre-deploy, other than the names the tool records itself (prompt, pre-compact, …)`,
        'manual',
      ),
  ).action(run(takeSnapshotNow));

  withCommonOptions(
    program
      .command('list')
      .description('list snapshots, newest first, and the size of the store')
      .option('--limit <n>', 'how many to show', '20'),
  ).action(run(showSnapshotList));

  withCommonOptions(
    program
      .command('diff')
      .description('compare a snapshot with the working tree, or with another snapshot')
      .argument('<snapshot>', 'snapshot id, unique prefix, "latest", or "latest~N" (N snapshots before it)')
      .argument('[path]', 'one file for a unified diff (relative to the current folder)')
      .option('--against <snapshot>', 'compare with this snapshot instead of the working tree'),
  ).action(
    run(async (ctx, snapshotId: string, file?: string) => {
      const options = ctx.options as { against?: string };
      refuseEmpty(
        '--against',
        options.against,
        'a snapshot',
        'leave --against out to compare with the working tree',
      );
      const { diffSnapshot } = await import('../app/rewind.js');
      const outcome = await diffSnapshot(ctx.deps, {
        projectRoot: ctx.root,
        snapshotId,
        against: options.against,
        path: file,
        pathsFrom: pathsFromOf(file === undefined ? [] : [file], ctx.deps.cwd),
      });
      if (ctx.out.json) ctx.out.printJson(outcome);
      else ctx.out.print(renderDiff(outcome));
      return EXIT.ok;
    }),
  );

  withCommonOptions(
    program
      .command('restore')
      .description('bring the working tree, or some paths, back to a snapshot (shows the plan first)')
      .argument('<snapshot>', 'snapshot id, unique prefix, "latest", or "latest~N" (N snapshots before it)')
      .argument('[paths...]', 'only these files or folders (relative to the current folder)')
      .option('-y, --yes', 'apply without asking')
      .option('--dry-run', 'show the plan and change nothing'),
  ).action(
    run(async (ctx, snapshotId: string, paths: string[] = []) => {
      const options = ctx.options as { yes?: boolean; dryRun?: boolean };
      const pathsFrom = pathsFromOf(paths, ctx.deps.cwd);
      const request = { projectRoot: ctx.root, snapshotId, paths, pathsFrom };
      const { restoreSnapshot } = await import('../app/rewind.js');
      // The commands it prints (apply, undo) name its paths from the current folder, as they are typed.
      const words = async () =>
        paths.length === 0 ? ctx.words : wordsFor('cli', ctx.root, await commandFolderOf(ctx));
      const show = async (outcome: RestoreOutcome) => {
        if (ctx.out.json) ctx.out.printJson({ ...outcome, snapshot: snapshotSummary(outcome.snapshot) });
        else ctx.out.print(renderRestore(outcome, await words()));
      };
      const apply = async () => {
        const done = await restoreSnapshot(ctx.deps, {
          ...request,
          dryRun: false,
          // A plan that changes no file is shown, not applied: no safety snapshot for nothing.
          unlessEmpty: true,
          onProgress: (count, total) => ctx.out.progress(`Restoring ${count}/${total} file(s)…`),
        });
        ctx.out.endProgress();
        await show(done);
        return EXIT.ok;
      };
      // Already confirmed: planned and applied in one pass, under one lock (a dry run first captured the
      // tree twice, reading a large changed file twice; issue 26).
      if (options.yes && !options.dryRun) return apply();
      const plan = await restoreSnapshot(ctx.deps, { ...request, dryRun: true });
      if (options.dryRun || changesNothing(plan.plan)) {
        await show(plan);
        return EXIT.ok;
      }
      if (!ctx.out.isTTY || !process.stdin.isTTY || ctx.out.json) {
        // A script asked for JSON: it gets the plan it would have confirmed, on stdout (issue 26).
        if (ctx.out.json) {
          ctx.out.printJson({ ...plan, snapshot: snapshotSummary(plan.snapshot) });
          ctx.out.note('Not applied: pass --yes to restore without a terminal to confirm on.');
        }
        // Headed as not confirmed, not as the dry run nobody asked for (new-user trial, 2026-12-06).
        else ctx.out.note(renderRestore({ ...plan, unconfirmed: true }, await words()));
        return EXIT.notConfirmed;
      }
      ctx.out.print(`Restoring snapshot ${plan.snapshot.id} will change ${planSize(plan.plan)} file(s):`);
      ctx.out.print(renderPlan(plan.plan).join('\n'));
      if (
        !(await confirm('Apply this restore? The current state is snapshotted first, so it can be undone.'))
      ) {
        ctx.out.note('Nothing was changed.');
        return EXIT.notConfirmed;
      }
      return apply();
    }),
  );

  withCommonOptions(
    program
      .command('gc')
      .description(
        'apply retention now (count, age, size caps) and delete stored content no snapshot references',
      )
      .option('--all', "every project's store: also delete the stores of projects whose folder is gone")
      .addOption(new Option('--if-due', 'only when a snapshot said a gc is due (for hooks)').hideHelp()),
  ).action(
    run(async (ctx) => {
      const options = ctx.options as { all?: boolean; ifDue?: boolean };
      const progress = slowProgress(ctx.out);
      const { gcAllProjects, gcSnapshots } = await import('../app/rewind.js');
      const onPhase = (phase: string) => progress.update(`Collecting garbage: ${phase}…`);
      if (options.all) {
        const outcome = await gcAllProjects(ctx.deps, onPhase).finally(progress.end);
        if (ctx.out.json) ctx.out.printJson(outcome);
        else ctx.out.print(renderGcAll(outcome));
        return EXIT.ok;
      }
      const outcome = await gcSnapshots(
        ctx.deps,
        { projectRoot: ctx.root, ifDue: options.ifDue },
        {},
        onPhase,
      ).finally(progress.end);
      if (ctx.out.json) ctx.out.printJson(outcome);
      else if (outcome.skipped) ctx.out.print('Nothing due: the store is within its caps.');
      else {
        const trimmed = outcome.trimmed > 0 ? ` (${outcome.trimmed} of them for the size cap)` : '';
        ctx.out.print(
          `Removed ${outcome.removed} expired snapshot(s)${trimmed}, kept ${outcome.kept}. Store: ${formatBytes(outcome.beforeBytes)} → ${formatBytes(outcome.afterBytes)}${copiedIn(outcome.copiedBytes)}.`,
        );
        if (outcome.damaged.length > 0)
          ctx.out.print(
            `Removed ${outcome.damaged.length} snapshot(s) whose content was deleted from the project's repository (history pruned) before the store copied it in: ${outcome.damaged.join(', ')}.`,
          );
        if (outcome.isOverCap && outcome.maxBytes !== null)
          ctx.out.print(`⚠ The store is still ${overCapLine(outcome.afterBytes, outcome.maxBytes)}.`);
        for (const project of outcome.wholeStore)
          ctx.out.print(
            `Whole-store cap: removed ${project.trimmed} snapshot(s) of ${quotePath(project.root)}.`,
          );
      }
      return EXIT.ok;
    }),
  );
}

function overCapLine(leftBytes: number, maxBytes: number): string {
  const { reason, fix } = describeOverCap(leftBytes, maxBytes);
  return `${reason}; ${fix}`;
}

/** Why a store grew in a gc: what it copied in rather than borrow it (plain `gc` and `gc --all` alike). */
function copiedIn(bytes: number): string {
  return bytes > 0
    ? ` (${formatBytes(bytes)} of it copied in from the project's repository, which the store no longer borrows from)`
    : '';
}

function renderGcAll(outcome: GcAllOutcome): string {
  const lines: string[] = [];
  for (const project of outcome.projects) {
    const trimmed = project.trimmed > 0 ? ` (${project.trimmed} for the size cap)` : '';
    lines.push(
      `${quotePath(project.root)}: removed ${project.removed}${trimmed}, kept ${project.kept}; ${formatBytes(project.beforeBytes)} → ${formatBytes(project.afterBytes)}${copiedIn(project.copiedBytes)}`,
    );
    if (project.damaged.length > 0)
      lines.push(
        `${quotePath(project.root)}: removed ${project.damaged.length} snapshot(s) whose content was pruned from the project's repository: ${project.damaged.join(', ')}`,
      );
    if (project.isOverCap && project.maxBytes !== null)
      lines.push(`${quotePath(project.root)}: ⚠ still ${overCapLine(project.afterBytes, project.maxBytes)}`);
  }
  for (const store of outcome.removedStores)
    lines.push(`${quotePath(store.root)}: folder gone, store deleted (${formatBytes(store.bytes)})`);
  for (const dir of outcome.unknownStores) lines.push(`${quotePath(dir)}: set-up never finished, left alone`);
  for (const project of outcome.wholeStore)
    lines.push(`Whole-store cap: removed ${project.trimmed} snapshot(s) of ${quotePath(project.root)}`);
  if (lines.length === 0) lines.push('No project stores yet.');
  lines.push(
    `All stores: ${formatBytes(outcome.totalBeforeBytes)} → ${formatBytes(outcome.totalAfterBytes)}.`,
  );
  if (outcome.totalMaxBytes !== null && outcome.totalAfterBytes > outcome.totalMaxBytes)
    lines.push(
      `⚠ All stores together are still over their cap of ${formatBytes(outcome.totalMaxBytes)} (storeTotalMaxMb): each project's newest snapshot and the undo of its latest restore are never deleted for size, so each new snapshot removes the oldest of any project; raise storeTotalMaxMb (CHECKPOINT_STORE_TOTAL_MAX_MB) above ${formatBytes(outcome.totalAfterBytes)}, or lower snapshotMaxFileMb to leave large files out.`,
    );
  return lines.join('\n');
}
