import type { Command } from 'commander';
import { planSize } from '../core/snapshot.js';
import {
  formatBytes,
  renderDiff,
  renderPlan,
  renderRestore,
  renderSnapshot,
  renderSnapshotList,
  snapshotSummary,
} from '../core/snapshot-text.js';
import { type Runner, withCommonOptions } from './context.js';
import { confirm, EXIT } from './output.js';
import { registerRewindMenuCommand } from './rewind-menu-command.js';

const APPLY_HINT = 'Run the same command with --yes (or answer y on a terminal) to apply it.';

export function registerRewindCommands(program: Command, run: Runner): void {
  registerRewindMenuCommand(program, run);
  withCommonOptions(
    program
      .command('snapshot')
      .description('take a snapshot of the whole working tree now')
      .option('--label <text>', 'a short note on why')
      .option('--trigger <name>', 'what caused it (manual, prompt, pre-compact, ...)', 'manual'),
  ).action(
    run(async (ctx) => {
      const options = ctx.options as { label?: string; trigger: string };
      ctx.out.progress('Snapshotting the working tree…');
      const { takeSnapshot } = await import('../app/rewind.js');
      const outcome = await takeSnapshot(ctx.deps, {
        projectRoot: ctx.root,
        trigger: options.trigger,
        label: options.label,
      });
      ctx.out.endProgress();
      if (ctx.out.json)
        ctx.out.printJson({
          created: outcome.created,
          snapshot: snapshotSummary(outcome.snapshot),
          expired: outcome.expired,
        });
      else ctx.out.print(renderSnapshot(outcome.created, outcome.snapshot));
      return EXIT.ok;
    }),
  );

  withCommonOptions(
    program
      .command('list')
      .description('list snapshots, newest first, and the size of the store')
      .option('--limit <n>', 'how many to show', '20'),
  ).action(
    run(async (ctx) => {
      const limit = ctx.positiveInteger('--limit', (ctx.options as { limit: string }).limit);
      const { listSnapshots } = await import('../app/rewind.js');
      const outcome = await listSnapshots(ctx.deps, { projectRoot: ctx.root });
      const shown = outcome.snapshots.slice(0, limit);
      if (ctx.out.json) {
        ctx.out.printJson({
          snapshots: shown.map(snapshotSummary),
          total: outcome.snapshots.length,
          storeBytes: outcome.storeBytes,
          storeDir: outcome.storeDir,
        });
      } else {
        ctx.out.print(
          renderSnapshotList(
            shown,
            outcome.snapshots.length,
            outcome.storeBytes,
            ctx.deps.now(),
            'Take one with `claude-checkpoint snapshot`.',
          ),
        );
        ctx.out.print(ctx.out.dim(`store: ${outcome.storeDir}`));
      }
      return EXIT.ok;
    }),
  );

  withCommonOptions(
    program
      .command('diff')
      .description('compare a snapshot with the working tree, or with another snapshot')
      .argument('<snapshot>', 'snapshot id, unique prefix, "latest", or "latest~N" (N snapshots before it)')
      .argument('[path]', 'one file for a unified diff')
      .option('--against <snapshot>', 'compare with this snapshot instead of the working tree'),
  ).action(
    run(async (ctx, snapshotId: string, file?: string) => {
      const options = ctx.options as { against?: string };
      const { diffSnapshot } = await import('../app/rewind.js');
      const outcome = await diffSnapshot(ctx.deps, {
        projectRoot: ctx.root,
        snapshotId,
        against: options.against,
        path: file,
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
      .argument('[paths...]', 'only these files or folders')
      .option('-y, --yes', 'apply without asking')
      .option('--dry-run', 'show the plan and change nothing'),
  ).action(
    run(async (ctx, snapshotId: string, paths: string[] = []) => {
      const options = ctx.options as { yes?: boolean; dryRun?: boolean };
      const request = { projectRoot: ctx.root, snapshotId, paths };
      const { restoreSnapshot } = await import('../app/rewind.js');
      const plan = await restoreSnapshot(ctx.deps, { ...request, dryRun: true });
      if (options.dryRun || planSize(plan.plan) === 0) {
        if (ctx.out.json) ctx.out.printJson({ ...plan, snapshot: snapshotSummary(plan.snapshot) });
        else ctx.out.print(renderRestore(plan, APPLY_HINT));
        return EXIT.ok;
      }
      if (!options.yes) {
        if (!ctx.out.isTTY || !process.stdin.isTTY || ctx.out.json) {
          // A script asked for JSON: it gets the plan it would have confirmed, on stdout (issue 26).
          if (ctx.out.json) ctx.out.printJson({ ...plan, snapshot: snapshotSummary(plan.snapshot) });
          else ctx.out.note(renderRestore(plan, APPLY_HINT));
          ctx.out.note('Not applied: pass --yes to restore without a terminal to confirm on.');
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
      }
      const done = await restoreSnapshot(ctx.deps, {
        ...request,
        dryRun: false,
        onProgress: (count, total) => ctx.out.progress(`Restoring ${count}/${total} file(s)…`),
      });
      ctx.out.endProgress();
      if (ctx.out.json) ctx.out.printJson({ ...done, snapshot: snapshotSummary(done.snapshot) });
      else ctx.out.print(renderRestore(done));
      return EXIT.ok;
    }),
  );

  withCommonOptions(
    program.command('gc').description('apply retention now and delete stored content no snapshot references'),
  ).action(
    run(async (ctx) => {
      ctx.out.progress('Collecting garbage in the snapshot store…');
      const { gcSnapshots } = await import('../app/rewind.js');
      const outcome = await gcSnapshots(ctx.deps, { projectRoot: ctx.root });
      ctx.out.endProgress();
      if (ctx.out.json) ctx.out.printJson(outcome);
      else {
        ctx.out.print(
          `Removed ${outcome.removed} expired snapshot(s), kept ${outcome.kept}. Store: ${formatBytes(outcome.beforeBytes)} → ${formatBytes(outcome.afterBytes)}.`,
        );
      }
      return EXIT.ok;
    }),
  );
}
