import { describe, expect, it } from 'vitest';
import { redactText } from '../../src/core/redact.js';
import { compileCustomConfig } from '../../src/core/secrets/custom-config.js';

const user = (json: unknown) => ({
  origin: '~/.config/claude-checkpoint/redaction.json',
  scope: 'user' as const,
  json,
});
const project = (json: unknown) => ({
  origin: '.claude/checkpoint-redaction.json',
  scope: 'project' as const,
  json,
});

describe('compileCustomConfig', () => {
  it('adds patterns (strings or objects with keywords) on top of the built-in rules', () => {
    const { config, problems } = compileCustomConfig([
      user({ patterns: [{ id: 'acme', regex: 'acme_[a-z0-9]{8}', keywords: ['ACME_'] }] }),
      project({ patterns: ['INT-\\d{6}'] }),
    ]);
    expect(problems).toEqual([]);
    expect(redactText('acme_a1b2c3d4 INT-123456 ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q', config)).toEqual({
      text: '«redacted» «redacted» «redacted»',
      count: 3,
    });
  });

  it("honours exemptions only from the user's file", () => {
    const token = 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q';
    const fromUser = compileCustomConfig([user({ allow: [token], allowPatterns: ['^sk_live_fixture'] })]);
    expect(redactText(`${token} sk_live_fixture0000abcd1234`, fromUser.config).count).toBe(0);
    const fromProject = compileCustomConfig([project({ allow: [token] })]);
    expect(redactText(token, fromProject.config).count).toBe(1);
    expect(fromProject.problems).toEqual([
      '.claude/checkpoint-redaction.json: "allow" ignored: only your user config may exempt values from redaction',
    ]);
  });

  it.each([
    [{ patterns: '[a-z]+' }, '"patterns" must be an array'],
    [{ patterns: ['(unclosed'] }, 'patterns[0].regex is not a valid regular expression'],
    [{ patterns: ['a*'] }, 'patterns[0].regex matches the empty string'],
    [{ patterns: ['x'.repeat(1001)] }, 'patterns[0].regex is 1001 characters; the limit is 1000'],
    [
      { patterns: [{ regex: 'abc', keywords: 'abc' }] },
      'patterns[0].keywords must be an array of non-empty strings',
    ],
    [{ patterns: [42] }, 'patterns[0] must be a string or { "id", "regex", "keywords" }'],
    [{ allow: [1] }, '"allow" must be an array of strings'],
    [{ pattern: [] }, 'unknown field "pattern" ignored'],
    [[], 'must be a JSON object'],
  ])('names the file, the field and the limit for %j', (json, message) => {
    const { config, problems } = compileCustomConfig([user(json)]);
    expect(problems.join('\n')).toContain(message);
    expect(problems[0]).toMatch(/^~\/\.config\/claude-checkpoint\/redaction\.json/);
    // The built-in rules still run.
    expect(redactText('ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q', config).count).toBe(1);
  });
});
