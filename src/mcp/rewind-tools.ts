import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AppDeps } from '../app/deps.js';
import { diffSnapshot, gcSnapshots, listSnapshots, restoreSnapshot, takeSnapshot } from '../app/rewind.js';
import type { RootContext } from '../app/save.js';
import {
  atLeast,
  atMost,
  atMostChars,
  atMostItems,
  isWholeText,
  strictObject,
  wholeCharacters,
} from '../core/input.js';
import { SNAPSHOT_DEFAULTS } from '../core/snapshot.js';
import {
  renderDiff,
  renderRestore,
  renderSnapshot,
  renderSnapshotList,
  snapshotSummary,
} from '../core/snapshot-text.js';
import { quotedNamesField, textField, textResult } from './result.js';

export const projectRoot = z
  .string({ error: 'must be a string' })
  .max(4096, atMostChars(4096))
  .optional()
  .describe(
    'Absolute path of the project; overrides CHECKPOINT_PROJECT_ROOT, MCP roots and the working directory',
  );
/** What a tool that changes the working tree is asked first: show the plan only (the default). */
export const dryRun = z
  .boolean({ error: 'must be true or false' })
  .optional()
  .describe('Default true: show the plan, change nothing');
const snapshotId = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(64, atMostChars(64))
  .describe(
    'A snapshot id from list_snapshots, a unique prefix of one, "latest", or "latest~N" (N snapshots before the latest)',
  );

/**
 * A snapshot as the store records it. Loose (more keys allowed): a store is shared by every version the
 * user runs, and a field a newer one records must not make this one's results fail their own schema (a
 * review: an older server threw on `skipped.unreadable`).
 */
export const snapshotSchema = z.looseObject({
  id: z.string(),
  createdAt: z.string(),
  trigger: z.string(),
  label: z.string().optional(),
  sessionId: z.string().optional(),
  git: z.looseObject({ branch: z.string().nullable(), head: z.string() }).nullable(),
  changes: z.looseObject({ added: z.number(), modified: z.number(), deleted: z.number() }),
  skipped: z.looseObject({
    large: z.array(z.looseObject({ path: z.string(), bytes: z.number() })),
    nested: z.array(z.string()),
    invalidNames: z.array(z.string()).optional(),
    unreadable: z.array(z.looseObject({ path: z.string(), reason: z.string() })).optional(),
  }),
  aside: z.looseObject({ kept: z.number(), created: z.number() }).optional(),
});
const guardedPaths = z.array(z.object({ path: z.string(), reason: z.string() }));
const headSchema = z.object({ branch: z.string().nullable(), head: z.string() });

const checkpointLabel = z.object({
  id: z.string(),
  goal: z.string().nullable(),
  updatedAt: z.string().nullable(),
});

export const planSchema = z.object({
  overwrite: z.array(z.string()),
  create: z.array(z.string()),
  delete: z.array(z.string()),
  keptAside: guardedPaths.describe(
    'Paths no snapshot holds (ignored, over the size cap) that the restore changes: copied into the store first, so undo brings them back',
  ),
  refused: guardedPaths.describe(
    'Paths left as they are, because undo could not bring back what changing them destroys (nested repositories, submodules, over the keep-aside limit)',
  ),
  links: guardedPaths
    .optional()
    .describe(
      'What the restore cannot bring back through links: edits made through a symbolic link out of the project, and the other links of a hard-linked file it replaces',
    ),
  modes: z
    .array(z.object({ path: z.string(), oldMode: z.string(), newMode: z.string() }))
    .optional()
    .describe(
      "The paths to overwrite whose mode changes: git's mode now (oldMode) and in the snapshot (newMode)",
    ),
  replaced: guardedPaths
    .optional()
    .describe(
      'Symbolic links the restore replaces with a folder or a file, or writes in place of one: only the link itself is removed or written, never what it points to',
    ),
  checkpoint: z
    .object({
      current: checkpointLabel.nullable(),
      written: checkpointLabel.nullable(),
      isCurrentUnusable: z.boolean().optional(),
      isWrittenUnusable: z.boolean().optional(),
    })
    .optional()
    .describe(
      "The checkpoint the restore writes besides the files (a handoff's, or the one a pull replaced, brought back by its undo): `current` is the one here (null: none), kept with the undo snapshot, its file and backup byte for byte; `written` null: the restore removes the one here (the undo of a pull onto a machine that had none). isCurrentUnusable: the checkpoint file here is damaged (`current` is then its backup's, if any); isWrittenUnusable: the restore writes back a damaged file the snapshot kept. Absent: the checkpoint stays as it is",
    ),
});

/** The session id Claude Code gives its MCP servers, when it does. */
function sessionIdFrom(env: NodeJS.ProcessEnv): string | undefined {
  return env.CLAUDE_SESSION_ID ?? env.CLAUDE_CODE_SESSION_ID ?? undefined;
}

/** Registers the rewind tools: snapshots of the whole working tree, and a safe way back to them. */
export function registerRewindTools(server: McpServer, deps: AppDeps, rootContext: RootContext): void {
  server.registerTool(
    'snapshot_files',
    {
      title: 'Snapshot files',
      description:
        'Take a snapshot of the whole working tree now (tracked and untracked files, honouring .gitignore), stored privately outside the project. An unchanged tree reuses the latest snapshot. Use before risky changes.',
      inputSchema: strictObject({
        label: z
          .string({ error: 'must be a string' })
          .max(SNAPSHOT_DEFAULTS.labelChars, atMostChars(SNAPSHOT_DEFAULTS.labelChars))
          .refine(isWholeText, wholeCharacters())
          .optional()
          .describe('A short note on why (redacted like every other text)'),
        projectRoot,
      }),
      outputSchema: z.object({
        created: z.boolean(),
        snapshot: snapshotSchema,
        text: textField,
        quotedNames: quotedNamesField,
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (input) => {
      const outcome = await takeSnapshot(
        deps,
        {
          projectRoot: input.projectRoot,
          trigger: 'manual',
          label: input.label,
          sessionId: sessionIdFrom(deps.env),
        },
        rootContext,
      );
      // Past a size cap, or a long history to pack: after the answer, as the hooks' background gc would.
      if (outcome.capDue || outcome.packDue)
        void gcSnapshots(deps, { projectRoot: outcome.root.root, ifDue: true }).catch(() => undefined);
      const hasLabel = input.label !== undefined;
      return textResult(
        renderSnapshot(outcome.created, outcome.snapshot, { isFirst: outcome.isFirst, hasLabel }),
        {
          created: outcome.created,
          snapshot: snapshotSummary(outcome.snapshot),
        },
      );
    },
  );

  server.registerTool(
    'list_snapshots',
    {
      title: 'List snapshots',
      description:
        'List the snapshots of this project, newest first, with trigger, label and what changed, plus the store size.',
      inputSchema: strictObject({
        limit: z
          .number({ error: 'must be a number' })
          .int({ error: 'must be an integer' })
          .min(1, atLeast(1))
          .max(1000, atMost(1000))
          .optional()
          .describe('How many to show (default 20)'),
        projectRoot,
      }),
      outputSchema: z.object({
        quotedNames: quotedNamesField,
        snapshots: z.array(snapshotSchema),
        total: z.number(),
        storeBytes: z.number(),
        text: textField,
      }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (input) => {
      const limit = input.limit ?? 20;
      const outcome = await listSnapshots(deps, { projectRoot: input.projectRoot, limit }, rootContext);
      const shown = outcome.snapshots.slice(0, limit);
      return textResult(renderSnapshotList(shown, outcome.total, outcome.storeBytes, deps.now()), {
        snapshots: shown.map(snapshotSummary),
        total: outcome.total,
        storeBytes: outcome.storeBytes,
      });
    },
  );

  server.registerTool(
    'diff_snapshot',
    {
      title: 'Diff snapshot',
      description:
        'Compare a snapshot with the current working tree (or with another snapshot): the files that differ with line counts, or a unified diff of one path.',
      inputSchema: strictObject({
        snapshotId,
        against: snapshotId
          .optional()
          .describe('Another snapshot to compare with; default: the current working tree'),
        path: z
          .string({ error: 'must be a string' })
          .min(1, { error: 'must not be empty' })
          .max(1024, atMostChars(1024))
          .optional()
          .describe('One file for a unified diff'),
        projectRoot,
      }),
      outputSchema: z.object({
        quotedNames: quotedNamesField,
        from: z.string(),
        to: z.string(),
        files: z.array(
          z.object({
            path: z.string(),
            status: z.string(),
            added: z.number().nullable(),
            deleted: z.number().nullable(),
            oldMode: z.string().optional().describe("git's mode before, when the mode changed (100644)"),
            newMode: z.string().optional().describe("git's mode after, when the mode changed (100755)"),
            linkToItself: z
              .enum(['old', 'new'])
              .optional()
              .describe(
                'The side on which the path is a symbolic link to itself, which holds nothing: new, a file deleted (D); old, one back (A)',
              ),
          }),
        ),
        patch: z.string().optional(),
        notHeld: z
          .array(
            z.object({
              snapshot: z.string(),
              leftOut: z.array(
                z.object({
                  path: z.string(),
                  why: z.enum(['large', 'nested', 'unreadable']),
                  bytes: z.number().optional(),
                  reason: z.string().optional(),
                }),
              ),
            }),
          )
          .optional()
          .describe(
            "What a side left out although it was there (over the size cap, a nested repository, a folder git could not read): not compared, so neither listed in files nor counted as deleted or added ('working tree' for the tree now)",
          ),
        text: textField,
      }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (input) => {
      const outcome = await diffSnapshot(deps, input, rootContext);
      return textResult(renderDiff(outcome), {
        from: outcome.from,
        to: outcome.to,
        files: outcome.files,
        ...(outcome.patch === undefined ? {} : { patch: outcome.patch }),
        ...(outcome.notHeld === undefined ? {} : { notHeld: outcome.notHeld }),
      });
    },
  );

  server.registerTool(
    'restore_snapshot',
    {
      title: 'Restore snapshot',
      description:
        'Bring the working tree, or selected paths, back to a snapshot. dryRun defaults to true and only shows the plan (files to overwrite, create, delete); run again with dryRun: false to apply. Before applying, the current state is snapshotted so the restore can be undone: the undo it returns names that snapshot and the paths to restore it at (the same paths). Paths no snapshot holds (ignored files, files over the size cap) are kept aside in the store before they change, so undo brings them back; nested repositories, submodules, .git and the checkpoint files are never touched (the plan lists what is kept aside or refused, and why), except that restoring the safety snapshot of a handoff pull (the whole tree) puts back the checkpoint file and its backup as the pull found them, byte for byte (a damaged one too), or, where there was none, removes whatever checkpoint is there by then (the pulled one or one saved since), keeping the one here with the safety snapshot of that undo (plan.checkpoint names it); HEAD and the index never move. Snapshots hold symbolic links as links and files, not folders: edits made through a link out of the project, the other links of a hard-linked file, and an empty folder removed since are not brought back (the plan names the links under links; a link it replaces with a folder or a file, or writes in place of one, under replaced: only the link itself changes, never what it points to).',
      inputSchema: strictObject({
        snapshotId,
        paths: z
          .array(z.string().min(1, { error: 'must not be empty' }).max(1024, atMostChars(1024)), {
            error: 'must be an array',
          })
          .max(100, atMostItems(100))
          .optional()
          .describe('Restore only these files or folders (relative to the project root)'),
        dryRun,
        projectRoot,
      }),
      outputSchema: z.object({
        quotedNames: quotedNamesField,
        snapshotId: z.string(),
        dryRun: z.boolean(),
        plan: planSchema,
        undoSnapshotId: z.string().nullable(),
        undo: z
          .object({ snapshotId: z.string(), paths: z.array(z.string()) })
          .nullable()
          .describe(
            'How to undo: restore_snapshot with this snapshotId and these paths (empty: the whole tree), the paths this restore was limited to',
          ),
        headMoved: z
          .object({ snapshot: headSchema, current: headSchema })
          .nullable()
          .describe('HEAD or the branch moved since the snapshot; the restore writes files only'),
        text: textField,
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (input) => {
      const outcome = await restoreSnapshot(
        deps,
        {
          projectRoot: input.projectRoot,
          snapshotId: input.snapshotId,
          paths: input.paths,
          dryRun: input.dryRun ?? true,
          sessionId: sessionIdFrom(deps.env),
        },
        rootContext,
      );
      return textResult(renderRestore(outcome), {
        snapshotId: outcome.snapshot.id,
        dryRun: outcome.dryRun,
        plan: outcome.plan,
        undoSnapshotId: outcome.undoSnapshotId,
        undo: outcome.undo,
        headMoved: outcome.headMoved ?? null,
      });
    },
  );
}
