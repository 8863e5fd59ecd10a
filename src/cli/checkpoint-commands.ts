import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadStructured, saveStructured } from '../app/views.js';
import { TASK_STATUSES } from '../core/checkpoint-plain.js';
import { renderNothingToResume, renderSaveText } from '../core/checkpoint-text.js';
import { CheckpointError } from '../core/errors.js';
import type { FieldNamer, SaveInput } from '../core/input.js';
import { escapeControls } from '../core/quote.js';
import { parseJsonFile } from '../core/text.js';
import { decodeUtf8Input } from '../core/utf8-input.js';
import { pathsFromOf, type Runner, withCommonOptions } from './context.js';
import { EXIT } from './output.js';
import { showStatus } from './status-command.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

interface SaveFlags {
  stdin?: boolean;
  goal?: string;
  summary?: string;
  task?: string[];
  next?: string[];
  decision?: string[];
  file?: string[];
  command?: string[];
  merge?: boolean;
}

async function readStdinText(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return decodeUtf8Input(Buffer.concat(chunks), 'stdin');
}

/** The flag each field of the save input comes from. */
const SAVE_FLAGS: Readonly<Record<string, string>> = {
  goal: '--goal',
  summary: '--summary',
  tasks: '--task',
  nextSteps: '--next',
  decisions: '--decision',
  modifiedFiles: '--file',
  recentCommands: '--command',
  mode: '--merge',
  projectRoot: '--root',
};

/** The flags that give a field, which --stdin's JSON gives instead. */
const FIELD_FLAGS: ReadonlyArray<readonly [keyof SaveFlags, string]> = [
  ['goal', '--goal'],
  ['summary', '--summary'],
  ['task', '--task'],
  ['next', '--next'],
  ['decision', '--decision'],
  ['file', '--file'],
  ['command', '--command'],
];

/**
 * Names a field by the flag it came from (`--next (the 2nd)`), not by the JSON path a flag's user never
 * wrote (issue 26). With --stdin the JSON's own field names are the right ones.
 */
function flagNamer(raw: Record<string, unknown>): FieldNamer {
  return ([field, index, part]) => {
    const flag = SAVE_FLAGS[String(field)] ?? String(field);
    const given = raw[String(field)];
    const which =
      typeof index === 'number' && Array.isArray(given) && given.length > 1
        ? ` (the ${ordinal(index + 1)})`
        : '';
    return `${flag}${which}${part === 'note' ? ' note' : ''}`;
  };
}

function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/**
 * Builds the save input from flags (or reads it as JSON from stdin) and validates it like the tool does;
 * also returns how errors name its fields.
 */
async function saveInputFrom(
  flags: SaveFlags,
  root: string | undefined,
): Promise<{ input: SaveInput; nameField: FieldNamer | undefined }> {
  let raw: Record<string, unknown>;
  if (flags.stdin) {
    // Fields given both ways would have the flags dropped in silence: refuse, before reading stdin.
    const fieldFlags = FIELD_FLAGS.filter(([key]) => flags[key] !== undefined).map(([, flag]) => flag);
    if (fieldFlags.length > 0)
      throw new CheckpointError(
        'INVALID_INPUT',
        `--stdin takes every field from the JSON on stdin: ${fieldFlags.join(', ')} cannot be combined with it (put ${fieldFlags.length > 1 ? 'them' : 'it'} in the JSON, or leave --stdin out)`,
      );
    const text = await readStdinText();
    let parsed: unknown;
    try {
      parsed = parseJsonFile(text);
    } catch (error) {
      throw new CheckpointError(
        'INVALID_INPUT',
        `stdin must hold the checkpoint's fields as a JSON object (goal, tasks, nextSteps, …; see docs/cli.md): ${(error as Error).message}`,
      );
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new CheckpointError(
        'INVALID_INPUT',
        "stdin must hold the checkpoint's fields as a JSON object (goal, tasks, nextSteps, …; see docs/cli.md)",
      );
    raw = parsed as Record<string, unknown>;
  } else {
    raw = {
      goal: flags.goal,
      ...(flags.summary !== undefined ? { summary: flags.summary } : {}),
      ...(flags.task ? { tasks: flags.task.map(parseTask) } : {}),
      ...(flags.next ? { nextSteps: flags.next } : {}),
      ...(flags.decision ? { decisions: flags.decision } : {}),
      ...(flags.file ? { modifiedFiles: flags.file.map(parseFile) } : {}),
      ...(flags.command ? { recentCommands: flags.command.map((command) => ({ command })) } : {}),
    };
  }
  // The JSON's own mode is validated as it is, and checked against --merge after: never overridden in
  // silence (bad-input trial).
  if (flags.merge && raw.mode === undefined) raw.mode = 'merge';
  // --root after the JSON's own projectRoot is validated, so it never hides one of the wrong type.
  if (root !== undefined && raw.projectRoot === undefined) raw.projectRoot = root;
  // The full zod comes with the input schema: only `save` pays for loading it, not every command.
  const { formatIssues, saveInputSchema } = await import('../core/input.js');
  const nameField = flags.stdin ? undefined : flagNamer(raw);
  const parsed = saveInputSchema.safeParse(raw);
  // A merge keeps the other fields but sets the goal (docs/tools.md): say so where it is missing (trial 4).
  if (!parsed.success && flags.merge && raw.goal === undefined) {
    const others = parsed.error.issues.filter((issue) => issue.path[0] !== 'goal');
    const rest = others.length > 0 ? `; ${formatIssues({ ...parsed.error, issues: others }, nameField)}` : '';
    throw new CheckpointError(
      'INVALID_INPUT',
      `${nameField ? nameField(['goal']) : 'goal'}: is required with --merge too (a merge sets the goal and keeps the fields you leave out): give the current goal again to keep it${rest}`,
    );
  }
  if (!parsed.success) throw new CheckpointError('INVALID_INPUT', formatIssues(parsed.error, nameField));
  const input = parsed.data;
  if (flags.merge && input.mode === 'replace')
    throw new CheckpointError(
      'INVALID_INPUT',
      '--merge and mode (in the JSON on stdin) disagree: --merge, mode "replace"; give the mode once (or "merge" in both)',
    );
  if (root !== undefined) {
    // Two folders named two ways: which one the save goes to is not decided in silence (newcomer trial).
    const given = input.projectRoot;
    if (given !== undefined && given.trim() !== '' && !sameFolder(given, root))
      throw new CheckpointError(
        'INVALID_INPUT',
        `--root and projectRoot (in the JSON on stdin) name different folders: --root '${escapeControls(root)}', projectRoot '${escapeControls(given)}'; give the folder once (or the same folder in both)`,
      );
    input.projectRoot = root;
  }
  return { input, nameField };
}

/** `--task done:Write the tests` */
function parseTask(value: string): { description: string; status: string } {
  const colon = value.indexOf(':');
  const status = colon > 0 ? value.slice(0, colon) : '';
  if (!(TASK_STATUSES as readonly string[]).includes(status)) {
    throw new CheckpointError(
      'INVALID_INPUT',
      `--task must look like <status>:<description> with status ${TASK_STATUSES.join(', ')}: got '${value}'`,
    );
  }
  return { status, description: value.slice(colon + 1).trim() };
}

/** `--file src/a.ts` or `--file "src/a.ts::why it matters"` */
function parseFile(value: string): { path: string; note?: string } {
  const separator = value.indexOf('::');
  return separator < 0
    ? { path: value }
    : { path: value.slice(0, separator), note: value.slice(separator + 2).trim() };
}

export function registerCheckpointCommands(program: Command, run: Runner): void {
  withCommonOptions(
    program
      .command('save')
      .description('save a checkpoint (fields as flags, or the MCP tool arguments as JSON with --stdin)')
      .option('--goal <text>', 'the main objective (required)')
      .option('--summary <text>', 'where things stand')
      .option(
        '--task <status:description>',
        `a task; status is one of ${TASK_STATUSES.join(', ')} (repeatable)`,
        collect,
      )
      .option('--next <step>', 'a next step, in order (repeatable)', collect)
      .option('--decision <text>', 'a decision or dead end (repeatable)', collect)
      .option('--file <path[::note]>', 'a file to note, relative to the current folder (repeatable)', collect)
      .option('--command <command>', 'a command that mattered (repeatable)', collect)
      .option('--merge', 'update the existing checkpoint instead of replacing it')
      .option('--stdin', 'read the save_session_checkpoint arguments as JSON from stdin'),
  ).action(
    run(async (ctx) => {
      const flags = ctx.options as SaveFlags;
      const { input, nameField } = await saveInputFrom(flags, ctx.root);
      const { saveCheckpoint } = await import('../app/save.js');
      // Without --root, a root in the JSON on stdin is its projectRoot, and errors name it so.
      const deps =
        flags.stdin && ctx.root === undefined ? { ...ctx.deps, rootArgument: 'projectRoot' } : ctx.deps;
      // --file is typed relative to the current folder; the paths in --stdin's JSON, to the root (as the tool's).
      const pathsFrom = flags.stdin
        ? undefined
        : pathsFromOf(input.modifiedFiles?.map((file) => file.path) ?? [], ctx.deps.cwd);
      const outcome = await saveCheckpoint(deps, input, {}, { nameField, pathsFrom });
      if (ctx.out.json) ctx.out.printJson(saveStructured(outcome));
      else ctx.out.print(renderSaveText(outcome));
      return EXIT.ok;
    }),
  );

  for (const name of ['load', 'brief'] as const) {
    withCommonOptions(
      program
        .command(name)
        .description(
          name === 'load'
            ? 'print the resume brief (or the whole checkpoint with --format full)'
            : 'print the resume brief',
        )
        .option('--format <format>', 'brief or full', 'brief'),
    ).action(
      run(async (ctx) => {
        const format = (ctx.options as { format: string }).format;
        if (format !== 'brief' && format !== 'full') {
          throw new CheckpointError('INVALID_INPUT', `--format must be "brief" or "full": got '${format}'`);
        }
        const { loadCheckpoint } = await import('../app/load.js');
        const outcome = await loadCheckpoint(ctx.deps, { projectRoot: ctx.root });
        if (!outcome.found) {
          if (ctx.out.json)
            ctx.out.printJson({ found: false, path: outcome.path, warnings: outcome.warnings });
          else ctx.out.print(renderNothingToResume(outcome.path, ctx.words));
          return EXIT.ok;
        }
        if (ctx.out.json) ctx.out.printJson(loadStructured(outcome, format === 'full'));
        else if (format === 'full')
          ctx.out.print(
            JSON.stringify(
              { checkpoint: outcome.checkpoint, drift: outcome.drift, warnings: outcome.warnings },
              null,
              2,
            ),
          );
        else ctx.out.print(outcome.brief);
        return EXIT.ok;
      }),
    );
  }

  withCommonOptions(
    program
      .command('status')
      .description('one screen: checkpoint, drift, snapshots, store size, ignore rules'),
  ).action(run(showStatus));

  withCommonOptions(
    program
      .command('doctor')
      .description(
        'check git, the project root, permissions, ignore rules, settings and the agents’ wiring; show every setting',
      ),
  ).action(
    run(async (ctx) => {
      const { diagnose, settingRows } = await import('../app/status.js');
      const [checks, settings] = await Promise.all([
        diagnose(ctx.deps, { projectRoot: ctx.root }),
        settingRows(ctx.deps, { projectRoot: ctx.root }),
      ]);
      if (ctx.out.json) ctx.out.printJson({ checks, settings: settings.rows, settingsFiles: settings.files });
      else {
        const mark = { ok: ctx.out.bold('✓'), warn: ctx.out.warn('!'), fail: ctx.out.warn('✗') };
        const lines = checks.flatMap((check) => [
          `${mark[check.level]} ${check.name}: ${escapeControls(check.detail)}`,
          ...(check.fix ? [`    fix: ${escapeControls(check.fix)}`] : []),
        ]);
        const width = Math.max(...settings.rows.map((row) => row.name.length));
        lines.push(
          '',
          ctx.out.bold(`Settings (${settings.files.user}; each overridden by its environment variable)`),
          ...settings.rows.map(
            (row) => `  ${row.name.padEnd(width)}  ${row.shown}  (${row.from.join(' + ')}; ${row.env})`,
          ),
        );
        ctx.out.print(lines.join('\n'));
      }
      return checks.some((check) => check.level === 'fail') ? EXIT.failure : EXIT.ok;
    }),
  );
}

/** Whether two paths name one folder, through links too (`--root` is resolved; a link in the JSON names it as well). */
function sameFolder(given: string, root: string): boolean {
  if (path.resolve(given) === root) return true;
  try {
    return realpathSync.native(given) === realpathSync.native(root);
  } catch {
    return false;
  }
}
