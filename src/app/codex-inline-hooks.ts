/**
 * Codex reads hooks from `hooks.json` and from inline `[hooks]` tables in `config.toml`; when one folder
 * holds both, it merges them and warns at every startup (developers.openai.com/codex/hooks). Setup writes
 * its hooks to `hooks.json`, so a `config.toml` with inline hooks beside it gets a note from setup and
 * from doctor. Pure: both callers parse the file themselves.
 */
import { escapeControls } from '../core/quote.js';

/**
 * The events with inline hooks in a parsed `config.toml`: every key under `hooks` but `state`, the table
 * where Codex keeps its approvals of hooks (whichever file they are in), which is not a hook.
 */
export function inlineHookEvents(config: unknown): string[] {
  const hooks = (config as { hooks?: unknown } | null)?.hooks;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) return [];
  return Object.keys(hooks).filter((key) => key !== 'state');
}

/** What to say, and what to do, when `configFile` has inline hooks and setup's are in `hooksFile`. */
export function hooksInBothPlaces(
  configFile: string,
  hooksFile: string,
  events: readonly string[],
): { detail: string; fix: string } {
  return {
    // The events are the user's TOML keys, which may hold any character: escaped for the terminal.
    detail: `${configFile} has inline hooks ([hooks] for ${events.map((event) => escapeControls(event)).join(', ')}) beside ${hooksFile}, which holds claude-checkpoint's: Codex merges the two and warns at every startup`,
    fix: `Move your [[hooks.<Event>]] tables from ${configFile} into ${hooksFile} (the same fields, as JSON under "hooks"), then delete them from config.toml; leave [hooks.state], Codex's approvals, where it is.`,
  };
}
