import { shortOid } from './brief.js';
import { quotePath } from './quote.js';
import { type Reader, wordsOf } from './surface.js';

/** The save confirmation, worded as the original tool words it; shared by the MCP tool and the CLI. */
export function renderSaveText(outcome: {
  path: string;
  bytes: number;
  mode: string;
  counts: { tasks: number; modifiedFiles: number; recentCommands: number };
  warnings: readonly string[];
  git: { branch: string | null; head: string } | null;
}): string {
  const { counts } = outcome;
  const where = outcome.git
    ? ` on ${outcome.git.branch ?? 'detached HEAD'}@${shortOid(outcome.git.head)}`
    : '';
  return [
    `Checkpoint saved to ${quotePath(outcome.path)} (${outcome.bytes} bytes, ${outcome.mode}).`,
    `${counts.tasks} task(s), ${counts.modifiedFiles} file(s), ${counts.recentCommands} command(s)${where}.`,
    ...outcome.warnings.map((warning) => `⚠ ${warning}`),
  ].join('\n');
}

export function renderNothingToResume(path: string, surface: Reader = 'mcp'): string {
  return `No checkpoint at ${quotePath(path)}: nothing to resume. Start fresh, and save one with ${wordsOf(surface).saveCheckpoint} after the first milestone.`;
}
