import { runGit } from './run.js';
import { parseStatusV2 } from './status.js';

/**
 * Those of `files` (relative to `root`) that the project's git holds unchanged: tracked, and the same in
 * HEAD, the index and the worktree, so that `git checkout -- <file>` brings them back. One `git status`
 * limited to them (git's stat cache spares hashing an unchanged file); none when git cannot tell (no
 * repository, no git, an error): the caller then treats them all as at risk.
 */
export async function unchangedAtHead(root: string, files: readonly string[]): Promise<Set<string>> {
  if (files.length === 0) return new Set();
  let stdout: string;
  try {
    const result = await runGit(
      [
        'status',
        '--porcelain=v2',
        '-z',
        '--untracked-files=all',
        '--ignored=matching',
        '--no-renames',
        '--ignore-submodules=all',
        '--',
        ...files.map((file) => `:(literal)${file}`),
      ],
      { cwd: root, exactNames: true },
    );
    stdout = result.stdout;
  } catch {
    return new Set();
  }
  // git names paths from the repository's top, which may be above `root`: a report that ends with one of
  // them counts against it (at worst one too many is kept at risk). Ignored files come as `! path`.
  const reported = [
    ...parseStatusV2(stdout).entries.map((entry) => entry.path),
    ...stdout
      .split('\0')
      .filter((record) => record.startsWith('! '))
      .map((record) => record.slice(2)),
  ];
  return new Set(
    files.filter((file) => !reported.some((seen) => seen === file || seen.endsWith(`/${file}`))),
  );
}
