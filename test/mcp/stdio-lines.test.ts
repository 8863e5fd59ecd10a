import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { boundedLines, messageIdFromEdges, type OverLongMessage } from '../../src/mcp/stdio-lines.js';

/** Feeds `chunks` through boundedLines (limit `maxBytes`) and gives what came out and what was refused. */
async function feed(chunks: string[], maxBytes: number) {
  const input = new PassThrough();
  const refused: OverLongMessage[] = [];
  const output = boundedLines(input, (message) => refused.push(message), maxBytes);
  const lines: string[] = [];
  output.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
  const ended = new Promise((resolve) => output.on('end', resolve));
  for (const chunk of chunks) input.write(chunk);
  input.end();
  await ended;
  return { lines, refused };
}

describe('boundedLines', () => {
  it('passes whole lines on, however the chunks cut them', async () => {
    const { lines, refused } = await feed(['{"a":', '1}\n{"b"', ':2}\n{"c":3}\n'], 20);
    expect(lines).toEqual(['{"a":1}\n', '{"b":2}\n', '{"c":3}\n']);
    expect(refused).toEqual([]);
  });

  it('drops a line over the limit, names its size and id, and goes on with the next', async () => {
    const long = `{"method":"tools/call","params":{"arguments":{"goal":"${'x'.repeat(100)}","id":9}},"jsonrpc":"2.0","id":41}`;
    const { lines, refused } = await feed(
      [long.slice(0, 30), long.slice(30, 90), `${long.slice(90)}\n{"ok":1}\n`],
      64,
    );
    expect(refused).toEqual([{ bytes: long.length, id: '41' }]);
    expect(lines).toEqual(['{"ok":1}\n']);
  });

  // Review B: the same message at the limit was refused with `\r\n` and read with `\n`.
  it('does not count the carriage return of a CRLF line end, whichever chunk brings it', async () => {
    const atLimit = `{"id":1,"x":"${'x'.repeat(20 - 15)}"}`;
    expect(atLimit).toHaveLength(20);
    for (const chunks of [[`${atLimit}\r\n`], [atLimit, '\r', '\n'], [`${atLimit}\r`, '\n']]) {
      const { lines, refused } = await feed(chunks, 20);
      expect(refused).toEqual([]);
      expect(lines).toEqual([`${atLimit}\r\n`]);
    }
    // One byte more than the limit is still refused, with or without the `\r`, and its size says so.
    const over = `${atLimit}x`;
    for (const end of ['\n', '\r\n']) {
      const { lines, refused } = await feed([`${over}${end}{"ok":1}\n`], 20);
      expect(refused).toEqual([{ bytes: 21, id: '1' }]);
      expect(lines).toEqual(['{"ok":1}\n']);
    }
  });
});

describe('messageIdFromEdges', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{', '}}', '"a-1"'],
    ['{"method":"tools/call","params":{', '"x"}},"jsonrpc":"2.0","id":7}', '7'],
    // An "id" inside the arguments, last of them, is not the request's.
    ['{"method":"tools/call","params":{', '"id":7}}}', undefined],
    ['{"method":"notifications/x","params":{', '}}', undefined],
  ])('%s … %s → %s', (head, tail, id) => {
    expect(messageIdFromEdges(head, tail)).toBe(id);
  });
});
