import { CheckpointError } from '../core/errors.js';
import { BUILT_IN_TRIGGERS, SNAPSHOT_DEFAULTS } from '../core/snapshot.js';
import { renderSnapshot, snapshotSummary } from '../core/snapshot-text.js';
import { charLength } from '../core/text.js';
import type { CliContext } from './context.js';
import { EXIT } from './output.js';
import { slowProgress } from './slow-progress.js';

// `claude-checkpoint snapshot`, apart from commander: the CLI's parser runs it, and so does the loader's
// short path (cli-snapshot.ts), which loads neither commander nor the other commands (issue 26).

/** `snapshot`: the whole working tree, now, into the project's store. */
export async function takeSnapshotNow(ctx: CliContext): Promise<number> {
  const options = ctx.options as { label?: string; trigger: string };
  // Refused as snapshot_files refuses it, in the same characters, rather than cut short unseen (the hooks'
  // labels are cut).
  const maxChars = SNAPSHOT_DEFAULTS.labelChars;
  const chars = options.label === undefined ? 0 : charLength(options.label);
  if (chars > maxChars)
    throw new CheckpointError(
      'INVALID_INPUT',
      `--label: must be at most ${maxChars} characters (got ${chars})`,
    );
  // The hooks' own triggers mean what the hooks took: a prompt's snapshot is one `rewind` goes back to and
  // retention keeps as a prompt, so one taken by hand under that name would be listed and kept as one.
  if (options.trigger !== 'manual' && BUILT_IN_TRIGGERS.has(options.trigger))
    throw new CheckpointError(
      'INVALID_INPUT',
      `--trigger '${options.trigger}' is one this tool records itself (${[...BUILT_IN_TRIGGERS].filter((name) => name !== 'manual').join(', ')}): leave --trigger out for manual, or give a name of your own, such as pre-deploy`,
    );
  const progress = slowProgress(ctx.out);
  const { gcSnapshots, takeSnapshot } = await import('../app/rewind.js');
  const outcome = await takeSnapshot(ctx.deps, {
    projectRoot: ctx.root,
    trigger: options.trigger,
    label: options.label,
    onProgress: (phase, done, total) =>
      progress.update(
        phase === 'storing' && total
          ? `Snapshotting: storing ${done ?? 0}/${total} files…`
          : `Snapshotting: ${phase}…`,
      ),
  }).finally(progress.end);
  // Past a size cap: trimmed now, in this process, as a gc would (the hooks start one in the background).
  if (outcome.capDue) await gcSnapshots(ctx.deps, { projectRoot: outcome.root.root });
  // A long history to pack: only that (see isPackDue), which costs what was added since the last gc.
  else if (outcome.packDue) await gcSnapshots(ctx.deps, { projectRoot: outcome.root.root, ifDue: true });
  const hasLabel = options.label !== undefined;
  if (ctx.out.json)
    ctx.out.printJson({
      created: outcome.created,
      snapshot: snapshotSummary(outcome.snapshot),
      expired: outcome.expired,
      // A label on an unchanged tree is not kept: no snapshot was taken to hold it.
      ...(hasLabel ? { labelKept: outcome.created } : {}),
    });
  else
    ctx.out.print(renderSnapshot(outcome.created, outcome.snapshot, { isFirst: outcome.isFirst, hasLabel }));
  return EXIT.ok;
}
