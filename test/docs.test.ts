import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from './helpers/cli.js';
import {
  brokenLink,
  type CliCommand,
  cliMentionProblems,
  cliMentions,
  codeTexts,
  docFiles,
  envReads,
  githubSlug,
  headingAnchors,
  markdownLinks,
  parseHelp,
  readIfExists,
  strayTableRows,
} from './helpers/docs.js';

// The docs cannot drift from the code (issue 27): links and anchors resolve, the CLI they name exists,
// every command and flag of the CLI is in docs/cli.md, and every environment variable the code reads is
// documented.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const rel = (file: string) => path.relative(ROOT, file);
const pages = new Map(
  docFiles(ROOT).flatMap((file) => {
    const text = readIfExists(file);
    return text === undefined ? [] : [[file, text] as const];
  }),
);
const readPage = (file: string) => pages.get(file) ?? readIfExists(file);
const cliReference = path.join(ROOT, 'docs', 'cli.md');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The CLI's commands and flags, read from the built CLI's own --help, as a person would. */
async function readCli(): Promise<CliCommand> {
  const help = async (args: string[]) => {
    const result = await runCli([...args, '--help'], { cwd: ROOT });
    expect(result.code, `claude-checkpoint ${args.join(' ')} --help: ${result.stderr}`).toBe(0);
    return parseHelp(result.stdout);
  };
  const read = async (args: string[]): Promise<CliCommand> => {
    const { options, commands } = await help(args);
    const subcommands = await Promise.all(
      commands.map(async (name) => [name, await read([...args, name])] as const),
    );
    return { options, subcommands: new Map(subcommands) };
  };
  return read([]);
}

describe('the docs', () => {
  it('are the README, the changelog and a page per topic', () => {
    const names = [...pages.keys()].map(rel);
    for (const page of [
      'README.md',
      'CHANGELOG.md',
      'docs/cli.md',
      'docs/tools.md',
      'docs/settings.md',
      'docs/rewind.md',
      'docs/handoff.md',
      'docs/security.md',
      'docs/performance.md',
      'docs/troubleshooting.md',
      'docs/development.md',
      'docs/checkpoint-file.md',
      'docs/agents/claude-code.md',
      'docs/agents/codex.md',
      'docs/agents/copilot.md',
      'docs/agents/gemini.md',
      'docs/agents/opencode.md',
    ])
      expect(names).toContain(page);
  });

  it('keep the README short and its test command the one CI runs', () => {
    const readme = pages.get(path.join(ROOT, 'README.md')) ?? '';
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(12 * 1024);
    // .ci/run runs `npm test` as "the README's test command".
    expect(readme).toMatch(/^npm test\b/m);
    expect(readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')).toMatch(/^npm test\b/m);
  });

  it('have links whose files and anchors exist', () => {
    const problems: string[] = [];
    for (const [file, text] of pages)
      for (const { target, line } of markdownLinks(text)) {
        const problem = brokenLink(file, target, readPage);
        if (problem) problems.push(`${rel(file)}:${line}: ${problem}`);
      }
    expect(problems).toEqual([]);
  });

  // Review B: a paragraph inside the "Other variables" table of settings.md printed its last rows as text.
  it('have every table row inside its table', () => {
    const problems = [...pages].flatMap(([file, text]) =>
      strayTableRows(text).map((line) => `${rel(file)}:${line}`),
    );
    expect(problems).toEqual([]);
  });

  it('document every environment variable the code reads', () => {
    const documented = [...pages.values()].join('\n');
    const reads = new Map<string, string>();
    for (const file of sourceFiles(path.join(ROOT, 'src')))
      for (const name of envReads(readFileSync(file, 'utf8'))) reads.set(name, rel(file));
    expect(reads.size).toBeGreaterThan(15);
    const missing = [...reads].filter(([name]) => !new RegExp(`\\b${name}\\b`).test(documented));
    expect(missing.map(([name, file]) => `${name} (read in ${file})`)).toEqual([]);
  });

  describe('against the built CLI', () => {
    let cli: CliCommand;
    beforeAll(async () => {
      assertBuilt();
      cli = await readCli();
    }, 120_000);

    it('name only commands and flags that exist', () => {
      const names = new Set(cli.subcommands.keys());
      expect(names).toContain('save');
      const problems: string[] = [];
      for (const [file, text] of pages)
        for (const { code, line } of codeTexts(text))
          for (const mention of cliMentions(code, names))
            for (const problem of cliMentionProblems(mention, cli))
              problems.push(`${rel(file)}:${line}: ${problem} in \`${code.trim()}\``);
      expect(problems).toEqual([]);
    });

    it('give every command and every flag of --help in docs/cli.md', () => {
      const reference = pages.get(cliReference) ?? '';
      const spans = codeTexts(reference).map(({ code }) => code);
      const missing: string[] = [];
      const check = (command: CliCommand, name: string[], inherited: Set<string>) => {
        const [head, sub] = name;
        const documented = spans.some((span) => {
          const words = span.replace(/^claude-checkpoint\s+/, '').split(/\s+/);
          const matches = (word: string | undefined, wanted: string) =>
            word?.split(/\\?\|/).includes(wanted) === true;
          return (
            head !== undefined && matches(words[0], head) && (sub === undefined || matches(words[1], sub))
          );
        });
        if (name.length > 0 && !documented) missing.push(`command "${name.join(' ')}"`);
        for (const flag of command.options)
          if (!inherited.has(flag) && !new RegExp(`${flag}(?![a-z-])`).test(reference))
            missing.push(`flag ${flag} of "${name.join(' ') || 'claude-checkpoint'}"`);
        for (const [childName, child] of command.subcommands)
          check(child, [...name, childName], new Set([...inherited, ...command.options]));
      };
      check(cli, [], new Set(['--help']));
      expect(missing).toEqual([]);
    });
  });
});

// The checks above must be able to fail: each is run here on a page with a known fault.
describe('the docs checks', () => {
  it.each([
    ['Tool reference', 'tool-reference'],
    ['`save_session_checkpoint`', 'save_session_checkpoint'],
    ['The `.claude-checkpoint` file', 'the-claude-checkpoint-file'],
    ['Decisions & gotchas', 'decisions--gotchas'],
    ['Rewind: snapshots of the whole tree', 'rewind-snapshots-of-the-whole-tree'],
    ['How `setup` edits your files', 'how-setup-edits-your-files'],
    [
      'When the model never saves: the session transcript',
      'when-the-model-never-saves-the-session-transcript',
    ],
    ['Déjà vu, 100% (v2)', 'déjà-vu-100-v2'],
  ])('gives the heading "%s" the anchor #%s, as GitHub does', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });

  it('finds a table row cut off from its table, not one in a table or a code block', () => {
    const page = [
      '| A | B |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      'Text.',
      '| 3 | 4 |',
      '```',
      '| code |',
      '```',
    ].join('\n');
    expect(strayTableRows(page)).toEqual([6]);
  });

  it('numbers repeated headings and ignores headings in code blocks', () => {
    expect([...headingAnchors('# A\n## Usage\n```\n# Not a heading\n```\n## Usage\n')]).toEqual([
      'a',
      'usage',
      'usage-1',
    ]);
  });

  it('reports a link to a missing page or a missing anchor, not one in code or to the web', () => {
    const files = new Map([
      ['/d/README.md', '# Top\n## Install\n'],
      ['/d/docs/cli.md', '# CLI reference\n'],
    ]);
    const read = (file: string) => files.get(file);
    const page = [
      '[ok](docs/cli.md) [ok](#install) [ok](https://example.com/x#y) `[code](nowhere.md)`',
      '[gone](docs/rewind.md) [bad](docs/cli.md#flags) [bad](#usage)',
      '```',
      '[in a block](missing.md)',
      '```',
    ].join('\n');
    const problems = markdownLinks(page)
      .map(({ target }) => brokenLink('/d/README.md', target, read))
      .filter(Boolean);
    expect(problems).toEqual([
      'docs/rewind.md: no file /d/docs/rewind.md',
      'docs/cli.md#flags: no heading with the anchor #flags',
      '#usage: no heading with the anchor #usage',
    ]);
  });

  const cli: CliCommand = {
    options: new Set(['--version', '--help']),
    subcommands: new Map([
      ['restore', { options: new Set(['--yes', '--dry-run', '--json']), subcommands: new Map() }],
      [
        'handoff',
        {
          options: new Set(),
          subcommands: new Map([
            ['push', { options: new Set(['--remote', '--force']), subcommands: new Map() }],
          ]),
        },
      ],
    ]),
  };
  const names = new Set(cli.subcommands.keys());
  const problemsIn = (code: string) =>
    cliMentions(code, names).flatMap((mention) => cliMentionProblems(mention, cli));

  it.each([
    ['claude-checkpoint restore latest src/ --yes', []],
    ['claude-checkpoint restore <id> --yes   # undo: --nothing-here', []],
    ['git diff --cached | claude-checkpoint restore latest --dry-run', []],
    ['claude-checkpoint restore latest | jq --raw-output .undo', []],
    ['!claude-checkpoint restore latest --json', []],
    ['node …/dist/cli.js restore latest --yes', []],
    ['handoff push [--remote NAME] [--force]', []],
    ['restore <snapshot> [--yes\\|--dry-run]', []],
    ['claude-checkpoint --version', []],
    ['~/.copilot/hooks/claude-checkpoint.json --fake', []],
    ['claude-checkpoint restor latest', ['unknown command "restor"']],
    ['claude-checkpoint restore latest --yess', ['"restore" has no flag --yess']],
    ['claude-checkpoint handoff pull --yes', ['unknown command "handoff pull"']],
    ['claude-checkpoint handoff push --yes', ['"handoff push" has no flag --yes']],
    ['handoff push\\|pull [--force]', ['unknown command "handoff pull"']],
    ['restore <snapshot> [--all]', ['"restore" has no flag --all']],
    ['claude-checkpoint --verbose', ['unknown flag --verbose']],
  ])('checks `%s` against the CLI', (code, expected) => {
    expect(problemsIn(code)).toEqual(expected);
  });

  it('finds the environment variables code reads, not those it sets for git', () => {
    const source = [
      "export const STORE_ENV = 'CHECKPOINT_STORE_DIR';",
      "const SESSION_ENV = ['CLAUDE_CODE_SESSION_ID', 'CLAUDE_SESSION_ID'] as const;",
      "const limits = { maxCount: 'CHECKPOINT_SNAPSHOT_MAX_COUNT' };",
      'const home = env.HOME?.trim(); const dir = deps.env.CLAUDE_PROJECT_DIR;',
      "if (process.env['FOO_BAR'] === '0') {} if ('NO_COLOR' in env) {}",
      "env.GIT_OPTIONAL_LOCKS = '0'; const x = '.env.example';",
    ].join('\n');
    expect([...envReads(source)].sort()).toEqual(
      [
        'CHECKPOINT_SNAPSHOT_MAX_COUNT',
        'CHECKPOINT_STORE_DIR',
        'CLAUDE_CODE_SESSION_ID',
        'CLAUDE_PROJECT_DIR',
        'CLAUDE_SESSION_ID',
        'FOO_BAR',
        'HOME',
        'NO_COLOR',
      ].sort(),
    );
  });
});
