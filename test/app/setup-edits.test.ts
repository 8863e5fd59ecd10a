import fc from 'fast-check';
import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import {
  hookCommand,
  isOurHookCommand,
  jsonEdit,
  SERVER_MARK,
  tomlServerEdit,
} from '../../src/app/setup-edits.js';

const hookPath = '/opt/my tools/claude-checkpoint/plugin/dist/hook.cjs';
const gemini = jsonEdit('/home/u/.gemini/settings.json', {
  server: { command: 'node', args: ['/opt/claude-checkpoint/dist/index.js'], env: SERVER_MARK },
  groups: [
    { event: 'AfterTool', group: { hooks: [{ command: hookCommand(hookPath, 'AfterTool', 'gemini') }] } },
    {
      event: 'SessionStart',
      group: { hooks: [{ command: hookCommand(hookPath, 'SessionStart', 'gemini') }] },
    },
  ],
});

/**
 * Settings files as people write them: comments (after an entry too), compact or spread out, servers and
 * hooks of their own, empty ones, a trailing comma.
 */
const userFile = fc
  .record({
    comment: fc.boolean(),
    trailing: fc.constantFrom('', ' // mine', ' /* mine */'),
    trailingComma: fc.boolean(),
    theme: fc.option(fc.constantFrom('dark', 'light')),
    servers: fc.option(
      fc.constantFrom(
        '{ "other": { "command": "other" } }',
        '{\n    "other": {\n      "command": "other"\n    }\n  }',
        '{}',
        '{ // none yet\n  }',
      ),
    ),
    // An empty list or server table of the user's stays (trial 2026-12-06): setup notes what it made.
    afterTool: fc.option(
      fc.constantFrom(
        '[]',
        '[ ]',
        '[{ "matcher": "x", "hooks": [{ "type": "command", "command": "node /home/me/hook.js AfterTool --agent gemini" }] }]',
        '[\n      {\n        "hooks": [\n          { "type": "command", "command": "echo mine" }\n        ]\n      }\n    ]',
      ),
    ),
    compact: fc.boolean(),
  })
  .map(({ comment, trailing, trailingComma, theme, servers, afterTool, compact }) => {
    const sep = compact ? ' ' : '\n  ';
    const entries = [
      ...(comment ? ['/* my settings */'] : []),
      ...(theme ? [`"theme": "${theme}"`] : []),
      ...(servers ? [`"mcpServers": ${servers}`] : []),
      ...(afterTool ? [`"hooks": { "AfterTool": ${afterTool} }`] : []),
    ];
    const body = entries.map((entry, index) => {
      const last = index === entries.length - 1 || entries.slice(index + 1).every((e) => e.startsWith('/*'));
      return entry.startsWith('/*') || (last && !trailingComma) ? entry : `${entry},`;
    });
    if (body.length === 0) return compact ? '{ }' : '{}\n';
    // A comment after the last entry, on its line (a line comment needs the line break after it).
    const end = compact && trailing.startsWith(' //') ? '\n' : compact ? ' ' : '\n';
    return `{${sep}${body.join(sep)}${trailing}${end}}\n`;
  });

describe('editing a JSON settings file', () => {
  it('taking our entries out of what setup wrote gives the file back byte for byte', () => {
    fc.assert(
      fc.property(userFile, (before) => {
        const { text: installed, note } = gemini.install(before, null);
        expect(installed).not.toBe(before);
        expect(gemini.remove(installed, note)).toBe(before);
        // And setting up twice changes nothing, nor what the note says.
        expect(gemini.install(installed, note)).toEqual({ text: installed, note });
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    [
      'tabs and CRLF line ends',
      '{\r\n\t"theme": "dark", // mine\r\n\t"mcpServers": {\r\n\t\t"z": {}\r\n\t}\r\n}\r\n',
    ],
    ['one line, no final line break', '{"theme": "dark"}'],
    ['a list ending with a comma', '{"hooks": {"AfterTool": [{"hooks": []}, ]}}\n'],
    ['an object holding only a comment', '{\n  // only a comment\n}\n'],
    ['a comment over two lines after the last entry', '{\n  "a": 1 /* two\n lines */\n}\n'],
    ['a comment after a value over two lines', '{\n  "a": [1,\n    2] // c\n}\n'],
    // Found by the property above: the hooks went in after the comment that follows our server.
    ['only a comment, on one line', '{ /* my settings */ }\n'],
    ['an empty object with a comment in it', '{\n  "mcpServers": { /* later */ }\n}\n'],
  ])('%s: set up and taken out again, byte for byte', (_name, before) => {
    const { text: installed, note } = gemini.install(before, null);
    expect(parse(installed).mcpServers['claude-checkpoint']).toBeDefined();
    expect(gemini.remove(installed, note)).toBe(before);
  });

  it("keeps a hook of the user's that sits in our group, and every hook that merely looks like ours", () => {
    const { text: installed, note } = gemini.install(null, null);
    const value = parse(installed);
    value.hooks.AfterTool[0].hooks.push({ type: 'command', command: 'echo also mine' });
    value.hooks.AfterTool.push({
      hooks: [{ type: 'command', command: `node ${hookPath.replaceAll(' ', '_')} AfterTool --agent gemini` }],
    });
    const removed = parse(gemini.remove(JSON.stringify(value, null, 2), note) ?? '');
    expect(removed.hooks.AfterTool).toEqual([
      { hooks: [{ type: 'command', command: 'echo also mine' }] },
      value.hooks.AfterTool[1],
    ]);
    expect(removed.mcpServers).toBeUndefined();
  });

  it('recognises exactly the commands setup writes, quoted paths included', () => {
    expect(isOurHookCommand(hookCommand(hookPath, 'AfterTool', 'gemini'))).toBe(true);
    expect(isOurHookCommand(hookCommand('/a/hook.cjs', 'PreCompact', 'codex'))).toBe(true);
    for (const theirs of [
      'node /home/me/hook.js PostToolUse --agent gemini',
      'node /a/hook.cjs AfterTool --agent gemini --by-claude-checkpoint-setup && rm -rf ~',
      'bash -c "node /a/hook.cjs AfterTool --agent gemini --by-claude-checkpoint-setup"',
    ])
      expect(isOurHookCommand(theirs)).toBe(false);
  });
});

describe("setup's block in a Codex config.toml", () => {
  const codex = tomlServerEdit('/home/u/.codex/config.toml', '/opt/claude-checkpoint/dist/index.js');
  const ours = codex.install('', null).text;
  const closing = '# <<< claude-checkpoint\n';

  it('takes out only our tables by name: a subtable of ours goes, quoted keys and comments of others stay', () => {
    const edited = ours
      .replace('[mcp_servers.claude-checkpoint]', '[ mcp_servers . "claude-checkpoint" ]')
      .replace(
        closing,
        [
          '[mcp_servers.claude-checkpoint.env]',
          'A = "1"',
          '# the github server',
          "[mcp_servers.'github']",
          'command = "gh"',
          closing,
        ].join('\n'),
      );
    expect(codex.remove(edited, null)).toBe(
      '# the github server\n[mcp_servers.\'github\']\ncommand = "gh"\n',
    );
  });

  it('never takes a line inside a multi-line string or array for a table header', () => {
    const edited = ours.replace(
      'args = [',
      'notes = """\n[projects.fake]\n"""\nlist = [\n  [1],\n]\nargs = [',
    );
    const kept = `${ours.replace(closing, '')}[profiles.x]\nmodel = "o3"\n${closing}`;
    expect(codex.remove(edited, null)).toBe('');
    expect(codex.remove(kept, null)).toBe('[profiles.x]\nmodel = "o3"\n');
  });

  it('takes an array of tables under ours with it, and keeps the [mcp_servers] table the user wrote', () => {
    const edited = ours.replace(closing, `[[mcp_servers.claude-checkpoint.tools]]\nname = "x"\n${closing}`);
    expect(codex.remove(edited, null)).toBe('');
    expect(codex.remove(`[mcp_servers]\n${ours}`, null)).toBe('[mcp_servers]\n');
  });
});

describe('setup in a JSON settings file as the user keeps it', () => {
  it("writes in the file's own CRLF line breaks, whatever it adds to, and undoes itself byte for byte", () => {
    for (const before of [
      '{\r\n  "theme": "dark"\r\n}\r\n',
      '{\r\n  "theme": "dark"\r\n}',
      '{\r\n}\r\n',
      '{\r\n  "hooks": {},\r\n  "mcpServers": {}\r\n}\r\n',
    ]) {
      const { text, note } = gemini.install(before, null);
      expect(text.replaceAll('\r\n', '')).not.toContain('\n');
      expect(gemini.remove(text, note)).toBe(before);
    }
  });

  it('says a key written twice is written twice (JSON keeps the last one), not that it is of the wrong kind', () => {
    for (const [before, key, where] of [
      ['{ "hooks": { "AfterTool": [] }, "hooks": { "BeforeTool": [] } }', 'hooks', 'at the top level'],
      ['{ "mcpServers": {}, "mcpServers": {} }', 'mcpServers', 'at the top level'],
      ['{ "hooks": { "AfterTool": [], "AfterTool": [] } }', 'AfterTool', 'in "hooks"'],
    ] as const) {
      expect(() => gemini.install(before, null)).toThrow(`has the key "${key}" twice ${where}`);
      expect(() => gemini.remove(before, null)).toThrow('Merge the two into one');
    }
  });

  it('leaves a key setup never edits written twice alone, and sets up beside it', () => {
    const before = '{ "theme": "a", "theme": "b" }\n';
    const { text, note } = gemini.install(before, null);
    expect(text).toContain('"theme": "a", "theme": "b"');
    expect(text).toContain('claude-checkpoint');
    expect(gemini.remove(text, note)).toBe(before);
  });
});
