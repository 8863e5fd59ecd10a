import { isDeepStrictEqual } from 'node:util';
import {
  applyEdits,
  type FormattingOptions,
  findNodeAtLocation,
  format,
  type JSONPath,
  modify,
  type ParseError,
  parse,
  parseTree,
} from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { CheckpointError } from '../core/errors.js';

export const NAME = 'claude-checkpoint';

/**
 * The last argument of every hook command setup writes. Only a hook carrying it is ours: a user's own
 * hook that runs a `hook.js` of theirs with the same words is never touched. The hook entry ignores
 * arguments it does not know, and no agent reads inside a command, so every agent's schema accepts it.
 */
export const HOOK_MARK = '--by-claude-checkpoint-setup';

/**
 * The environment variable every server entry setup writes carries (the servers ignore it). Only a
 * `claude-checkpoint` server with it is ours; `env` (or OpenCode's `environment`) is a field each
 * agent's schema allows, where an unknown field would be refused by some (OpenCode's config is strict).
 */
export const SERVER_MARK = { CLAUDE_CHECKPOINT_SETUP: 'added by claude-checkpoint setup' };

const FORMAT: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: '\n' };

/** What one file of an agent's configuration holds of ours, as setup's output names it. */
export type SetupHolds = 'the MCP server' | 'the hooks' | 'the MCP server and hooks' | 'the plugin';

/** One file of an agent's configuration: how our entries go in, and how they come out again. */
export interface FileEdit {
  file: string;
  holds: SetupHolds;
  /** The text with our entries in (and any older ones of ours replaced). */
  install(text: string | null): string;
  /** The text with exactly our entries out (unchanged when none is there); `null` for a file of ours alone. */
  remove(text: string): string | null;
  /** Whether nothing is left in the text once our entries are out (a file setup created can then go). */
  isEmpty(text: string): boolean;
}

export function hookCommand(hookPath: string, event: string, agent: string): string {
  return `node ${quote(hookPath)} ${event} --agent ${agent} ${HOOK_MARK}`;
}

/** Exactly the shape `hookCommand` writes, for any installation's path: nothing that merely ends like it. */
export function isOurHookCommand(command: unknown): boolean {
  return (
    typeof command === 'string' &&
    /^node (?:[\w@%+=:,./-]+|'(?:[^']|'\\'')*') [A-Za-z]+ --agent [a-z]+ --by-claude-checkpoint-setup$/.test(
      command,
    )
  );
}

function isOurServer(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { env, environment } = value as { env?: unknown; environment?: unknown };
  const marked = (vars: unknown) =>
    typeof vars === 'object' && vars !== null && 'CLAUDE_CHECKPOINT_SETUP' in vars;
  return marked(env) || marked(environment);
}

interface HookGroup {
  event: string;
  group: { hooks: Array<{ command?: string; bash?: string }> };
}

/**
 * A JSON-with-comments file: our server under `mcpServers` (or the agent's own key), our hook groups
 * appended under `hooks`. Only what we add is formatted; the user's text is kept as it is.
 */
export function jsonEdit(
  file: string,
  ours: { serverKey?: string; server?: Record<string, unknown>; groups: HookGroup[] },
): FileEdit {
  const serverKey = ours.serverKey ?? 'mcpServers';
  const remove = (text: string) => {
    let current = text;
    const parsed = parseJsonObject(current, file) as Record<string, unknown>;
    const hooks = asObject(parsed.hooks);
    // From the last to the first, so that the places still to edit do not move.
    const events = Object.entries(hooks ?? {}).reverse();
    for (const [event, groups] of events) {
      if (!Array.isArray(groups)) continue;
      let touched = false;
      for (let index = groups.length - 1; index >= 0; index--) {
        const entries = (groups[index] as { hooks?: unknown } | null)?.hooks;
        if (!Array.isArray(entries)) continue;
        const mine = entries.map((hook) => isOurHookCommand((hook as { command?: unknown } | null)?.command));
        if (!mine.includes(true)) continue;
        touched = true;
        if (mine.every(Boolean)) current = removeArrayElement(current, ['hooks', event], index);
        // A hook of the user's put into our group stays, in the group.
        else
          for (let at = mine.length - 1; at >= 0; at--)
            if (mine[at]) current = removeArrayElement(current, ['hooks', event, index, 'hooks'], at);
      }
      const left = (parse(current) as { hooks?: Record<string, unknown[]> }).hooks?.[event];
      if (touched && Array.isArray(left) && left.length === 0)
        current = applyEdits(current, modify(current, ['hooks', event], undefined, {}));
    }
    const servers = asObject(parsed[serverKey]);
    if (servers && isOurServer(servers[NAME]))
      current = applyEdits(current, modify(current, [serverKey, NAME], undefined, {}));
    // A container left empty by our removal goes too: setup made it.
    const after = parse(current) as Record<string, unknown>;
    for (const key of [serverKey, 'hooks'])
      if (parsed[key] !== undefined && isEmptyObject(after[key]) && !isEmptyObject(parsed[key]))
        current = applyEdits(current, modify(current, [key], undefined, {}));
    // Nothing but ours was in it: the empty object as it is written before setup fills it.
    if (current !== text && /^\s*\{\s*\}\s*$/.test(current)) return '{}\n';
    return current;
  };
  const holds: SetupHolds =
    ours.server === undefined
      ? 'the hooks'
      : ours.groups.length === 0
        ? 'the MCP server'
        : 'the MCP server and hooks';
  return {
    file,
    holds,
    remove,
    isEmpty: (text) => isEmptyObject(parse(text)),
    install: (before) => {
      const parsed = parseJsonObject(before ?? '{}', file) as Record<string, unknown>;
      const existing = asObject(parsed[serverKey])?.[NAME];
      if (ours.server !== undefined && existing !== undefined && !isOurServer(existing))
        throw new CheckpointError(
          'INVALID_INPUT',
          `${file} already has a "${NAME}" server under "${serverKey}" that setup did not add: remove or rename it, then run setup again`,
        );
      let text = remove(before ?? '{}\n');
      const empty = /^\s*\{\s*\}\s*$/.test(text);
      if (ours.server !== undefined) text = insertFormatted(text, [serverKey, NAME], ours.server);
      for (const { event, group } of ours.groups) {
        const current = (parse(text) as { hooks?: Record<string, unknown[]> }).hooks?.[event];
        text = Array.isArray(current)
          ? insertFormatted(text, ['hooks', event, current.length], group, true)
          : insertFormatted(text, ['hooks', event], [group]);
      }
      // A file of ours alone is formatted whole; in the user's file only what we add is.
      if (empty) text = applyEdits(text, format(text, undefined, FORMAT));
      // Already set up as this run would: leave the file as it is, whatever its layout.
      if (before !== null && isDeepStrictEqual(parse(before), parse(text))) return before;
      return text.endsWith('\n') ? text : `${text}\n`;
    },
  };
}

/**
 * Takes one element out of an array with the separator before it (or after it, for the first), so that
 * taking out what `insertFormatted` appended gives back the text as it was, byte for byte.
 */
function removeArrayElement(text: string, at: JSONPath, index: number): string {
  const items = findNodeAtLocation(
    parseTree(text) as NonNullable<ReturnType<typeof parseTree>>,
    at,
  )?.children;
  const item = items?.[index];
  if (!items || !item) return text;
  const previous = items[index - 1];
  const next = items[index + 1];
  const [start, end] = previous
    ? [previous.offset + previous.length, item.offset + item.length]
    : next
      ? [item.offset, next.offset]
      : [item.offset, item.offset + item.length];
  return text.slice(0, start) + text.slice(end);
}

/**
 * Inserts a value and formats only what was inserted: jsonc-parser's own formatting would also reformat
 * the user's neighbouring entries.
 */
function insertFormatted(text: string, at: JSONPath, value: unknown, isArrayInsertion = false): string {
  const edits = modify(text, at, value, { isArrayInsertion });
  const inserted = applyEdits(text, edits);
  const edit = edits[0];
  if (!edit) return inserted;
  return applyEdits(inserted, format(inserted, { offset: edit.offset, length: edit.content.length }, FORMAT));
}

/**
 * A file that is ours alone (a hooks file of ours, a plugin): written whole, removed whole, and only
 * when `isOurs` recognises it: a file of the user's at that path is neither replaced nor removed.
 */
export function ownFileEdit(
  file: string,
  holds: SetupHolds,
  content: string,
  isOurs: (text: string) => boolean,
): FileEdit {
  return {
    file,
    holds,
    isEmpty: () => true,
    install: (before) => {
      if (before !== null && before !== content && !isOurs(before))
        throw new CheckpointError(
          'INVALID_INPUT',
          `${file} exists and setup did not write it: move it away (or rename it), then run setup again`,
        );
      return content;
    },
    remove: (text) => (isOurs(text) ? null : text),
  };
}

/** A hooks file of ours (Copilot CLI's): every hook in it is one setup wrote. */
export function isOurHooksFile(text: string): boolean {
  try {
    const hooks = Object.values((JSON.parse(text) as { hooks?: Record<string, unknown> }).hooks ?? {}).flat();
    return (
      hooks.length > 0 && hooks.every((hook) => isOurHookCommand((hook as { bash?: unknown } | null)?.bash))
    );
  } catch {
    return false;
  }
}

const TOML_BEGIN = `# >>> ${NAME} (added by \`claude-checkpoint setup\`; remove with --uninstall)`;
const TOML_END = `# <<< ${NAME}`;

/**
 * A TOML file (Codex's config.toml): our server as a block of its own at the end, between two marker
 * comments, so that nothing else in the file is rewritten. The result is parsed before it is written.
 */
export function tomlServerEdit(file: string, serverPath: string): FileEdit {
  const remove = (text: string) => {
    const start = text.indexOf(`\n${TOML_BEGIN}\n`);
    const at = text.startsWith(`${TOML_BEGIN}\n`) ? 0 : start === -1 ? -1 : start + 1;
    if (at === -1) return text;
    const end = text.indexOf(`${TOML_END}\n`, at);
    if (end === -1) return text;
    // Our block was appended after one blank line (or opens the file): take that out too.
    const from = at > 0 && text[at - 1] === '\n' && text[at - 2] === '\n' ? at - 1 : at;
    return text.slice(0, from) + text.slice(end + TOML_END.length + 1);
  };
  return {
    file,
    holds: 'the MCP server',
    remove,
    isEmpty: (text) => text.trim() === '',
    install: (before) => {
      const base = remove(before ?? '');
      parseTomlOrThrow(base, file);
      const parsed = parseToml(base) as { mcp_servers?: Record<string, unknown> };
      if (parsed.mcp_servers && NAME in parsed.mcp_servers)
        throw new CheckpointError(
          'INVALID_INPUT',
          `${file} already has [mcp_servers.${NAME}] outside setup's block: remove it, then run setup again`,
        );
      const block = [
        TOML_BEGIN,
        `[mcp_servers.${NAME}]`,
        'command = "node"',
        `args = [${JSON.stringify(serverPath)}]`,
        TOML_END,
        '',
      ].join('\n');
      const text = base === '' ? block : `${base.endsWith('\n') ? base : `${base}\n`}\n${block}`;
      parseTomlOrThrow(text, file);
      return text;
    },
  };
}

function parseTomlOrThrow(text: string, file: string): void {
  try {
    parseToml(text);
  } catch (error) {
    throw new CheckpointError(
      'INVALID_INPUT',
      `${file} is not TOML this tool can edit safely (${(error as Error).message.split('\n')[0]}); fix it, then run setup again`,
    );
  }
}

function parseJsonObject(text: string, file: string): unknown {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true });
  if (errors.length > 0 || typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CheckpointError(
      'INVALID_INPUT',
      `${file} is not a JSON object this tool can edit safely (parse error at offset ${errors[0]?.offset ?? 0}); fix it or move it away, then run setup again`,
    );
  return value;
}

function asObject(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function isEmptyObject(value: unknown): boolean {
  const object = asObject(value);
  return object !== null && Object.keys(object).length === 0;
}

function quote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}
