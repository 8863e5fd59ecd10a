import { quotePath } from '../core/quote.js';
import { renderSnapshotList, snapshotSummary } from '../core/snapshot-text.js';
import type { CliContext } from './context.js';
import { EXIT } from './output.js';

// `claude-checkpoint list`, apart from commander: the CLI's parser runs it, and so does the loader's
// short path (cli-fast.ts), which loads neither commander nor the other commands (issue 26).

/** `list`: the snapshots, newest first, and the size of the store. */
export async function showSnapshotList(ctx: CliContext): Promise<number> {
  const limit = ctx.positiveInteger('--limit', (ctx.options as { limit: string }).limit);
  const { listSnapshots } = await import('../app/snapshot-list.js');
  const outcome = await listSnapshots(ctx.deps, { projectRoot: ctx.root, limit });
  const shown = outcome.snapshots.slice(0, limit);
  if (ctx.out.json) {
    ctx.out.printJson({
      snapshots: shown.map(snapshotSummary),
      total: outcome.total,
      storeBytes: outcome.storeBytes,
      storeDir: outcome.storeDir,
    });
  } else {
    ctx.out.print(renderSnapshotList(shown, outcome.total, outcome.storeBytes, ctx.deps.now(), ctx.words));
    ctx.out.print(ctx.out.dim(`store: ${quotePath(outcome.storeDir)}`));
  }
  return EXIT.ok;
}
