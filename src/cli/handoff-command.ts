import type { Command } from 'commander';
import { escapeControls } from '../core/quote.js';
import { changesNothing } from '../core/snapshot.js';
import { type Runner, refuseEmpty, withCommonOptions } from './context.js';
import { confirm, EXIT } from './output.js';

/** What the handoff commands run, loaded when one of them runs rather than at every start of the CLI. */
const loadHandoff = () => Promise.all([import('../app/handoff.js'), import('../core/handoff-text.js')]);

/** `--remote ''` is refused, not taken for the default remote (as `--root ''`; newcomer trial). */
const refuseEmptyRemote = (remote: string | undefined) =>
  refuseEmpty(
    '--remote',
    remote,
    'a git remote',
    "leave --remote out for the branch's push remote, else origin",
  );

/**
 * `claude-checkpoint handoff push|pull|list|drop`: carries the checkpoint and the uncommitted work to
 * another machine or a teammate through the project's own git remote.
 */
export function registerHandoffCommand(program: Command, run: Runner): void {
  const handoff = program
    .command('handoff')
    .description('continue on another machine, or hand work to a teammate, through the git remote');

  withCommonOptions(
    handoff
      .command('push')
      .description(
        'push the working tree and the checkpoint to a handoff ref on the remote (no branch, no CI)',
      )
      .option('--remote <name>', "the remote (default: the branch's push remote, else origin)")
      .option(
        '--name <name>',
        'the handoff name (default: the current branch; in a folder of the repository, the folder then the branch)',
      )
      .option('--allow-secrets', 'push even when the secret scan finds something')
      .option('--no-verify', "do not run the project's pre-push hook (as git push --no-verify)")
      .option(
        '--force',
        "replace the remote's handoff even if another machine pushed it, or it changed since this machine saw it",
      ),
  ).action(
    run(async (ctx) => {
      const options = ctx.options as {
        remote?: string;
        name?: string;
        allowSecrets?: boolean;
        force?: boolean;
        verify?: boolean;
      };
      refuseEmptyRemote(options.remote);
      const [{ pushHandoff }, { renderPushed, renderSecretsFound }] = await loadHandoff();
      const outcome = await pushHandoff(ctx.deps, {
        projectRoot: ctx.root,
        remote: options.remote,
        name: options.name,
        allowSecrets: options.allowSecrets === true,
        force: options.force === true,
        verify: options.verify !== false,
      });
      if (!outcome.pushed) {
        if (ctx.out.json) ctx.out.printJson({ pushed: false, secrets: outcome.secrets });
        ctx.out.note(renderSecretsFound(outcome.secrets, ctx.words));
        return EXIT.failure;
      }
      const { pushed: _pushed, ...json } = outcome;
      if (ctx.out.json) ctx.out.printJson(json);
      else ctx.out.print(renderPushed(outcome, ctx.words));
      return EXIT.ok;
    }),
  );

  withCommonOptions(
    handoff
      .command('pull')
      .description('make the working tree equal to a handoff and bring its checkpoint (shows the plan first)')
      .option('--remote <name>', "the remote (default: the branch's push remote, else origin)")
      .option(
        '--name <name>',
        'the handoff name (default: the current branch; in a folder of the repository, the folder then the branch)',
      )
      .option('--dry-run', 'show the plan and change nothing')
      .option('-y, --yes', 'apply without asking')
      .option(
        '--checkout',
        "when HEAD is not the handoff's base commit, check it out first (clean tree only)",
      ),
  ).action(
    run(async (ctx) => {
      const options = ctx.options as {
        remote?: string;
        name?: string;
        dryRun?: boolean;
        yes?: boolean;
        checkout?: boolean;
      };
      refuseEmptyRemote(options.remote);
      const request = { projectRoot: ctx.root, remote: options.remote, name: options.name };
      const [{ pullHandoff }, { renderPull, renderPullCheckout }] = await loadHandoff();
      // With --checkout, so that a plan the checkout would refuse (a dirty tree) is refused as the run is.
      const plan = await pullHandoff(ctx.deps, {
        ...request,
        dryRun: true,
        checkout: options.checkout === true,
      });
      const json = (outcome: typeof plan) => ({
        ref: outcome.ref,
        commit: outcome.commit,
        base: outcome.base,
        applied: outcome.applied,
        changed: outcome.changed,
        undo: outcome.undo,
        checkpoint: outcome.checkpoint,
        redacted: outcome.redacted,
        leftOut: outcome.leftOut ?? [],
        // An earlier version's handoff: the folder it was pushed from is unknown (the text warns).
        folderUnknown: outcome.folderUnknown === true,
        // Where HEAD was before --checkout moved it: undoing the pull (undo) does not move it back.
        checkedOutFrom: outcome.checkedOutFrom ?? null,
      });
      if (!plan.baseMatches && !options.checkout) {
        if (ctx.out.json) ctx.out.printJson(json(plan));
        ctx.out.note(renderPull(plan, ctx.words));
        return EXIT.failure;
      }
      // With --checkout on another commit: the checkout, where HEAD ends up, and the files it all changes.
      const preview = plan.baseMatches ? renderPull(plan, ctx.words) : renderPullCheckout(plan);
      // What a script sees of a plan not applied (a dry run, or no terminal to confirm on).
      const planJson = {
        ...json(plan),
        checkout: !plan.baseMatches,
        ...(plan.baseMatches ? {} : { checkoutBranch: plan.checkout?.branch ?? null }),
      };
      if (options.dryRun) {
        // A dry run of --checkout shows the checkout it would make, not advice to pass --checkout.
        if (ctx.out.json) ctx.out.printJson(planJson);
        else
          ctx.out.print(
            plan.baseMatches
              ? renderPull(plan, ctx.words, { dryRun: true, remote: options.remote })
              : renderPullCheckout(plan, { dryRun: true, surface: ctx.words, remote: options.remote }),
          );
        return EXIT.ok;
      }
      // A checkpoint replaced is a change too, even when no file changes (trial report, item 1).
      if (!options.yes && (!changesNothing(plan.changed) || !plan.baseMatches)) {
        if (!ctx.out.isTTY || !process.stdin.isTTY || ctx.out.json) {
          // A script asked for JSON: it gets the plan it would have confirmed, on stdout, as restore gives it.
          if (ctx.out.json) ctx.out.printJson(planJson);
          else ctx.out.note(preview);
          ctx.out.note('Not applied: pass --yes to pull without a terminal to confirm on.');
          return EXIT.notConfirmed;
        }
        ctx.out.print(preview);
        if (
          !(await confirm('Apply this handoff? The current state is snapshotted first, so it can be undone.'))
        ) {
          ctx.out.note('Nothing was changed.');
          return EXIT.notConfirmed;
        }
      }
      const done = await pullHandoff(ctx.deps, {
        ...request,
        dryRun: false,
        checkout: options.checkout === true,
      });
      if (ctx.out.json) ctx.out.printJson(json(done));
      else ctx.out.print(renderPull(done, ctx.words));
      return EXIT.ok;
    }),
  );

  withCommonOptions(
    handoff
      .command('list')
      .description('the handoffs on the remote')
      .option('--remote <name>', "the remote (default: the branch's push remote, else origin)"),
  ).action(
    run(async (ctx) => {
      const options = ctx.options as { remote?: string };
      refuseEmptyRemote(options.remote);
      const [{ listHandoffs }, { renderHandoffList }] = await loadHandoff();
      const outcome = await listHandoffs(ctx.deps, { projectRoot: ctx.root, remote: options.remote });
      if (ctx.out.json) ctx.out.printJson(outcome);
      else ctx.out.print(renderHandoffList(outcome));
      return EXIT.ok;
    }),
  );

  withCommonOptions(
    handoff
      .command('drop')
      .description('delete a handoff from the remote (asks first; --yes without a terminal)')
      .argument('<name>', 'the handoff name')
      .option('--remote <name>', "the remote (default: the branch's push remote, else origin)")
      .option('-y, --yes', 'delete without asking')
      .option('--no-verify', "do not run the project's pre-push hook (as git push --no-verify)"),
  ).action(
    run(async (ctx, name: string) => {
      const options = ctx.options as { remote?: string; yes?: boolean; verify?: boolean };
      refuseEmptyRemote(options.remote);
      const [{ dropHandoff, listHandoffs }, { renderHandoffList }] = await loadHandoff();
      const request = { projectRoot: ctx.root, remote: options.remote, name };
      const missing = (remote: string, ref: string) => {
        if (ctx.out.json) ctx.out.printJson({ remote, ref, commit: null, dropped: false });
        else
          ctx.out.print(
            `No handoff '${escapeControls(name)}' on ${escapeControls(remote)}: ${ctx.words.listHandoffs}.`,
          );
        return EXIT.failure;
      };
      // The handoff may be a teammate's, and nothing here can bring it back: asked as a push over it is.
      let shown: string | undefined;
      if (!options.yes) {
        const plan = await dropHandoff(ctx.deps, { ...request, dryRun: true });
        if (plan.commit === null) return missing(plan.remote, plan.ref);
        const listed = await listHandoffs(ctx.deps, request).catch(() => null);
        const entry = listed?.handoffs.find((handoff) => handoff.ref === plan.ref);
        const what = entry
          ? renderHandoffList({ remote: plan.remote, handoffs: [entry] })
          : escapeControls(plan.ref);
        const question = `Delete handoff '${escapeControls(name)}' on ${escapeControls(plan.remote)}? Nothing here can bring it back.`;
        if (!ctx.out.isTTY || !process.stdin.isTTY || ctx.out.json) {
          if (ctx.out.json) ctx.out.printJson(plan);
          ctx.out.note(what);
          ctx.out.note('Not deleted: pass --yes to drop without a terminal to confirm on.');
          return EXIT.notConfirmed;
        }
        ctx.out.print(what);
        if (!(await confirm(question))) {
          ctx.out.note('Nothing was deleted.');
          return EXIT.notConfirmed;
        }
        shown = plan.commit;
      }
      // Only the handoff the person was shown: one pushed over it while they answered stays.
      const outcome = await dropHandoff(ctx.deps, {
        ...request,
        expectCommit: shown,
        verify: options.verify !== false,
      });
      if (!outcome.dropped) return missing(outcome.remote, outcome.ref);
      if (ctx.out.json) ctx.out.printJson(outcome);
      else ctx.out.print(`Deleted ${outcome.ref} on ${escapeControls(outcome.remote)}.`);
      return EXIT.ok;
    }),
  );
}
