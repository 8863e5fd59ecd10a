import path from 'node:path';
import type { Command } from 'commander';
import type { ScanInput } from '../app/scan.js';
import { CheckpointError } from '../core/errors.js';
import { quotePath, unquotePath } from '../core/quote.js';
import { fsPath } from '../core/raw-path.js';
import { type Runner, withCommonOptions } from './context.js';
import { EXIT } from './output.js';

/** `claude-checkpoint scan [files…|-]`: the redaction detector as a check, for people and pre-commit hooks. */
export function registerScanCommand(program: Command, run: Runner): void {
  withCommonOptions(
    program
      .command('scan')
      .argument('[files...]', 'files to scan; "-" or nothing reads standard input')
      .description(
        'find secrets with the same detector that redacts checkpoints: prints file:line:column rule (never the secret); exit 1 when something is found',
      ),
  ).action(
    run(async (ctx, files: string[]) => {
      const names = files.length === 0 ? ['-'] : files;
      // On a terminal, a read of stdin looks like a hang: say what it waits for (newcomer trial).
      if (names.includes('-') && process.stdin.isTTY)
        ctx.out.note(
          'claude-checkpoint scan: reading standard input: type or paste the text, then end it with Ctrl-D (Ctrl-Z, then Enter, on Windows); or give files to scan',
        );
      const { SCAN_MAX_BYTES, scanTexts } = await import('../app/scan.js');
      const inputs: ScanInput[] = [];
      for (const name of names) inputs.push(await readInput(name, ctx.deps.cwd(), SCAN_MAX_BYTES));
      const report = await scanTexts(ctx.deps, inputs, ctx.root ?? ctx.deps.cwd());
      if (ctx.out.json) ctx.out.printJson(report);
      else {
        for (const finding of report.findings)
          ctx.out.print(`${quotePath(finding.file)}:${finding.line}:${finding.column} ${finding.rule}`);
        for (const skipped of report.skipped)
          ctx.out.note(`claude-checkpoint: ${quotePath(skipped.file)}: skipped (${skipped.reason})`);
      }
      return report.findings.length > 0 ? EXIT.failure : EXIT.ok;
    }),
  );
}

// The file and stream modules load when a scan reads, not when every other command starts (issue 26).
async function readInput(name: string, cwd: string, maxBytes: number): Promise<ScanInput> {
  if (name === '-') {
    const { text } = await import('node:stream/consumers');
    const content = await text(process.stdin);
    if (Buffer.byteLength(content) > maxBytes) throw tooLarge('standard input', maxBytes);
    return { name: '-', text: content };
  }
  // path.resolve would make '' the current folder: "'': not a regular file" named nothing (bad-input trial).
  if (name === '')
    throw new CheckpointError(
      'INVALID_INPUT',
      `a file name is empty (got ''): give each file's name, or - for standard input`,
    );
  const { lstat, readFile } = await import('node:fs/promises');
  let file: string | Buffer = path.resolve(cwd, name);
  let stats = await lstat(file).catch((error: NodeJS.ErrnoException) => error);
  // A name as scan (and diff) print it, quoted (`"sec\tret.txt"`): taken back when no file has it as written.
  const unquoted = unquotePath(name);
  if (stats instanceof Error && stats.code === 'ENOENT' && unquoted !== null) {
    const named = fsPath(path.resolve(cwd, unquoted));
    const found = await lstat(named).catch(() => null);
    if (found) [file, stats, name] = [named, found, unquoted];
  }
  if (stats instanceof Error)
    throw new CheckpointError(
      'INVALID_INPUT',
      `${name}: ${stats.code === 'ENOENT' ? 'no such file' : stats.message}`,
    );
  if (!stats.isFile()) throw new CheckpointError('INVALID_INPUT', `${name}: not a regular file`);
  if (stats.size > maxBytes) throw tooLarge(name, maxBytes);
  return { name, text: await readFile(file, 'utf8') };
}

function tooLarge(name: string, maxBytes: number): CheckpointError {
  return new CheckpointError(
    'INVALID_INPUT',
    `${name}: larger than the ${maxBytes / 1024 / 1024} MB scan limit`,
  );
}
