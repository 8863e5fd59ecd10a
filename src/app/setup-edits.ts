import { isDeepStrictEqual } from 'node:util';
import {
  applyEdits,
  createScanner,
  type FormattingOptions,
  findNodeAtLocation,
  format,
  type JSONPath,
  type Node as JsonNode,
  modify,
  parse,
  parseTree,
} from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { CheckpointError } from '../core/errors.js';
import { parseJsoncObject } from './jsonc.js';
import { isOurHookCommand } from './setup-hooks.js';

export { isOurHookCommand };

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

/** The line break a text already uses (CRLF or LF): what setup writes in it, so no file gets both. */
function lineBreakOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** Formatting for what setup adds to `text`, in that text's line breaks. */
function formatFor(text: string): FormattingOptions {
  return { ...FORMAT, eol: lineBreakOf(text) };
}

/** What one file of an agent's configuration holds of ours, as setup's output names it. */
export type SetupHolds = 'the MCP server' | 'the hooks' | 'the MCP server and hooks' | 'the plugin';

/**
 * What setup made in one file, noted when it writes the file so that an uninstall takes out that and no
 * more: facts about the file as it was, never a copy of what the user wrote.
 */
export interface SetupNote {
  /** No file was there: setup created it. */
  created: boolean;
  /**
   * The objects and arrays setup added to the file (`["hooks", "Stop"]`): only these go when taking our
   * entries out leaves them empty; an empty one the user had stays. Absent in a note of an earlier version,
   * which noted created files only (every container of those is ours).
   */
  containers?: JSONPath[];
  /** The file's text when it held an empty object only, which setup lays out whole: uninstall writes it back. */
  emptyText?: string;
  /** The file did not end with a line break, and setup added one (after the JSON, before its TOML block). */
  addedLineBreak?: boolean;
  /** The folders setup created for the file, deepest first: only these go once empty. */
  folders?: string[];
}

/** One file of an agent's configuration: how our entries go in, and how they come out again. */
export interface FileEdit {
  file: string;
  holds: SetupHolds;
  /** The text with our entries in (and any older ones of ours replaced), and the note of what setup made. */
  install(text: string | null, note: SetupNote | null): { text: string; note: SetupNote };
  /** The text with exactly our entries out (unchanged when none is there); `null` for a file of ours alone. */
  remove(text: string, note: SetupNote | null): string | null;
  /** Whether nothing is left in the text once our entries are out (a file setup created can then go). */
  isEmpty(text: string): boolean;
}

export function hookCommand(hookPath: string, event: string, agent: string): string {
  return `node ${quote(hookPath)} ${event} --agent ${agent} ${HOOK_MARK}`;
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
  const remove = (text: string, note: SetupNote | null) => {
    let current = text;
    const parsed = parseJsonObject(current, file) as Record<string, unknown>;
    refuseDuplicateKeys(current, file, ['hooks', serverKey]);
    // Only a container setup added goes when our removal empties it (trial 2026-12-06: an empty
    // `"mcpServers": {}` of the user's went too). A note of an earlier version knew created files only.
    const containers = note?.containers ?? (note?.created === true ? null : holdingOursOnly(parsed));
    const isOurs = (at: JSONPath) =>
      containers === null || containers.some((made) => isDeepStrictEqual(made, at));
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
        if (mine.every(Boolean)) current = removeMember(current, ['hooks', event], index);
        // A hook of the user's put into our group stays, in the group.
        else
          for (let at = mine.length - 1; at >= 0; at--)
            if (mine[at]) current = removeMember(current, ['hooks', event, index, 'hooks'], at);
      }
      const left = (parse(current) as { hooks?: Record<string, unknown[]> }).hooks?.[event];
      if (touched && Array.isArray(left) && left.length === 0 && isOurs(['hooks', event]))
        current = removeMember(current, ['hooks'], event);
    }
    // A container emptied by our removal, and made by setup, goes too: in the reverse order of setup's
    // edits (the hooks after the server), so that each removal undoes exactly one insertion.
    const dropIfEmptied = (key: string) => {
      const now = (parse(current) as Record<string, unknown>)[key];
      if (parsed[key] !== undefined && isEmptyObject(now) && !isEmptyObject(parsed[key]) && isOurs([key]))
        current = removeMember(current, [], key);
    };
    dropIfEmptied('hooks');
    const servers = asObject(parsed[serverKey]);
    if (servers && isOurServer(servers[NAME])) current = removeMember(current, [serverKey], NAME);
    dropIfEmptied(serverKey);
    // Nothing but ours was in it: the empty object as it was before setup laid it out.
    if (current !== text && EMPTY_OBJECT.test(current)) return note?.emptyText ?? '{}\n';
    // The line break setup put at the end of a file that had none.
    if (current !== text && note?.addedLineBreak && current.endsWith('\n'))
      return current.slice(0, current.endsWith('\r\n') ? -2 : -1);
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
    install: (before, note) => {
      const parsed = parseJsonObject(before ?? '{}', file) as Record<string, unknown>;
      refuseDuplicateKeys(before ?? '{}', file, ['hooks', serverKey]);
      const existing = asObject(parsed[serverKey])?.[NAME];
      if (ours.server !== undefined && existing !== undefined && !isOurServer(existing))
        throw new CheckpointError(
          'INVALID_INPUT',
          `${file} already has a "${NAME}" server under "${serverKey}" that setup did not add: remove or rename it, then run setup again`,
        );
      let text = remove(before ?? '{}\n', note);
      const empty = EMPTY_OBJECT.test(text);
      // Without a note of the containers (an earlier version's setup), those holding ours alone were made
      // by it: they are noted now, so that uninstall takes them out too (trial 4, item 10).
      const made: JSONPath[] = [
        ...(note?.containers ?? (note?.created === true || before === null ? [] : holdingOursOnly(parsed))),
      ];
      const add = (at: JSONPath, key: string, value: unknown, inside: JSONPath[] = []) => {
        text = appendMember(text, at, key, value, file);
        for (const path of [[...at, key], ...inside])
          if (!made.some((known) => isDeepStrictEqual(known, path))) made.push(path);
      };
      if (ours.server !== undefined) {
        if ((parse(text) as Record<string, unknown>)[serverKey] === undefined)
          add([], serverKey, { [NAME]: ours.server });
        else text = appendMember(text, [serverKey], NAME, ours.server, file);
      }
      for (const { event, group } of ours.groups) {
        const hooksNow = (parse(text) as { hooks?: Record<string, unknown> }).hooks;
        if (hooksNow === undefined) add([], 'hooks', { [event]: [group] }, [['hooks', event]]);
        else if (hooksNow[event] === undefined) add(['hooks'], event, [group]);
        else text = appendMember(text, ['hooks', event], undefined, group, file);
      }
      // A file of ours alone is formatted whole; in the user's file only what we add is.
      if (empty) text = applyEdits(text, format(text, undefined, formatFor(text)));
      const emptyText =
        note?.emptyText ?? (before !== null && EMPTY_OBJECT.test(before) ? before : undefined);
      const addedLineBreak = note?.addedLineBreak === true || !text.endsWith('\n');
      const next: SetupNote = {
        created: note?.created === true || before === null,
        containers: made,
        ...(emptyText === undefined ? {} : { emptyText }),
        ...(addedLineBreak ? { addedLineBreak } : {}),
      };
      // Already set up as this run would: leave the file as it is, whatever its layout.
      if (before !== null && isDeepStrictEqual(parse(before), parse(text)))
        return { text: before, note: next };
      return {
        text: addedLineBreak && !text.endsWith('\n') ? `${text}${lineBreakOf(text)}` : text,
        note: next,
      };
    },
  };
}

const EMPTY_OBJECT = /^\s*\{\s*\}\s*$/;

/**
 * The containers of a settings object that hold nothing but ours: each `hooks.<event>` list whose groups
 * are all ours, `hooks` when every list in it is such, and the servers object when our server is all it
 * holds. What an earlier version, whose note did not name the containers it made, made: a list of the
 * user's holding only our entries cannot be told from one setup made, and an empty one means nothing.
 */
function holdingOursOnly(parsed: Record<string, unknown>): JSONPath[] {
  const found: JSONPath[] = [];
  const hooks = asObject(parsed.hooks);
  const isOurGroup = (group: unknown) => {
    const entries = (group as { hooks?: unknown } | null)?.hooks;
    return (
      Array.isArray(entries) &&
      entries.length > 0 &&
      entries.every((hook) => isOurHookCommand((hook as { command?: unknown } | null)?.command))
    );
  };
  const events = Object.entries(hooks ?? {});
  for (const [event, groups] of events)
    if (Array.isArray(groups) && groups.length > 0 && groups.every(isOurGroup)) found.push(['hooks', event]);
  if (events.length > 0 && found.length === events.length) found.push(['hooks']);
  for (const [key, value] of Object.entries(parsed)) {
    const servers = asObject(value);
    if (key !== 'hooks' && servers && Object.keys(servers).length === 1 && isOurServer(servers[NAME]))
      found.push([key]);
  }
  return found;
}

/**
 * A key written twice where setup edits (`hooks` or the servers' object at the top level, a key inside
 * either): JSON readers keep the last, jsonc-parser's tree finds the first, so setup could edit one and
 * read the other. Said as what it is, with the fix (it was reported as "hooks.<event> is not an object or
 * a list"). A key setup never edits (`"theme"` twice) is the user's business: setup adds beside it.
 */
function refuseDuplicateKeys(text: string, file: string, edited: readonly string[]): void {
  const root = parseTree(text, [], { allowTrailingComma: true });
  const check = (object: JsonNode | undefined, where: string) => {
    const seen = new Set<string>();
    for (const property of object?.type === 'object' ? (object.children ?? []) : []) {
      const key = property.children?.[0]?.value as string;
      if (seen.has(key) && (object !== root || edited.includes(key)))
        throw new CheckpointError(
          'INVALID_INPUT',
          `${file} has the key "${key}" twice ${where}: JSON keeps only the last one, so setup cannot tell which to edit. Merge the two into one, then run setup again`,
        );
      seen.add(key);
      if (object === root && edited.includes(key)) check(property.children?.[1], `in "${key}"`);
    }
  };
  check(root, 'at the top level');
}

/** jsonc-parser's token kinds (a `const enum` there, which an isolated module cannot read). */
const TOKEN = { comma: 5, lineComment: 12, blockComment: 13, blank: 15 } as const;

/** The object or array at `at`, or a clear error naming the file when something else is there. */
function containerAt(text: string, at: JSONPath, file: string): JsonNode {
  const root = parseTree(text, [], { allowTrailingComma: true });
  const node = root && (at.length === 0 ? root : findNodeAtLocation(root, at));
  if (!node || (node.type !== 'object' && node.type !== 'array'))
    throw new CheckpointError(
      'INVALID_INPUT',
      `${file}: "${at.join('.')}" is not an object or a list, where setup adds its entries; fix it, then run setup again`,
    );
  return node;
}

/**
 * Adds a member (a property with `key`, or an element) at the end of the object or array at `at`, laid out
 * as the user's last member is, after that member's comma and the comments on its line: a comment stays
 * after the entry it was written for (trial 2026-12-06, item 14). `removeMember` undoes it byte for byte.
 */
function appendMember(
  text: string,
  at: JSONPath,
  key: string | undefined,
  value: unknown,
  file: string,
): string {
  const container = containerAt(text, at, file);
  const last = container.children?.at(-1);
  // An empty container: jsonc-parser's insertion right after the bracket, which removeMember undoes exactly.
  if (!last) return insertFormatted(text, [...at, key ?? 0], value, key === undefined);
  const eol = lineBreakOf(text);
  const lastEnd = last.offset + last.length;
  const lineOfLast = lineBreakBefore(text, last.offset);
  const indent =
    lineOfLast === -1
      ? '  '.repeat(at.length + 1)
      : text.slice(text.indexOf('\n', lineOfLast) + 1, last.offset);
  const rendered = JSON.stringify(value, null, indent.startsWith('\t') ? '\t' : 2).replaceAll(
    '\n',
    `${eol}${indent}`,
  );
  const member = `${eol}${indent}${key === undefined ? '' : `${JSON.stringify(key)}: `}${rendered}`;
  // The user's comma and the comments on the line of their last member stay with it.
  const scanner = createScanner(text, false);
  scanner.setPosition(lastEnd);
  let tail = lastEnd;
  let hasComma = false;
  for (let token = scanner.scan(); ; token = scanner.scan()) {
    if (token === TOKEN.blank) continue;
    const isComment =
      token === TOKEN.lineComment ||
      (token === TOKEN.blockComment &&
        !/[\r\n]/.test(text.slice(scanner.getTokenOffset(), scanner.getPosition())));
    if (!isComment && !(token === TOKEN.comma && !hasComma)) break;
    if (token === TOKEN.comma) hasComma = true;
    tail = scanner.getPosition();
  }
  // A list the user ends with a comma: ours ends with one too, which tells uninstall whose comma it is.
  if (hasComma) return `${text.slice(0, tail)}${member},${text.slice(tail)}`;
  return `${text.slice(0, lastEnd)},${text.slice(lastEnd, tail)}${member}${text.slice(tail)}`;
}

/**
 * Takes one member (a property by key, or an element by index) out of the object or array at `at`: what
 * `appendMember` or jsonc-parser's insertion added, and nothing else, so the text is as it was before.
 */
function removeMember(text: string, at: JSONPath, member: string | number): string {
  const root = parseTree(text, [], { allowTrailingComma: true });
  const container = root && (at.length === 0 ? root : findNodeAtLocation(root, at));
  const children = container?.children;
  if (!container || !children) return text;
  const index =
    typeof member === 'number'
      ? member
      : children.findIndex((property) => property.children?.[0]?.value === member);
  const node = children[index];
  if (!node) return text;
  const end = node.offset + node.length;
  const scanner = createScanner(text, true);
  scanner.setPosition(end);
  const commaAt = scanner.scan() === TOKEN.comma ? scanner.getTokenOffset() : -1;
  const previous = children[index - 1];
  const next = children[index + 1];
  if (!previous)
    return (
      text.slice(0, container.offset + 1) +
      text.slice(next ? next.offset : commaAt === -1 ? end : commaAt + 1)
    );
  const lineStart = lineBreakBefore(text, node.offset);
  // Not on a line of its own (a one-line list): the separator before it goes with it.
  if (lineStart === -1) return text.slice(0, previous.offset + previous.length) + text.slice(end);
  if (commaAt !== -1) return text.slice(0, lineStart) + text.slice(commaAt + 1);
  // The last member: the comma after the one before it, which setup added, goes too.
  scanner.setPosition(previous.offset + previous.length);
  if (scanner.scan() !== TOKEN.comma) return text.slice(0, lineStart) + text.slice(end);
  const separator = scanner.getTokenOffset();
  return text.slice(0, separator) + text.slice(separator + 1, lineStart) + text.slice(end);
}

/** Where the line break before `offset` starts, when only blanks are between them; -1 otherwise. */
function lineBreakBefore(text: string, offset: number): number {
  let at = offset;
  while (at > 0 && (text[at - 1] === ' ' || text[at - 1] === '\t')) at--;
  if (text[at - 1] !== '\n') return -1;
  return text[at - 2] === '\r' ? at - 2 : at - 1;
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
  return applyEdits(
    inserted,
    format(inserted, { offset: edit.offset, length: edit.content.length }, formatFor(text)),
  );
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
    install: (before, note) => {
      if (before !== null && before !== content && !isOurs(before))
        throw new CheckpointError(
          'INVALID_INPUT',
          `${file} exists and setup did not write it: move it away (or rename it), then run setup again`,
        );
      return { text: content, note: { created: note?.created === true || before === null } };
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
 * What Codex adds later (`codex mcp add`, a project's trust) lands inside the block, since toml_edit puts
 * a new table before the file's closing comment: only our own tables go, by name, never the block whole.
 */
export function tomlServerEdit(file: string, serverPath: string): FileEdit {
  /**
   * The text without our block, and what the user or Codex set on our server since (keys of our table
   * other than `command` and `args`, its subtables: a timeout, a tool's approval), which a re-run keeps.
   */
  const split = (text: string, note: SetupNote | null) => {
    const lines = tomlLines(text);
    const begin = lines.findIndex((line) => line.content === TOML_BEGIN);
    const end = begin === -1 ? -1 : lines.findIndex((line, at) => at > begin && line.content === TOML_END);
    if (end === -1) return splitWithoutBlock(text, lines);
    // Inside the block, what is not a table of ours: tables the agent or the user put there stay.
    const { foreign, settings } = takeOurTables(lines, begin + 1, end, true);
    while (foreign.length > 0 && (foreign[0] as string).trim() === '') foreign.shift();
    const rest = lines
      .slice(end + 1)
      .map((line) => line.text)
      .join('');
    let result: string;
    if (foreign.length > 0)
      result = `${lines
        .slice(0, begin)
        .map((line) => line.text)
        .join('')}${foreign.join('')}${rest}`;
    else {
      // Our block was appended after one blank line (or opens the file): take that out too.
      const from = begin > 0 && (lines[begin - 1] as TomlLine).content.trim() === '' ? begin - 1 : begin;
      const head = lines
        .slice(0, from)
        .map((line) => line.text)
        .join('');
      // The line break setup put after the user's last line, when our block is still the file's end.
      result =
        rest === '' && note?.addedLineBreak && /\r?\n$/.test(head) ? head.replace(/\r?\n$/, '') : head + rest;
    }
    assertOnlyOursRemoved(text, result, file);
    return { result, settings };
  };
  /**
   * No whole block: Codex's `mcp add` and `mcp remove` write every server table anew, which drops the
   * comment above each (our opening marker) and leaves the closing one where it was. Our table is then
   * known by what Codex keeps of it, our own command and path; it goes wherever it is, with any stray
   * marker of ours, so that a re-run writes the block whole again and an uninstall leaves nothing.
   */
  const splitWithoutBlock = (text: string, lines: TomlLine[]) => {
    const ours = isOurTomlServer(parsedServers(text)?.[NAME], serverPath);
    const strayMarker = lines.some((line) => line.content === TOML_BEGIN || line.content === TOML_END);
    if (!ours && !strayMarker)
      return { result: text, settings: { keys: [] as string[], tables: [] as string[] } };
    const { foreign, settings } = takeOurTables(lines, 0, lines.length, ours);
    while (foreign.length > 0 && (foreign[0] as string).trim() === '') foreign.shift();
    while (foreign.length > 0 && (foreign.at(-1) as string).trim() === '') foreign.pop();
    const result = foreign.join('');
    // Taking out comment lines alone changes nothing TOML reads.
    if (ours) assertOnlyOursRemoved(text, result, file);
    return { result, settings };
  };
  const remove = (text: string, note: SetupNote | null) => split(text, note).result;
  return {
    file,
    holds: 'the MCP server',
    remove,
    isEmpty: (text) => text.trim() === '',
    install: (before, note) => {
      const { result: base, settings } = split(before ?? '', note);
      parseTomlOrThrow(base, file);
      const parsed = parseToml(base) as { mcp_servers?: Record<string, unknown> };
      if (parsed.mcp_servers && NAME in parsed.mcp_servers)
        throw new CheckpointError(
          'INVALID_INPUT',
          `${file} already has [mcp_servers.${NAME}] outside setup's block: remove it, then run setup again`,
        );
      // An inline table cannot be extended by a table header (TOML 1.0), which is how our server goes in.
      if (parsed.mcp_servers && definesInlineServers(base))
        throw new CheckpointError(
          'INVALID_INPUT',
          `${file} holds mcp_servers as one inline table (mcp_servers = { … }), and TOML lets no [mcp_servers.${NAME}] table be added to an inline table: write each of your servers as a table of its own ([mcp_servers.<name>] with its keys on the lines below it), then run setup again`,
        );
      // The file's own line endings (a CRLF file stays CRLF throughout).
      const eol = lineBreakOf(base);
      const block = `${[TOML_BEGIN, `[mcp_servers.${NAME}]`, 'command = "node"', `args = [${JSON.stringify(serverPath)}]`, ''].join(eol)}${[...settings.keys, ...settings.tables].join('')}${TOML_END}${eol}`;
      const text = base === '' ? block : `${base.endsWith('\n') ? base : `${base}${eol}`}${eol}${block}`;
      parseTomlOrThrow(text, file);
      const addedLineBreak = base !== '' && !base.endsWith('\n');
      return {
        text,
        note: {
          created: note?.created === true || before === null,
          ...(addedLineBreak ? { addedLineBreak } : {}),
        },
      };
    },
  };
}

/**
 * The lines from `from` to `to` with our tables out (and every marker line of ours), and what the user or
 * Codex set on our server (keys of our table other than `command` and `args`, its subtables), which a
 * re-run keeps. With `takeTables` false only the markers go.
 */
function takeOurTables(lines: TomlLine[], from: number, to: number, takeTables: boolean) {
  const settings = { keys: [] as string[], tables: [] as string[] };
  const foreign: string[] = [];
  let ours = false;
  let main = false;
  let setupsOwn = false;
  for (let at = from; at < to; at++) {
    const line = lines[at] as TomlLine;
    if (line.header !== null) {
      ours = takeTables && isOurTomlTable(line.header);
      main = ours && line.header.length === 2;
      // The blank line that set our table apart goes with it: the tables around it keep one between them.
      if (main && foreign.length > 0 && (foreign.at(-1) as string).trim() === '') foreign.pop();
      if (ours && !main) settings.tables.push(line.text);
      if (!ours) foreign.push(line.text);
      continue;
    }
    if (!line.continued && (line.content === TOML_BEGIN || line.content === TOML_END)) continue;
    // A comment or blank line right before the next table is that table's, as toml_edit keeps it.
    if (!ours || isDecorOfForeignTable(lines, at, to)) {
      foreign.push(line.text);
      continue;
    }
    // The keys setup writes (with the lines of a value spread over several) are written anew.
    if (main && !line.continued)
      setupsOwn = /^[ \t]*(?:command|args|"command"|"args")[ \t]*=/.test(line.content);
    if (!(main && setupsOwn)) (main ? settings.keys : settings.tables).push(line.text);
  }
  return { foreign, settings };
}

/**
 * Our server as Codex writes it back: `node` running this installation's server, or an npm install of this
 * package's (see OUR_SERVER_SCRIPT): a re-run after an npm update finds it too. Anything else of that name
 * is refused, a user's own or an older plugin copy's (safe: the refusal says to remove it).
 */
function isOurTomlServer(value: unknown, serverPath: string): boolean {
  const server = asObject(value);
  const args = server?.args;
  if (server?.command !== 'node' || !Array.isArray(args) || args.length !== 1) return false;
  const [script] = args as unknown[];
  return script === serverPath || (typeof script === 'string' && OUR_SERVER_SCRIPT.test(script));
}

/**
 * An npm install of this package's server, found with no marker (Codex's `mcp add` drops ours): this very
 * package under node_modules, nothing looser. A review: any `dist/index.js` in a `claude-checkpoint…` folder counted,
 * so a user's own clone registered by hand under that name was replaced by setup and removed by uninstall.
 */
const OUR_SERVER_SCRIPT = /[/\\]node_modules[/\\]claude-checkpoint-mcp[/\\]dist[/\\]index\.js$/;

/** The `mcp_servers` table of a TOML text; null when absent or the text does not parse. */
function parsedServers(text: string): Record<string, unknown> | null {
  try {
    return asObject((parseToml(text) as { mcp_servers?: unknown }).mcp_servers);
  } catch {
    return null;
  }
}

/** Whether `mcp_servers = …` is a key of the file's top level (before its first table header). */
function definesInlineServers(text: string): boolean {
  for (const line of tomlLines(text)) {
    if (line.header !== null) return false;
    if (/^[ \t]*(?:mcp_servers|"mcp_servers"|'mcp_servers')[ \t]*=/.test(line.content)) return true;
  }
  return false;
}

/** One line of a TOML text: with its line break, without it, and the key of the table it opens, if any. */
interface TomlLine {
  text: string;
  content: string;
  /** The dotted key of a `[table]` or `[[array]]` header, unquoted; `null` on any other line. */
  header: string[] | null;
  /** The line starts inside a value begun on a line before (a multi-line string or array). */
  continued: boolean;
}

/**
 * The lines of a TOML text, telling a table header from a line inside a multi-line string or array (which
 * may also start with a bracket): enough to take tables out by name, without rewriting any other line.
 */
function tomlLines(text: string): TomlLine[] {
  const lines: TomlLine[] = [];
  let open: string | null = null; // the delimiter of a multi-line string still open
  let depth = 0; // brackets and braces still open, outside strings
  for (const match of text.matchAll(/[^\n]*\n|[^\n]+$/g)) {
    const line = match[0];
    const content = line.replace(/\r?\n$/, '');
    const isHeader = open === null && depth === 0 && /^[ \t]*\[/.test(content);
    lines.push({
      text: line,
      content,
      header: isHeader ? headerKey(content) : null,
      continued: open !== null || depth > 0,
    });
    if (isHeader) continue;
    for (let at = 0; at < content.length; ) {
      if (open !== null) {
        if (content.startsWith(open, at)) {
          at += 3;
          open = null;
        } else at += open === '"""' && content[at] === '\\' ? 2 : 1;
        continue;
      }
      const char = content[at] as string;
      if (char === '#') break;
      const triple = content.slice(at, at + 3);
      if (triple === '"""' || triple === "'''") {
        open = triple;
        at += 3;
      } else if (char === '"' || char === "'") {
        at++;
        while (at < content.length && content[at] !== char)
          at += char === '"' && content[at] === '\\' ? 2 : 1;
        at++;
      } else {
        if (char === '[' || char === '{') depth++;
        else if (char === ']' || char === '}') depth = Math.max(0, depth - 1);
        at++;
      }
    }
  }
  return lines;
}

/** The key of a table header (`[ mcp_servers."claude-checkpoint" ]`), each part unquoted. */
function headerKey(content: string): string[] {
  const parts: string[] = [];
  const body = content.replace(/^[ \t]*\[\[?/, '');
  const pattern = /[ \t]*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))[ \t]*(\.|\]|$)/y;
  for (let found = pattern.exec(body); found; found = pattern.exec(body)) {
    const [, basic, literal, bare, after] = found;
    parts.push(basic !== undefined ? (JSON.parse(`"${basic}"`) as string) : (literal ?? bare ?? ''));
    if (after !== '.') break;
  }
  return parts;
}

/** Ours: `[mcp_servers.claude-checkpoint]` and every table under it. */
function isOurTomlTable(key: string[]): boolean {
  return key[0] === 'mcp_servers' && key[1] === NAME;
}

/**
 * Whether only comments and blank lines are between this line and the next table header inside the
 * block, and that table is not ours: such lines are that table's.
 */
function isDecorOfForeignTable(lines: TomlLine[], at: number, end: number): boolean {
  for (let next = at; next < end; next++) {
    const line = lines[next] as TomlLine;
    if (line.header !== null) return !isOurTomlTable(line.header);
    if (!/^[ \t]*(#.*)?$/.test(line.content)) return false;
  }
  return false;
}

/**
 * Our removal took our server out and nothing else: the file reads as it did, less that table. A file
 * that does not parse is not checked (install refuses it with the parser's message).
 */
function assertOnlyOursRemoved(before: string, after: string, file: string): void {
  let expected: Record<string, unknown>;
  let actual: Record<string, unknown>;
  try {
    expected = parseToml(before) as Record<string, unknown>;
    actual = parseToml(after) as Record<string, unknown>;
  } catch {
    return;
  }
  const servers = asObject(expected.mcp_servers);
  if (servers) {
    delete servers[NAME];
    if (Object.keys(servers).length === 0 && actual.mcp_servers === undefined) delete expected.mcp_servers;
  }
  if (!isDeepStrictEqual(expected, actual))
    throw new CheckpointError(
      'INVALID_INPUT',
      `${file}: setup cannot take its [mcp_servers.${NAME}] table out without changing something else in the file; remove that table and the "# >>> ${NAME}" and "# <<< ${NAME}" lines by hand, then run setup again`,
    );
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
  const parsed = parseJsoncObject(text);
  if ('errorOffset' in parsed)
    throw new CheckpointError(
      'INVALID_INPUT',
      `${file} is not a JSON object this tool can edit safely (parse error at offset ${parsed.errorOffset}); fix it or move it away, then run setup again`,
    );
  return parsed.value;
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
