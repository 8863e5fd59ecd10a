import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AppDeps } from '../app/deps.js';
import { pullHandoff, pushHandoff } from '../app/handoff.js';
import type { RootContext } from '../app/save.js';
import { renderPull, renderPushed, renderSecretsFound } from '../core/handoff-text.js';
import { atMostChars, strictObject } from '../core/input.js';
import { quotedNamesField, textField, textResult } from './result.js';
import { dryRun, planSchema, projectRoot } from './rewind-tools.js';

const remote = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(200, atMostChars(200))
  .optional()
  .describe("A git remote of the project (default: the branch's push remote, else origin)");
const name = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(100, atMostChars(100))
  .optional()
  .describe(
    'The handoff name (default: the current branch; in a folder of the repository, the folder then the branch)',
  );

/**
 * push_handoff and pull_handoff: the CLI's handoff for agents. Two choices stay with people, in the CLI:
 * pushing past the secret scan (--allow-secrets) or the project's pre-push hook (--no-verify), and
 * replacing someone else's handoff (--force).
 */
export function registerHandoffTools(server: McpServer, deps: AppDeps, rootContext: RootContext): void {
  server.registerTool(
    'push_handoff',
    {
      title: 'Push handoff',
      description:
        "Hand the work to another machine or a teammate through the project's git remote: pushes the whole working tree (uncommitted and untracked files, ignored files never) and the checkpoint as one commit on HEAD, under refs/claude-checkpoint/handoff/<name> (no branch, no CI run). Scanned for secrets first: on a finding nothing is pushed. The project's pre-push hook runs, as for git push. Refused when the remote already has a handoff of that name this machine has not seen (another machine's, or one that changed since). Nothing of the project's branches, HEAD, index or config changes. Save a checkpoint first so the other side gets the goal and next steps.",
      inputSchema: strictObject({ remote, name, projectRoot }),
      outputSchema: z.object({
        quotedNames: quotedNamesField,
        pushed: z.boolean(),
        author: z.string().optional().describe('Who pushed, as git names them on this machine'),
        remote: z.string().optional(),
        ref: z.string().optional(),
        commit: z.string().optional(),
        base: z.string().optional(),
        branch: z.string().nullable().optional(),
        files: z
          .object({ added: z.array(z.string()), modified: z.array(z.string()), deleted: z.array(z.string()) })
          .optional(),
        checkpoint: z
          .enum(['sent', 'backup', 'none'])
          .optional()
          .describe(
            'The checkpoint the handoff carries: the file (sent), its backup .claude-checkpoint.prev when the file is unusable (backup: the text says why), or none',
          ),
        skipped: z
          .object({
            large: z.array(z.object({ path: z.string(), bytes: z.number() })),
            nested: z.array(z.string()),
            invalidNames: z.array(z.string()).optional(),
            unreadable: z.array(z.object({ path: z.string(), reason: z.string() })).optional(),
          })
          .optional()
          .describe(
            'What the handoff left out although it is in the working tree: files over the size cap, nested repositories',
          ),
        secrets: z
          .array(
            z.object({
              file: z.string(),
              line: z.number(),
              rule: z.string(),
              where: z.enum(['name', 'link target', 'message', 'handoff message', 'header']).optional(),
              commit: z
                .string()
                .optional()
                .describe(
                  'For content the working tree no longer holds: the unpushed commit that brought it, which the push sends too',
                ),
              field: z
                .string()
                .optional()
                .describe(
                  "In this handoff's own message: the metadata's field on that line (name, branch, author, goal, leftOut)",
                ),
              path: z
                .string()
                .optional()
                .describe('For field leftOut: the left-out path on that line, any secret in it redacted'),
            }),
          )
          .optional(),
        text: textField,
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async (input) => {
      const outcome = await pushHandoff(
        deps,
        {
          projectRoot: input.projectRoot,
          remote: input.remote,
          name: input.name,
          allowSecrets: false,
          force: false,
          verify: true,
        },
        rootContext,
      );
      if (!outcome.pushed) {
        const secrets = outcome.secrets.map(({ file, line, rule, where, commit, field, path }) => ({
          file,
          line,
          rule,
          ...(where ? { where } : {}),
          ...(commit !== undefined ? { commit } : {}),
          ...(field !== undefined ? { field } : {}),
          ...(path !== undefined ? { path } : {}),
        }));
        return textResult(renderSecretsFound(secrets), { pushed: false, secrets });
      }
      // Field by field: the client rejects the whole result for one key its outputSchema does not name.
      return textResult(renderPushed(outcome), {
        pushed: true,
        author: outcome.author,
        remote: outcome.remote,
        ref: outcome.ref,
        commit: outcome.commit,
        base: outcome.base,
        branch: outcome.branch,
        files: outcome.files,
        checkpoint: outcome.checkpoint,
        skipped: outcome.skipped,
      });
    },
  );

  server.registerTool(
    'pull_handoff',
    {
      title: 'Pull handoff',
      description:
        "Continue work handed off from another machine or a teammate: fetches the handoff from the project's git remote into the private store, and makes the working tree equal to it, then writes its checkpoint (call load_session_checkpoint next); the plan (changed.checkpoint) says when that replaces the checkpoint here, which the undo snapshot keeps and brings back. dryRun defaults to true and only shows the plan; run again with dryRun: false to apply. Before applying, the current state is snapshotted, so restore_snapshot with the returned undo id puts it back. Nothing changes when HEAD is not the handoff's base commit: the result names the commit to check out.",
      inputSchema: strictObject({
        remote,
        name,
        dryRun,
        projectRoot,
      }),
      outputSchema: z.object({
        quotedNames: quotedNamesField,
        ref: z.string(),
        commit: z.string(),
        base: z.string(),
        baseMatches: z.boolean(),
        applied: z.boolean(),
        changed: planSchema,
        undo: z.string().nullable(),
        redacted: z
          .number()
          .describe(
            "Values redacted from the handoff's checkpoint and metadata before anything was shown or written",
          ),
        checkpoint: z
          .enum(['none', 'unchanged', 'written', 'would be written'])
          .describe(
            "The checkpoint: none in the handoff (the one here stays), unchanged (the one here already is the handoff's), written (changed.checkpoint says which it replaced; the undo brings that one back, or where there was none removes whatever checkpoint is there by then, kept with the undo's own safety snapshot), or would be written when nothing was applied (a dry run, the default, or a base that does not match): an apply would write it",
          ),
        folderUnknown: z
          .boolean()
          .describe(
            'An earlier version pushed the handoff without naming its folder in the repository: it is applied here as if pushed from this project (check with the user that it was)',
          ),
        text: textField,
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    async (input) => {
      const outcome = await pullHandoff(
        deps,
        {
          projectRoot: input.projectRoot,
          remote: input.remote,
          name: input.name,
          dryRun: input.dryRun ?? true,
        },
        rootContext,
      );
      return textResult(renderPull(outcome, 'mcp', { dryRun: !outcome.applied }), {
        ref: outcome.ref,
        commit: outcome.commit,
        base: outcome.base,
        baseMatches: outcome.baseMatches,
        applied: outcome.applied,
        changed: outcome.changed,
        undo: outcome.undo,
        redacted: outcome.redacted,
        checkpoint: outcome.checkpoint,
        folderUnknown: outcome.folderUnknown === true,
      });
    },
  );
}
