/**
 * Sent to the client at initialization; Claude Code shows the model up to 2 KB of it, so it stays short
 * and says when to act, not how the server works.
 */
export const SERVER_INSTRUCTIONS = `This server keeps your working state for this project in a local checkpoint file, so a crash, /clear or a full context window does not cost you the context you built.

When to load: at the start of a session, or when the user asks to resume, call load_session_checkpoint once. If it finds a checkpoint, treat the brief as your memory: continue from its next steps, and re-read only the files it flags as changed after the checkpoint; everything else in it can be trusted.

When to save: call save_session_checkpoint without being asked
- after finishing a task or reaching a milestone,
- before risky operations (migrations, large refactors, rewriting git history, deleting files),
- when the conversation is getting long.
Use mode "merge" to update the current checkpoint; use "replace" when starting a new goal.

What to write: a reader with no memory of this conversation must be able to continue. Give a concrete goal, tasks with status, where things stand, ordered next steps, decisions and dead ends, and commands that mattered with their exit codes. Uncommitted files are detected with content hashes automatically; list files only to add a note, or to include committed files that matter.

Files: snapshot_files saves the whole working tree (before each prompt, the hooks do it too); list_snapshots, diff_snapshot and restore_snapshot (a plan first, dryRun: false to apply, always undoable) bring files back after a change went wrong.
Handoff: push_handoff carries the checkpoint and the uncommitted work to another machine or a teammate through the project's git remote (save a checkpoint first); pull_handoff brings one here (a plan first, dryRun: false to apply, undoable), then call load_session_checkpoint.

Secrets are redacted before anything is written, but do not paste them on purpose.`;
