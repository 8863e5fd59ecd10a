import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { applyEdits, type FormattingOptions, modify, type ParseError, parse } from 'jsonc-parser';
import { CheckpointError } from '../core/errors.js';
import { defaultStoreBase } from '../store/store-location.js';

/** The agents `setup` installs into (Claude Code has its plugin). */
export const SETUP_AGENTS = ['gemini'] as const;
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

export interface SetupReport {
  agent: SetupAgent;
  file: string;
  action: 'installed' | 'updated' | 'unchanged' | 'removed' | 'restored' | 'absent';
  dryRun: boolean;
  /** The file as it would be (dry run) or is now. */
  content: string | null;
  /** What the user must still do once, which setup never does for them. */
  nextStep: string | null;
}

const SERVER_NAME = 'claude-checkpoint';
const HOOK_NAME = 'claude-checkpoint';
const FORMAT: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: '\n' };

/** Gemini CLI: settings.json (JSON with comments), hooks with timeouts in milliseconds. */
function geminiEntries(request: SetupRequest) {
  const hook = (event: string) => ({
    name: HOOK_NAME,
    type: 'command',
    command: `node ${quote(request.hookPath)} ${event} --agent gemini`,
    timeout: event === 'PreCompress' ? 30_000 : 15_000,
  });
  return {
    file:
      request.scope === 'user'
        ? path.join(os.homedir(), '.gemini', 'settings.json')
        : path.join(request.projectRoot, '.gemini', 'settings.json'),
    server: { command: 'node', args: [request.serverPath] },
    hooks: [
      { event: 'SessionStart', matcher: '*', hook: hook('SessionStart') },
      { event: 'BeforeAgent', matcher: '*', hook: hook('BeforeAgent') },
      { event: 'PreCompress', matcher: '*', hook: hook('PreCompress') },
      { event: 'AfterTool', matcher: 'run_shell_command', hook: hook('AfterTool') },
    ],
    nextStep:
      request.scope === 'project'
        ? 'Gemini CLI runs a project\'s hooks only in a trusted folder: answer "trust" when it asks, or run /trust in the session.'
        : null,
  };
}

/**
 * Installs (or with `uninstall`, removes) this tool's MCP server and hooks in an agent's configuration.
 * Edits the user's file as a file of theirs: parsed with a real parser, only our entries changed,
 * formatting and comments kept, written atomically with its mode kept. The original is kept in the
 * private store, so an uninstall with nothing else changed gives the file back byte for byte.
 */
export async function setupAgent(request: SetupRequest, env: NodeJS.ProcessEnv): Promise<SetupReport> {
  const entries = geminiEntries(request);
  const file = entries.file;
  const before = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new CheckpointError('IO_FAILED', `could not read ${file}: ${error.message}`);
  });
  const backupFile = backupPath(env, request.agent, file);
  const report = (action: SetupReport['action'], content: string | null): SetupReport => ({
    agent: request.agent,
    file,
    action,
    dryRun: request.dryRun,
    content,
    nextStep: action === 'installed' || action === 'updated' ? entries.nextStep : null,
  });

  if (request.uninstall) {
    if (before === null) return report('absent', null);
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
      return report('restored', backup.original);
    }
    const without = removeOurs(before, file);
    if (without === before) return report('absent', before);
    if (!request.dryRun) {
      await writeKeepingMode(file, without);
      await rm(backupFile, { force: true });
    }
    return report('removed', without);
  }

  let text = before === null ? '{}\n' : before;
  parseOrThrow(text, file);
  text = removeOurs(text, file);
  text = applyEdits(
    text,
    modify(text, ['mcpServers', SERVER_NAME], entries.server, { formattingOptions: FORMAT }),
  );
  for (const { event, matcher, hook } of entries.hooks) {
    const current = (parse(text) as { hooks?: Record<string, unknown[]> }).hooks?.[event];
    const index = Array.isArray(current) ? current.length : 0;
    const group = { matcher, hooks: [hook] };
    const edits = Array.isArray(current)
      ? modify(text, ['hooks', event, index], group, { formattingOptions: FORMAT, isArrayInsertion: true })
      : modify(text, ['hooks', event], [group], { formattingOptions: FORMAT });
    text = applyEdits(text, edits);
  }
  if (!text.endsWith('\n')) text += '\n';
  if (text === before) return report('unchanged', text);
  if (!request.dryRun) {
    const backup = await readBackup(backupFile);
    await mkdir(path.dirname(file), { recursive: true });
    await writeKeepingMode(file, text);
    // Keep the very first original across re-runs: that is what an uninstall restores.
    await writeBackup(backupFile, { original: backup ? backup.original : before, installed: text });
  }
  return report(before === null || !before.includes(HOOK_NAME) ? 'installed' : 'updated', text);
}

/** The file with every entry of ours taken out (our server, hook groups holding only our hook). */
function removeOurs(text: string, file: string): string {
  let current = text;
  const parsed = parseOrThrow(current, file) as {
    mcpServers?: Record<string, unknown>;
    hooks?: Record<string, unknown>;
  };
  if (parsed.mcpServers && SERVER_NAME in parsed.mcpServers)
    current = applyEdits(
      current,
      modify(current, ['mcpServers', SERVER_NAME], undefined, { formattingOptions: FORMAT }),
    );
  for (const [event, groups] of Object.entries(parsed.hooks ?? {})) {
    if (!Array.isArray(groups)) continue;
    // From the end, so that earlier indexes stay valid.
    for (let index = groups.length - 1; index >= 0; index--) {
      const hooks = (groups[index] as { hooks?: Array<{ name?: string }> })?.hooks;
      if (Array.isArray(hooks) && hooks.length > 0 && hooks.every((hook) => hook?.name === HOOK_NAME))
        current = applyEdits(
          current,
          modify(current, ['hooks', event, index], undefined, { formattingOptions: FORMAT }),
        );
    }
  }
  return current;
}

function parseOrThrow(text: string, file: string): unknown {
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
