import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderResumeBrief } from '../../src/core/brief.js';
import { renderNothingToResume } from '../../src/core/checkpoint-text.js';
import {
  type PullOutcome,
  renderPull,
  renderPushed,
  renderSecretsFound,
} from '../../src/core/handoff-text.js';
import { parseCheckpoint } from '../../src/core/schema.js';
import { renderRestore, renderSnapshotList } from '../../src/core/snapshot-text.js';
import type { Surface } from '../../src/core/surface.js';

const example = parseCheckpoint(
  readFileSync(new URL('../fixtures/spec-example.json', import.meta.url), 'utf8'),
);
const now = new Date(new Date(example.updatedAt).getTime() + 60_000);
const snapshot = { id: '20261130-140102-a1b2c3', createdAt: example.updatedAt, trigger: 'manual' };
const emptyPlan = { overwrite: [], create: [], delete: [], keptAside: [], refused: [] };
const pull = (changes: Partial<PullOutcome>): PullOutcome => ({
  ref: 'refs/claude-checkpoint/handoff/main',
  commit: 'a'.repeat(40),
  base: 'b'.repeat(40),
  branch: 'main',
  author: 'Alice',
  goal: null,
  redacted: 0,
  baseMatches: true,
  applied: true,
  changed: { ...emptyPlan, overwrite: ['a.ts'] },
  undo: snapshot.id,
  checkpoint: 'written',
  ...changes,
});

/** What a person at the CLI or a model over MCP reads after each step that points to the next. */
const TEXTS: Record<string, (surface: Surface) => string> = {
  'the brief, cut short': (surface) =>
    renderResumeBrief({
      checkpoint: example,
      drift: null,
      now,
      latestSnapshot: snapshot,
      surface,
      maxChars: 600,
    }),
  'the brief': (surface) =>
    renderResumeBrief({ checkpoint: example, drift: null, now, latestSnapshot: snapshot, surface }),
  'no checkpoint': (surface) => renderNothingToResume('/p/.claude-checkpoint', surface),
  'no snapshots': (surface) => renderSnapshotList([], 0, 0, now, surface),
  'a planned restore': (surface) =>
    renderRestore(
      {
        snapshot: { id: snapshot.id },
        dryRun: true,
        plan: { ...emptyPlan, overwrite: ['a.ts'] },
        undoSnapshotId: null,
        interrupted: null,
      },
      surface,
    ),
  'a push refused for a secret': (surface) =>
    renderSecretsFound([{ file: 'aws.ts', line: 1, rule: 'aws-access-key-id' }], surface),
  'a push': (surface) =>
    renderPushed(
      {
        author: 'Alice <alice@example.com>',
        remote: 'origin',
        ref: 'refs/claude-checkpoint/handoff/main',
        commit: 'a'.repeat(40),
        base: 'b'.repeat(40),
        files: { added: [], modified: ['a.ts'], deleted: [] },
        skipped: { large: [], nested: [] },
      },
      surface,
    ),
  'an applied pull': (surface) => renderPull(pull({}), surface),
  'a pull on another commit': (surface) => renderPull(pull({ baseMatches: false, applied: false }), surface),
};

const MCP_WORDS =
  /\b(save_session_checkpoint|snapshot_files|list_snapshots|restore_snapshot|pull_handoff|dryRun|allowSecrets|format "full")/;

describe('each surface names its own next steps (issue 26)', () => {
  it.each(Object.keys(TEXTS))('%s: the CLI names no MCP tool or parameter', (name) => {
    const text = TEXTS[name]?.('cli') ?? '';
    expect(text).not.toMatch(MCP_WORDS);
  });

  it.each(Object.keys(TEXTS))('%s: the MCP tools name no flag the model cannot pass', (name) => {
    const text = TEXTS[name]?.('mcp') ?? '';
    // A flag appears only in a command a person runs, never as if the tool took it.
    for (const flag of text.match(/--[a-z-]+/g) ?? [])
      expect(text, flag).toMatch(new RegExp(`\`claude-checkpoint [a-z ]+${flag}\``));
  });
});
