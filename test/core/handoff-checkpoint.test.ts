import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  carryHandoff,
  HANDOFF_FIELDS,
  handoffFieldsOf,
  receiveHandoffCheckpoint,
} from '../../src/core/handoff-checkpoint.js';
import { Redactor } from '../../src/core/redact.js';
import { parseCheckpoint } from '../../src/core/schema.js';

const example = parseCheckpoint(
  readFileSync(new URL('../fixtures/spec-example.json', import.meta.url), 'utf8'),
);
const origin = {
  name: 'h',
  remote: 'origin',
  author: 'Alice',
  pushedAt: example.updatedAt,
  commit: 'c'.repeat(40),
};
const TOKEN = 'ghp_Zk3Lq9Vx2Mn8Bp4Rt6Yw1Hs5Jd7Fg0Ca2Ee4';

describe('a checkpoint received from a handoff', () => {
  it('is redacted in every text field, counted, and marked whole, whatever mark it came with', () => {
    const sent = {
      ...example,
      goal: { ...example.goal, primary: `Run with ${TOKEN}` },
      nextSteps: [`export GITHUB_TOKEN=${TOKEN}`],
      meta: { ...example.meta, handoff: { ...origin, author: 'me', fields: [] } },
    };
    const { checkpoint, redactions } = receiveHandoffCheckpoint(sent, origin, new Redactor());
    expect(JSON.stringify(checkpoint)).not.toContain(TOKEN);
    expect(redactions).toBe(2);
    expect(checkpoint.meta.redactions).toBe(example.meta.redactions + 2);
    expect(checkpoint.meta.handoff).toEqual({ ...origin, fields: [...HANDOFF_FIELDS] });
    expect([...handoffFieldsOf(checkpoint)]).toEqual([...HANDOFF_FIELDS]);
  });

  it('redacts a token joined by `_` to a name in the paths it lists, which keep no oid then (brief h-left)', () => {
    const sent = {
      ...example,
      modifiedFiles: [
        {
          path: `keys/backup_${TOKEN}.txt`,
          status: 'M' as const,
          source: 'agent' as const,
          hash: 'a'.repeat(40),
        },
      ],
      meta: { ...example.meta, flagged: { since: example.updatedAt, paths: [`keys/backup_${TOKEN}.txt`] } },
    };
    const { checkpoint, redactions } = receiveHandoffCheckpoint(sent, origin, new Redactor());
    expect(JSON.stringify(checkpoint)).not.toContain(TOKEN);
    expect(checkpoint.modifiedFiles).toEqual([
      { path: 'keys/backup_«redacted».txt', status: 'M', source: 'agent' },
    ]);
    expect(checkpoint.meta.flagged?.paths).toEqual(['keys/backup_«redacted».txt']);
    expect(redactions).toBe(2);
  });

  it('keeps none of the meta that speaks for this session, and redacts every string it keeps', () => {
    const sent = {
      ...example,
      git: example.git && { ...example.git, branch: `feature/${TOKEN}` },
      modifiedFiles: [
        { path: `x/${TOKEN}`, status: 'M' as const, source: 'agent' as const, hash: 'a'.repeat(40) },
      ],
      meta: {
        ...example.meta,
        derived: { goal: 's', tasks: 's', summary: 's' },
        newerInTranscript: { at: example.updatedAt, summary: `token ${TOKEN}` },
        agentSavedAt: { tasks: example.updatedAt },
        journaled: ['r1'],
        flagged: { since: example.updatedAt, paths: [`y/${TOKEN}`] },
        later: [{ words: `key ${TOKEN}` }],
      },
    };
    const { checkpoint, redactions } = receiveHandoffCheckpoint(sent, origin, new Redactor());
    expect(JSON.stringify(checkpoint)).not.toContain(TOKEN);
    expect(redactions).toBe(4);
    for (const field of ['derived', 'newerInTranscript', 'agentSavedAt', 'journaled']) {
      expect(checkpoint.meta, field).not.toHaveProperty(field);
    }
    // A flag can only add a warning: it stays, redacted, like every entry with a secret in its path.
    expect(checkpoint.meta.flagged?.paths).toEqual(['y/«redacted»']);
    expect(checkpoint.modifiedFiles).toEqual([
      { path: 'x/«redacted»', status: 'M', source: 'agent', hash: 'a'.repeat(40) },
    ]);
    expect([...handoffFieldsOf(checkpoint)]).toEqual([...HANDOFF_FIELDS]);
    expect(parseCheckpoint(JSON.stringify(checkpoint))).toEqual(checkpoint);
  });

  it.each([
    [
      'an agent save of its goal only',
      {},
      false,
      ['tasks', 'summary', 'nextSteps', 'decisions', 'files', 'commands'],
    ],
    [
      'an agent save with summary and next steps',
      { summary: 's', nextSteps: ['n'] },
      false,
      ['tasks', 'decisions', 'files', 'commands'],
    ],
    ['a hook refresh', { summary: 's', nextSteps: ['n'] }, true, [...HANDOFF_FIELDS]],
  ])('after %s, the mark keeps the fields not written', (_name, saved, isAutomatic, fields) => {
    const mark = { ...origin, fields: [...HANDOFF_FIELDS] };
    expect(carryHandoff(mark, saved, isAutomatic)?.fields).toEqual(fields);
  });
});
