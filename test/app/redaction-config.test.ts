import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRedactionConfig } from '../../src/app/redaction.js';
import { redactText } from '../../src/core/redact.js';
import { nodeFs } from '../../src/store/fs-seam.js';
import { tempDir } from '../helpers/fixtures.js';

function projectWith(patterns: unknown[]) {
  const root = tempDir('redaction-config-');
  mkdirSync(path.join(root, '.claude'));
  writeFileSync(path.join(root, '.claude', 'checkpoint-redaction.json'), JSON.stringify({ patterns }));
  return { root, env: { CHECKPOINT_CONFIG_DIR: tempDir('config-') } };
}

describe('issue 26: what a custom pattern may cost', () => {
  it('refuses a pattern that only the backtracking engine runs and the checker proves can backtrack catastrophically, naming the file, the rule and why', async () => {
    // The look-ahead keeps it off the linear-time engine.
    const { root, env } = projectWith([{ id: 'slow', regex: '(?=a)(a+)+$' }, 'INT-[0-9]{6}']);
    const { config, problems } = await loadRedactionConfig(nodeFs, env, root);
    expect(problems).toEqual([
      expect.stringMatching(
        /checkpoint-redaction\.json: patterns\[0\] \("slow"\)\.regex can backtrack catastrophically \(redos-detector finds no bound on the ways it can try\)/,
      ),
    ]);
    expect(redactText(`${'a'.repeat(40)}! INT-123456`, config).text).toBe(`${'a'.repeat(40)}! «redacted»`);
  });

  it("keeps a pattern that could backtrack on V8's linear-time engine, where it cannot (review of issue 26: the usual PEM pattern was refused)", async () => {
    const pem = '-----BEGIN [A-Z ]+-----[\\s\\S]*?-----END [A-Z ]+-----';
    const { root, env } = projectWith([
      { id: 'pem', regex: pem },
      { id: 'nested', regex: '(a+)+$' },
    ]);
    const { config, problems } = await loadRedactionConfig(nodeFs, env, root);
    expect(problems).toEqual([]);
    expect(config.extraRules?.map((rule) => rule.pattern.flags)).toEqual(['gl', 'gl']);
    const block =
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----';
    expect(redactText(`key:\n${block}\ndone`, config).text).toBe('key:\n«redacted»\ndone');
    // 2^40 steps for a backtracking engine; one pass for the linear one.
    expect(redactText(`${'a'.repeat(40)}!`, config).count).toBe(0);
  });

  it("runs a pattern the checker cannot decide on V8's linear-time engine, where nothing backtracks", async () => {
    const { root, env } = projectWith([{ id: 'undecided', regex: '(x+x+)+y' }]);
    const { config, problems } = await loadRedactionConfig(nodeFs, env, root);
    expect(problems).toEqual([]);
    // 2^60 steps for a backtracking engine; one pass for the linear one.
    expect(redactText(`${'x'.repeat(60)}!`, config).count).toBe(0);
    expect(config.extraRules?.[0]?.pattern.flags).toBe('gl');
  });

  it('keeps back-references and look-arounds, which only the backtracking engine runs, when the checker finds them safe', async () => {
    const { root, env } = projectWith(['(?<=acme=)[a-z0-9]{12}', '(["\'])tok_[a-z0-9]{10}\\1']);
    const { config, problems } = await loadRedactionConfig(nodeFs, env, root);
    expect(problems).toEqual([]);
    expect(redactText('acme=k3j5h7g9f1d2 "tok_a1b2c3d4e5"', config).text).toBe('acme=«redacted» «redacted»');
  });
});

// As a checkpoint file that is not UTF-8 (bad-input trial): a pattern read with U+FFFD would match nothing.
describe('a redaction config that is not UTF-8', () => {
  it('is named with the offset of the first bad byte, and not read', async () => {
    const root = tempDir('redaction-config-');
    mkdirSync(path.join(root, '.claude'));
    const file = path.join(root, '.claude', 'checkpoint-redaction.json');
    writeFileSync(file, Buffer.from('{"patterns": ["caf\xe9-[0-9]{4}"]}', 'latin1'));
    const { problems } = await loadRedactionConfig(
      nodeFs,
      { CHECKPOINT_CONFIG_DIR: tempDir('config-') },
      root,
    );
    expect(problems).toEqual([
      `${file}: is not UTF-8 text (the byte at offset 18 (0xe9) is not UTF-8 (text in another encoding, such as Latin-1?)); not read: save it as UTF-8`,
    ]);
  });
});
