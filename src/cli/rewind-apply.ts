import type { RewindMode, RewindOutcome } from '../app/rewind-menu.js';
import { changesNothing } from '../core/snapshot.js';
import { type CliContext, commandFolderOf } from './context.js';
import { confirm, EXIT } from './output.js';

// What the rewind command and its picker share: whether a terminal can answer, and applying a choice.

/** Both ends are a terminal, and no one asked for JSON: the picker can run. */
export function canPrompt(ctx: CliContext): boolean {
  return ctx.out.isTTY && Boolean(process.stdin.isTTY) && !ctx.out.json;
}

/** Plans, asks where a terminal can answer (or takes --yes), then applies and reports. */
export async function applyRewind(
  ctx: CliContext,
  request: { projectRoot: string | undefined; sessionId: string | undefined; ref: string; mode: RewindMode },
  options: { yes?: boolean | undefined; dryRun?: boolean | undefined; confirmed?: boolean },
): Promise<number> {
  const [{ rewindTo }, { renderRewind }] = await Promise.all([
    import('../app/rewind-menu.js'),
    import('../core/rewind-text.js'),
  ]);
  // The restore commands it prints name paths from the current folder, as the CLI takes them.
  const render = async (outcome: RewindOutcome) =>
    renderRewind(outcome, ctx.root, outcome.code?.heldBy?.length ? await commandFolderOf(ctx) : undefined);
  // Already confirmed, the plan would decide nothing: planned and applied in one pass (issue 26).
  const plan =
    options.dryRun || !(options.yes || options.confirmed)
      ? await rewindTo(ctx.deps, { ...request, dryRun: true })
      : null;
  if (plan && options.dryRun) {
    if (ctx.out.json) ctx.out.printJson(plan);
    else ctx.out.print(await render(plan));
    return conversationFailed(plan) ? EXIT.failure : EXIT.ok;
  }
  // Writing a new session changes nothing of the user's: only a change of files needs a yes.
  if (plan?.code && !changesNothing(plan.code.plan)) {
    if (!canPrompt(ctx)) {
      // A script asked for JSON: it gets the plan it would have confirmed, on stdout, as `restore` does.
      if (ctx.out.json) ctx.out.printJson(plan);
      else ctx.out.note(await render(plan));
      ctx.out.note('Not applied: pass --yes to rewind without a terminal to confirm on.');
      return EXIT.notConfirmed;
    }
    ctx.out.print(await render(plan));
    if (!(await confirm('Apply? The current state is snapshotted first, so it can be undone.'))) {
      ctx.out.note('Nothing was changed.');
      return EXIT.notConfirmed;
    }
  }
  const done = await rewindTo(ctx.deps, {
    ...request,
    dryRun: false,
    onProgress: (count, total) => ctx.out.progress(`Restoring ${count}/${total} file(s)…`),
  });
  ctx.out.endProgress();
  if (ctx.out.json) ctx.out.printJson(done);
  else ctx.out.print(await render(done));
  if (!conversationFailed(done)) return EXIT.ok;
  // Asked for and not written is a failure, for a script too (newcomer trial); with --both, the code
  // that was restored stays restored, and the note says so.
  if (done.code?.undoSnapshotId)
    ctx.out.note('The code was restored (see the undo above), but the conversation was not.');
  return EXIT.failure;
}

/**
 * A rewind that asked for the conversation and could not write a new session it needed: not one at the
 * session's first prompt (nothing came before it), nor for an agent that forks its own (OpenCode).
 */
function conversationFailed(outcome: RewindOutcome): boolean {
  return outcome.conversation !== null && !outcome.conversation.fork && !outcome.conversation.noForkNeeded;
}
