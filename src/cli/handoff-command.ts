import type { Command } from 'commander';
import { dropHandoff, listHandoffs, pullHandoff, pushHandoff } from '../app/handoff.js';
import { planSize } from '../core/snapshot.js';
import { renderPlan } from '../core/snapshot-text.js';
import { type Runner, withCommonOptions } from './context.js';
import { confirm, EXIT } from './output.js';

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
      .option('--name <name>', 'the handoff name (default: the current branch)')
      .option('--allow-secrets', 'push even when the secret scan finds something')
      .option('--force', "replace the remote's handoff even if it changed since this machine last saw it"),
  ).action(
    run(async (ctx) => {
      const options = ctx.options as {
        remote?: string;
        name?: string;
        allowSecrets?: boolean;
        force?: boolean;
      };
      const outcome = await pushHandoff(ctx.deps, {
        projectRoot: ctx.root,
        remote: options.remote,
        name: options.name,
        allowSecrets: options.allowSecrets === true,
        force: options.force === true,
      });
      if (!outcome.pushed) {
        if (ctx.out.json) ctx.out.printJson({ pushed: false, secrets: outcome.secrets });
        for (const finding of outcome.secrets)
          ctx.out.note(`${finding.file}:${finding.line} ${finding.rule}`);
        ctx.out.note(
          'Nothing was pushed: the secret scan found the above. Remove them, or pass --allow-secrets if they are not secrets.',
        );
        return EXIT.failure;
      }
      const { pushed: _pushed, skipped, ...json } = outcome;
      if (ctx.out.json) ctx.out.printJson(json);
      else {
        const { added, modified, deleted } = outcome.files;
        ctx.out.print(
          `Pushed handoff ${outcome.ref} to ${outcome.remote} (${outcome.commit.slice(0, 12)}, on ${outcome.base.slice(0, 12)}): ${added.length} added, ${modified.length} modified, ${deleted.length} deleted.`,
        );
        for (const entry of skipped.large) ctx.out.note(`Left out (over the size cap): ${entry.path}`);
        for (const dir of skipped.nested) ctx.out.note(`Left out (a nested repository): ${dir}`);
        ctx.out.print(
          `On the other machine: claude-checkpoint handoff pull --name ${outcome.ref.split('/').slice(3).join('/')}`,
        );
      }
      return EXIT.ok;
    }),
  );

  withCommonOptions(
    handoff
      .command('pull')
      .description('make the working tree equal to a handoff and bring its checkpoint (shows the plan first)')
      .option('--remote <name>', "the remote (default: the branch's push remote, else origin)")
      .option('--name <name>', 'the handoff name (default: the current branch)')
      .option('--dry-run', 'show the plan and change nothing')
      .option('-y, --yes', 'apply without asking'),
  ).action(
    run(async (ctx) => {
      const options = ctx.options as { remote?: string; name?: string; dryRun?: boolean; yes?: boolean };
      const request = { projectRoot: ctx.root, remote: options.remote, name: options.name };
      const plan = await pullHandoff(ctx.deps, { ...request, dryRun: true });
      const describe = (outcome: typeof plan) =>
        [
          `Handoff ${outcome.ref} (${outcome.commit.slice(0, 12)}) by ${outcome.author}${outcome.goal ? `: ${outcome.goal}` : ''}`,
          ...renderPlan(outcome.changed),
        ].join('\n');
      if (!plan.baseMatches) {
        ctx.out.note(
          `Nothing was changed: the handoff was made on commit ${plan.base}${plan.branch ? ` (branch ${plan.branch})` : ''}, and HEAD here is another commit. Check out that commit (git fetch, then git checkout ${plan.branch ?? plan.base}), then pull again.`,
        );
        if (ctx.out.json) ctx.out.printJson({ ...pick(plan), applied: false, undo: null });
        return EXIT.failure;
      }
      if (options.dryRun || planSize(plan.changed) === 0) {
        if (ctx.out.json) ctx.out.printJson({ ...pick(plan), applied: false, undo: null });
        else ctx.out.print(describe(plan));
        if (planSize(plan.changed) === 0 && !options.dryRun) {
          const done = await pullHandoff(ctx.deps, { ...request, dryRun: false });
          if (!ctx.out.json)
            ctx.out.print(`The working tree already matches; checkpoint written (undo: ${done.undo}).`);
        }
        return EXIT.ok;
      }
      if (!options.yes) {
        if (!ctx.out.isTTY || !process.stdin.isTTY || ctx.out.json) {
          ctx.out.note(describe(plan));
          ctx.out.note('Not applied: pass --yes to pull without a terminal to confirm on.');
          return EXIT.notConfirmed;
        }
        ctx.out.print(describe(plan));
        if (
          !(await confirm('Apply this handoff? The current state is snapshotted first, so it can be undone.'))
        ) {
          ctx.out.note('Nothing was changed.');
          return EXIT.notConfirmed;
        }
      }
      const done = await pullHandoff(ctx.deps, { ...request, dryRun: false });
      if (ctx.out.json) ctx.out.printJson({ ...pick(done), applied: done.applied, undo: done.undo });
      else
        ctx.out.print(
          `Applied handoff ${done.ref}: ${planSize(done.changed)} file(s) changed, checkpoint written. Undo with: claude-checkpoint restore ${done.undo} --yes`,
        );
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
      const outcome = await listHandoffs(ctx.deps, { projectRoot: ctx.root, remote: options.remote });
      if (ctx.out.json) ctx.out.printJson(outcome);
      else if (outcome.handoffs.length === 0) ctx.out.print(`No handoffs on ${outcome.remote}.`);
      else
        for (const entry of outcome.handoffs)
          ctx.out.print(
            `${entry.name}  ${entry.createdAt}  ${entry.author}  ${entry.branch ?? '(detached)'}@${entry.base.slice(0, 9)}${entry.goal ? `  ${entry.goal}` : ''}`,
          );
      return EXIT.ok;
    }),
  );

  withCommonOptions(
    handoff
      .command('drop')
      .description('delete a handoff from the remote')
      .argument('<name>', 'the handoff name')
      .option('--remote <name>', "the remote (default: the branch's push remote, else origin)"),
  ).action(
    run(async (ctx, name: string) => {
      const options = ctx.options as { remote?: string };
      const outcome = await dropHandoff(ctx.deps, { projectRoot: ctx.root, remote: options.remote, name });
      if (ctx.out.json) ctx.out.printJson(outcome);
      else
        ctx.out.print(
          outcome.dropped
            ? `Deleted ${outcome.ref} on ${outcome.remote}.`
            : `No handoff '${name}' on ${outcome.remote}.`,
        );
      return outcome.dropped ? EXIT.ok : EXIT.failure;
    }),
  );
}

function pick(outcome: { ref: string; commit: string; base: string; changed: unknown }) {
  return { ref: outcome.ref, commit: outcome.commit, base: outcome.base, changed: outcome.changed };
}
