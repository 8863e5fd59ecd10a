import { describe, expect, it } from 'vitest';
import { handoffMessage, messageFieldAt, messageForScan } from '../../src/core/handoff-message.js';

const checkpoint = `${JSON.stringify(
  {
    id: '7946b592-0d03-47b3-b87c-fd39b88e5814',
    git: { head: 'f6eec1a6383df8a45dc8382209a62476a4ed51d7' },
    goal: { primary: 'Fix the token refresh' },
  },
  null,
  2,
)}\n`;
const meta = {
  handoff: 1,
  name: 'tok',
  branch: 'main',
  base: 'f6eec1a6383df8a45dc8382209a62476a4ed51d7',
  createdAt: '2026-12-06T23:19:19.908Z',
  author: 'A <a@example.com>',
  goal: 'Fix the token refresh',
  checkpoint,
};

describe('the handoff commit message (trial of issue 26)', () => {
  it('puts each field on a line of its own, and reads back as the same JSON after the subject', () => {
    const message = handoffMessage('tok', meta);
    const lines = message.split('\n');
    expect(lines.slice(0, 2)).toEqual(['claude-checkpoint handoff tok', '']);
    expect(lines.filter((line) => line.includes('Fix the token refresh'))).toEqual([
      '  "goal": "Fix the token refresh",',
      `  "checkpoint": ${JSON.stringify(checkpoint)}`,
    ]);
    // As the pull reads it: everything after the subject's blank line.
    expect(JSON.parse(message.slice(message.indexOf('\n\n') + 2))).toEqual(meta);
  });

  it.each([
    ['the checkpoint it holds', checkpoint, true],
    ['another checkpoint than the one scanned', `${checkpoint} `, false],
  ])(
    'for the scan, empties the checkpoint line only when it is %s, keeping line numbers',
    (_, scanned, emptied) => {
      const message = handoffMessage('tok', meta);
      const forScan = messageForScan(message, scanned);
      expect(forScan.split('\n')).toHaveLength(message.split('\n').length);
      expect(forScan.includes('7946b592')).toBe(!emptied);
      expect(forScan).toContain('"goal": "Fix the token refresh"');
    },
  );

  it('leaves a message with no checkpoint as it is', () => {
    const message = handoffMessage('none', { ...meta, checkpoint: null });
    expect(messageForScan(message, null)).toBe(message);
  });

  it('names the field a line of the message holds, and for a left-out path that path', () => {
    const leftOut = [
      { path: 'dump "one".bin', kind: 'large' },
      { path: 'vendor/', kind: 'nested' },
    ];
    const message = handoffMessage('tok', { ...meta, leftOut } as typeof meta);
    const lines = message.split('\n');
    const at = (text: string) => lines.findIndex((line) => line.includes(text)) + 1;
    expect(messageFieldAt(message, 1)).toBeNull();
    expect(messageFieldAt(message, at('"branch"'))).toEqual({ field: 'branch' });
    expect(messageFieldAt(message, at('"goal"'))).toEqual({ field: 'goal' });
    expect(messageFieldAt(message, at('dump'))).toEqual({ field: 'leftOut', path: 'dump "one".bin' });
    expect(messageFieldAt(message, at('vendor/'))).toEqual({ field: 'leftOut', path: 'vendor/' });
    expect(messageFieldAt(message, at('"nested"'))).toEqual({ field: 'leftOut' });
  });
});
