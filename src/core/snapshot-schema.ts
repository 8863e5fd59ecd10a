import * as z from 'zod/mini';

// zod/mini: the mini build costs a fraction of the full one to load.
const count = z.int().check(z.minimum(0));
const changeCounts = z.object({ added: count, modified: count, deleted: count });

/** Metadata of one snapshot, stored as JSON in the message of its commit in the private store. */
export const snapshotMetaSchema = z.looseObject({
  id: z.string().check(z.regex(/^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$/)),
  createdAt: z.string(),
  trigger: z.string().check(z.minLength(1)),
  label: z.optional(z.string()),
  sessionId: z.optional(z.string()),
  /** The agent whose prompt this snapshot precedes, or whose turn it ends (claude, codex, gemini, copilot, opencode). */
  agent: z.optional(z.string()),
  /** The agent's id of the prompt, where it gives one: finds the prompt in the transcript. */
  promptId: z.optional(z.string()),
  /** The agent's transcript of the session, as its hook named it. */
  transcriptPath: z.optional(z.string()),
  git: z.nullable(z.object({ branch: z.nullable(z.string()), head: z.string() })),
  changes: changeCounts,
  skipped: z.object({
    /**
     * Files over the size cap, with their size; since 2026-12-07 also their stamp (FileStamp: modification
     * time in ns, inode) where the capture read it, which tells a rewind whether a held copy is the same file.
     */
    large: z.array(
      z.object({
        path: z.string(),
        bytes: z.int(),
        mtimeNs: z.optional(z.string()),
        ino: z.optional(z.string()),
      }),
    ),
    nested: z.array(z.string()),
    /**
     * Files whose name is not valid UTF-8, as git shows them (`"caf\351.txt"`): skipped and listed by
     * snapshots taken before such names were held; read, never written now.
     */
    invalidNames: z.optional(z.array(z.string())),
    /**
     * Folders git could not read (a path longer than the system allows, no permission): what is in them
     * is in no snapshot. The name clipped (clipPath), with git's reason in words. Only when there are some.
     */
    unreadable: z.optional(z.array(z.object({ path: z.string(), reason: z.string() }))),
  }),
  /**
   * Set on a safety snapshot that holds more than its tree: what the restore after it kept aside (paths
   * no snapshot holds) and the paths it created. Restoring the snapshot brings both back exactly.
   */
  aside: z.optional(z.object({ kept: count, created: count })),
  /**
   * Files over the size cap this snapshot holds all the same (a pre-command snapshot holds those its
   * command names), each with its size and stamp when it was held: what a rewind compares with the
   * prompt's left-out entry before it brings one back.
   */
  held: z.optional(
    z.array(z.object({ path: z.string(), bytes: z.int(), mtimeNs: z.string(), ino: z.string() })),
  ),
});

export type SnapshotMeta = z.infer<typeof snapshotMetaSchema>;
export type ChangeCounts = z.infer<typeof changeCounts>;
