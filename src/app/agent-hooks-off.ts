import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { locateRepo } from '../git/repo.js';
import { agentHome } from '../store/agent-homes.js';
import { readJsoncObject } from './jsonc.js';

/** A setting that switches an agent's hooks off: the file that holds it and the setting, as written. */
export interface HooksOff {
  file: string;
  setting: string;
}

/**
 * Where Codex or Gemini CLI is told to run no hooks at all, ours included; `null` when neither scope says
 * so. The project's file is read first: it overrides the user's for the same key in both agents, so the
 * first file that sets the key decides (Codex's only in a project the user trusts, as Codex reads it).
 * - Codex: `[features]` `hooks = false` in config.toml ("Hooks are enabled by default. If you need to turn
 *   them off in config.toml, set [features] hooks = false"; `codex_hooks` is its deprecated alias:
 *   https://developers.openai.com/codex/hooks).
 * - Gemini CLI: `"hooksConfig": { "enabled": false }` in settings.json ("When disabled, no hooks will be
 *   executed": gemini-cli packages/cli/src/config/settingsSchema.ts, `hooksConfig.enabled`).
 */
export async function hooksSwitchedOff(
  agent: 'codex' | 'gemini',
  env: NodeJS.ProcessEnv,
  projectRoot: string,
): Promise<HooksOff | null> {
  const folder = agent === 'codex' ? '.codex' : '.gemini';
  const name = agent === 'codex' ? 'config.toml' : 'settings.json';
  const userFile = path.join(agentHome(env, agent), name);
  const userText = await readFile(userFile, 'utf8').catch(() => null);
  // Codex loads a project's .codex/config.toml only in a trusted project: an untrusted one's says nothing.
  // Gemini CLI's trust cannot be told from its files: a headless run (`gemini -p`) trusts every folder, and
  // an IDE's word overrides trustedFolders.json (gemini-cli trustedFolders.ts, isWorkspaceTrusted).
  const projectCounts = agent !== 'codex' || (await codexTrusts(userText, projectRoot));
  const files = [...(projectCounts ? [path.join(projectRoot, folder, name)] : []), userFile];
  for (const file of files) {
    const text = file === userFile ? userText : await readFile(file, 'utf8').catch(() => null);
    if (text === null) continue;
    const found = agent === 'codex' ? await codexHooksFeature(text) : geminiHooksEnabled(text);
    if (found === undefined) continue;
    return found.enabled ? null : { file, setting: found.setting };
  }
  return null;
}

/**
 * Whether the user's Codex config.toml trusts the project: `[projects."<root>"]` with
 * `trust_level = "trusted"`, keyed by the folder Codex starts in or the root of its git repository
 * ("Only load config from trusted folders", openai/codex#9533: the user's config says which folders are
 * trusted, and a project's config is loaded only from one), as written or with links resolved.
 */
async function codexTrusts(userText: string | null, projectRoot: string): Promise<boolean> {
  if (userText === null || !userText.includes('trust_level')) return false;
  const { parse } = await import('smol-toml');
  let projects: Record<string, { trust_level?: unknown } | undefined> | undefined;
  try {
    projects = (parse(userText) as { projects?: typeof projects }).projects;
  } catch {
    return false;
  }
  const real = await realpath(projectRoot).catch(() => projectRoot);
  // The repository's top too (a review: trust recorded there, as Codex records it, was not seen from a
  // package of the repository).
  const location = await locateRepo(real).catch(() => null);
  const top = location?.prefix
    ? path.resolve(
        real,
        ...location.prefix
          .split('/')
          .filter(Boolean)
          .map(() => '..'),
      )
    : null;
  return [projectRoot, real, ...(top ? [top] : [])].some(
    (root) => projects?.[root]?.trust_level === 'trusted',
  );
}

/** `[features].hooks` (or its older name `codex_hooks`) of a Codex config.toml; undefined when unset or unreadable. */
async function codexHooksFeature(text: string): Promise<Found | undefined> {
  // The text only tells whether to load a TOML parser; the table is found as TOML reads it.
  if (!text.includes('hooks')) return undefined;
  const { parse } = await import('smol-toml');
  let features: Record<string, unknown> | undefined;
  try {
    features = (parse(text) as { features?: Record<string, unknown> }).features;
  } catch {
    return undefined;
  }
  for (const key of ['hooks', 'codex_hooks']) {
    const value = features?.[key];
    if (typeof value === 'boolean') return { enabled: value, setting: `[features] ${key} = false` };
  }
  return undefined;
}

/** `hooksConfig.enabled` of a Gemini CLI settings.json; undefined when unset or unreadable. */
function geminiHooksEnabled(text: string): Found | undefined {
  const settings = readJsoncObject(text) as { hooksConfig?: { enabled?: unknown } } | undefined;
  const value = settings?.hooksConfig?.enabled;
  return typeof value === 'boolean'
    ? { enabled: value, setting: '"hooksConfig": { "enabled": false }' }
    : undefined;
}

/** What a file says of the switch: on or off, and the setting that says it off. */
interface Found {
  enabled: boolean;
  setting: string;
}
