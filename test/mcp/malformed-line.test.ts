import { describe, expect, it } from 'vitest';
import { answerMalformedLine } from '../../src/mcp/malformed-line.js';

const codeOf = (line: string) => {
  const answered = answerMalformedLine(line);
  return answered === null ? null : (JSON.parse(answered.answer) as { id: unknown; error: { code: number } });
};

describe('answerMalformedLine', () => {
  it.each([
    ['a request', '{"jsonrpc":"2.0","id":1,"method":"ping"}'],
    ['a notification', '{"jsonrpc":"2.0","method":"notifications/initialized"}'],
    ['a response to the server', '{"jsonrpc":"2.0","id":"s-1","result":{}}'],
    ['a blank line, which the SDK skips', '  \r'],
  ])('lets %s through to the SDK', (_, line) => {
    expect(answerMalformedLine(line)).toBeNull();
  });

  it.each([
    ['text that is not JSON', '{not json', -32700, null],
    ['JSON that is no object', '42', -32600, null],
    ['an object without jsonrpc', '{"id":3,"method":"ping"}', -32600, 3],
    ['a method that is not a string, its id kept', '{"jsonrpc":"2.0","id":"a","method":7}', -32600, 'a'],
    ['an id JSON-RPC does not allow', '{"jsonrpc":"2.0","id":{"x":1},"method":7}', -32600, null],
  ])('answers %s', (_, line, code, id) => {
    expect(codeOf(line)).toMatchObject({ id, error: { code } });
    expect(answerMalformedLine(line)?.reason).not.toContain(line);
  });

  // Review: JSON-RPC 2.0 answers no notification; a response's id is the server's own count, so an error
  // with it reached the client as the answer to its own request of that number; a batch's answer would be
  // an array. Each is said on stderr only.
  it.each([
    ['a response the SDK refuses', '{"jsonrpc":"2.0","id":3,"result":[]}'],
    ['an error response without a code', '{"jsonrpc":"2.0","id":3,"error":{}}'],
    ['a notification the SDK refuses', '{"jsonrpc":"2.0","method":"notifications/initialized","_trace":1}'],
    ['a notification with params JSON-RPC allows and MCP not', '{"jsonrpc":"2.0","method":"n","params":[1]}'],
    ['a batch of notifications', '[{"jsonrpc":"2.0","method":"notifications/initialized"}]'],
  ])('never answers %s', (_, line) => {
    const answered = answerMalformedLine(line);
    expect(answered?.answer).toBe('');
    expect(answered?.reason).toMatch(/not answered/);
  });

  it('answers a request with a stray result as a request, with its id (review)', () => {
    expect(codeOf('{"jsonrpc":"2.0","id":7,"method":"ping","result":1}')).toMatchObject({
      id: 7,
      error: { code: -32600 },
    });
  });

  it('answers a batch as JSON-RPC 2.0 does: an error for each request in it, one for an empty one (review)', () => {
    const answered = (line: string) => JSON.parse(answerMalformedLine(line)?.answer ?? 'null');
    expect(
      answered(
        '[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"x","method":"tools/list"}]',
      ),
    ).toEqual([
      expect.objectContaining({ id: 2, error: expect.objectContaining({ code: -32600 }) }),
      expect.objectContaining({ id: 'x', error: expect.objectContaining({ code: -32600 }) }),
    ]);
    expect(answered('[]')).toMatchObject({ id: null, error: { code: -32600 } });
  });
});
