import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  applyEdits,
  type FormattingOptions,
  format,
  type JSONPath,
  modify,
  type ParseError,
  parse,
} from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { CheckpointError } from '../core/errors.js';
import { defaultStoreBase } from '../store/store-location.js';
import { openCodePlugin } from './opencode-plugin.js';

/** The agents `setup` installs into (Claude Code has its plugin). */
export const SETUP_AGENTS = ['codex', 'copilot', 'gemini', 'opencode'] as const;
export type SetupAgent = (typeof SETUP_AGENTS)[number];

export interface SetupRequest {
  agent: SetupAgent;
  scope: 'user' | 'project';
  projectRoot: string;
  dryRun: boolean;
  uninstall: boolean;
  /** This installation's own files: the server and the hooks' entry the agent will run. */
  serverPath: string;
  hookPath: string;
}

export interface FileReport {
  file: string;
  action: 'installed' | 'updated' | 'unchanged' | 'removed' | 'restored' | 'absent';
  /** The file as it would be (dry run) or is now; `null` when it does not exist. */
  content: string | null;
}

export interface SetupReport {
  agent: SetupAgent;
  dryRun: boolean;
  files: FileReport[];
  /** What the user must still do once, which setup never does for them. */
  nextStep: string | null;
}

const NAME = 'claude-checkpoint';
const FORMAT: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: '\n' };

/** One file of an agent's configuration: how our entries go in, and how they come out again. */
interface FileEdit {
  file: string;
  /** The text with our entries in (and any older ones of ours replaced). */
  install(text: string | null): string;
  /** The text with our entries out; `null` for a file that is ours alone, which goes. */
  remove(text: string): string | null;
}

function editsFor(
  request: SetupRequest,
  env: NodeJS.ProcessEnv,
): { edits: FileEdit[]; nextStep: string | null } {
  const home = os.homedir();
  const base = request.scope === 'user' ? home : request.projectRoot;
  const hook = (event: string) => `node ${quote(request.hookPath)} ${event} --agent ${request.agent}`;
  if (request.agent === 'gemini') {
    const hooks = [
      ['SessionStart', '*', 15_000],
      ['BeforeAgent', '*', 15_000],
      ['PreCompress', '*', 30_000],
      ['AfterTool', 'run_shell_command', 15_000],
    ] as const;
    return {
      edits: [
        jsonEdit(path.join(base, '.gemini', 'settings.json'), {
          server: { command: 'node', args: [request.serverPath] },
          // Gemini CLI names hooks; ours carry our name, and timeouts in milliseconds.
          groups: hooks.map(([event, matcher, timeout]) => ({
            event,
            group: { matcher, hooks: [{ name: NAME, type: 'command', command: hook(event), timeout }] },
          })),
        }),
      ],
      nextStep:
        request.scope === 'project'
          ? 'Gemini CLI runs a project\'s hooks only in a trusted folder: answer "trust" when it asks, or run /trust in the session.'
          : null,
    };
  }
  if (request.agent === 'opencode') {
    // OpenCode: no hook files. Our plugin goes in its plugins folder, the server under \`mcp\` in its config.
    const configDir =
      request.scope === 'user'
        ? path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'opencode')
        : request.projectRoot;
    const pluginDir =
      request.scope === 'user'
        ? path.join(configDir, 'plugins')
        : path.join(request.projectRoot, '.opencode', 'plugins');
    const jsonc = path.join(configDir, 'opencode.jsonc');
    const json = path.join(configDir, 'opencode.json');
    return {
      edits: [
        ownFileEdit(path.join(pluginDir, `${NAME}.js`), openCodePlugin(request.hookPath)),
        jsonEdit(existsSync(jsonc) && !existsSync(json) ? jsonc : json, {
          serverKey: 'mcp',
          server: { type: 'local', command: ['node', request.serverPath], enabled: true },
          groups: [],
        }),
      ],
      nextStep: null,
    };
  }
  if (request.agent === 'copilot') {
    // Copilot CLI loads every hooks file in its folder: ours is a file of its own, and the server goes
    // into mcp-config.json (user scope; a project's hooks live in .github/hooks, and take effect once the
    // folder is trusted).
    const hooks = {
      version: 1,
      hooks: Object.fromEntries(
        (
          [
            ['SessionStart', 15],
            ['UserPromptSubmit', 15],
            ['PostToolUse', 10],
          ] as const
        ).map(([event, timeoutSec]) => [event, [{ type: 'command', bash: hook(event), timeoutSec }]]),
      ),
    };
    const hooksFile =
      request.scope === 'user'
        ? path.join(home, '.copilot', 'hooks', `${NAME}.json`)
        : path.join(request.projectRoot, '.github', 'hooks', `${NAME}.json`);
    return {
      edits: [
        ownFileEdit(hooksFile, `${JSON.stringify(hooks, null, 2)}\n`),
        ...(request.scope === 'user'
          ? [
              jsonEdit(path.join(home, '.copilot', 'mcp-config.json'), {
                server: { type: 'local', command: 'node', args: [request.serverPath], tools: ['*'] },
                groups: [],
              }),
            ]
          : []),
      ],
      nextStep:
        'Copilot CLI runs hooks and MCP servers only in a folder you trust: answer "trust" when it asks in a project.',
    };
  }
  // Codex: Claude Code's hook format in hooks.json (timeouts in seconds), the MCP server in config.toml.
  const hooks = [
    ['SessionStart', 'startup|resume|clear|compact', 15],
    ['UserPromptSubmit', undefined, 15],
    ['PreCompact', undefined, 30],
    ['PostToolUse', 'Bash', 10],
  ] as const;
  return {
    edits: [
      jsonEdit(path.join(base, '.codex', 'hooks.json'), {
        groups: hooks.map(([event, matcher, timeout]) => ({
          event,
          group: {
            ...(matcher ? { matcher } : {}),
            hooks: [{ type: 'command', command: hook(event), timeout }],
          },
        })),
      }),
      tomlServerEdit(path.join(base, '.codex', 'config.toml'), request.serverPath),
    ],
    nextStep:
      'Codex runs hooks only after you review them: start Codex, open /hooks and approve the claude-checkpoint hooks (setup never does that for you).',
  };
}

/**
 * Installs (or with `uninstall`, removes) this tool's MCP server and hooks in an agent's configuration.
 * Edits the user's files as files of theirs: parsed with a real parser, only our entries changed,
 * formatting and comments kept, written atomically with their mode kept. The originals are kept in the
 * private store, so an uninstall with nothing else changed gives each file back byte for byte.
 */
export async function setupAgent(request: SetupRequest, env: NodeJS.ProcessEnv): Promise<SetupReport> {
  const { edits, nextStep } = editsFor(request, env);
  const files: FileReport[] = [];
  for (const edit of edits) files.push(await applyFileEdit(edit, request, env));
  const changed = files.some((file) => file.action === 'installed' || file.action === 'updated');
  return { agent: request.agent, dryRun: request.dryRun, files, nextStep: changed ? nextStep : null };
}

async function applyFileEdit(
  edit: FileEdit,
  request: SetupRequest,
  env: NodeJS.ProcessEnv,
): Promise<FileReport> {
  const { file } = edit;
  const before = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new CheckpointError('IO_FAILED', `could not read ${file}: ${error.message}`);
  });
  const backupFile = backupPath(env, request.agent, file);

  if (request.uninstall) {
    if (before === null) return { file, action: 'absent', content: null };
    const backup = await readBackup(backupFile);
    if (backup && backup.installed === before) {
      // Nothing else changed since setup: give the file back exactly as it was.
      if (!request.dryRun) {
        if (backup.original === null) {
          await rm(file);
          await rmdir(path.dirname(file)).catch(() => undefined); // only if setup made it and it is empty
        } else await writeKeepingMode(file, backup.original);
        await rm(backupFile, { force: true });
      }
      return { file, action: 'restored', content: backup.original };
    }
    const without = edit.remove(before);
    if (without === before) return { file, action: 'absent', content: before };
    if (!request.dryRun) {
      if (without === null) await rm(file);
      else await writeKeepingMode(file, without);
      await rm(backupFile, { force: true });
    }
    return { file, action: 'removed', content: without };
  }

  const after = edit.install(before);
  if (after === before) return { file, action: 'unchanged', content: after };
  if (!request.dryRun) {
    const backup = await readBackup(backupFile);
    await mkdir(path.dirname(file), { recursive: true });
    await writeKeepingMode(file, after);
    // Keep the very first original across re-runs: that is what an uninstall restores.
    await writeBackup(backupFile, { original: backup ? backup.original : before, installed: after });
  }
  return {
    file,
    action: before === null || !before.includes(NAME) ? 'installed' : 'updated',
    content: after,
  };
}

/**
 * A JSON-with-comments file: our server under `mcpServers` (or the agent's own key), our hook groups
 * appended under `hooks`.
 */
function jsonEdit(
  file: string,
  ours: {
    serverKey?: string;
    server?: unknown;
    groups: Array<{ event: string; group: { hooks: Array<{ command: string }> } }>;
  },
): FileEdit {
  const serverKey = ours.serverKey ?? 'mcpServers';
  const isOurs = (group: unknown) => {
    const hooks = (group as { hooks?: Array<{ name?: string; command?: string }> } | null)?.hooks;
    return (
      Array.isArray(hooks) &&
      hooks.length > 0 &&
      hooks.every(
        (hook) => hook?.name === NAME || (hook?.command ?? '').match(/hook\.[mc]?js['"]? \w+ --agent \w+$/),
      )
    );
  };
  const remove = (text: string) => {
    let current = text;
    const parsed = parseJsonObject(current, file) as Record<string, unknown> & {
      hooks?: Record<string, unknown>;
    };
    const servers = parsed[serverKey];
    if (ours.server !== undefined && servers && typeof servers === 'object' && NAME in servers)
      current = applyEdits(current, modify(current, [serverKey, NAME], undefined, {}));
    for (const [event, groups] of Object.entries(parsed.hooks ?? {})) {
      if (!Array.isArray(groups)) continue;
      // From the end, so that earlier indexes stay valid.
      for (let index = groups.length - 1; index >= 0; index--)
        if (isOurs(groups[index]))
          current = applyEdits(current, modify(current, ['hooks', event, index], undefined, {}));
    }
    return current;
  };
  return {
    file,
    remove,
    install: (before) => {
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

/** A file that is ours alone: written whole, and removed whole. */
function ownFileEdit(file: string, content: string): FileEdit {
  return { file, install: () => content, remove: () => null };
}

const TOML_BEGIN = `# >>> ${NAME} (added by \`claude-checkpoint setup\`; remove with --uninstall)`;
const TOML_END = `# <<< ${NAME}`;

/**
 * A TOML file (Codex's config.toml): our server as a block of its own at the end, between two marker
 * comments, so that nothing else in the file is rewritten. The result is parsed before it is written.
 */
function tomlServerEdit(file: string, serverPath: string): FileEdit {
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
    remove,
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

async function writeKeepingMode(file: string, text: string): Promise<void> {
  const mode = (await stat(file).catch(() => null))?.mode ?? 0o644;
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(temp, text, { mode: 0o600 });
  await chmod(temp, mode & 0o7777);
  await rename(temp, file);
}

interface SetupBackup {
  original: string | null;
  installed: string;
}

function backupPath(env: NodeJS.ProcessEnv, agent: string, file: string): string {
  const digest = createHash('sha256').update(file).digest('hex').slice(0, 12);
  return path.join(defaultStoreBase(env), 'setup', `${agent}-${digest}.json`);
}

async function readBackup(file: string): Promise<SetupBackup | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as SetupBackup;
  } catch {
    return null;
  }
}

async function writeBackup(file: string, backup: SetupBackup): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, JSON.stringify(backup), { mode: 0o600 });
}

function quote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}
