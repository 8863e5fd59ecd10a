import { PassThrough, type Readable, type Writable } from 'node:stream';
import { answerMalformedLine } from './malformed-line.js';

/**
 * The most one message from the client may take on stdin (docs/tools.md). The SDK's own reader stops the
 * transport for good past its 10 MB default, without an answer or a word on stderr: the client waited
 * forever and no tool answered again (input audit, 2026-12-07). Here a larger one is answered with an error
 * and the server goes on; anything below reaches the tools, whose schemas name the field and its limit.
 */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** How much of an over-long line's start and end is kept: enough to find its id. */
const EDGE_BYTES = 512;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** A JSON-RPC id, as JSON: a number or a short string. */
const ID = String.raw`(-?\d{1,20}|"(?:[^"\\]|\\.){0,200}")`;
/** The id as the first members name it (`{"jsonrpc":"2.0","id":…`), as Python's SDK writes requests. */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`);
/** The id as the last member of the top-level object (`…,"id":7}`), as the TypeScript SDK writes them. */
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);

export interface OverLongMessage {
  bytes: number;
  /** The request's id, as JSON, when its start or end names it; `undefined` for a notification or no id found. */
  id: string | undefined;
}

/** The id of a message from its first and last bytes, when either names it at the top level. */
export function messageIdFromEdges(head: string, tail: string): string | undefined {
  return ID_AT_START.exec(head)?.[1] ?? ID_AT_END.exec(tail)?.[1];
}

/** The JSON-RPC error that answers an over-long request: what it was, the limit, and that nothing was read. */
export function overLongAnswer(message: OverLongMessage, maxBytes = MAX_MESSAGE_BYTES): string {
  const error = {
    code: -32600,
    message: `the request is ${message.bytes} bytes, over the server's limit of ${maxBytes} bytes (16 MB) for one message: it was not read and nothing was saved. Every field's own limit is far smaller (goal: 500 characters, summary: 4000; see docs/tools.md)`,
  };
  return `{"jsonrpc":"2.0","id":${message.id},"error":${JSON.stringify(error)}}\n`;
}

/**
 * `input` as whole lines, each at most `maxBytes` (its line end aside, `\n` or `\r\n`): a longer one is dropped as it streams
 * in (never held whole), and `onOverLong` told its size and id. A line `acceptLine` refuses (given without
 * its line end) is dropped too. What the SDK's stdio transport reads.
 */
export function boundedLines(
  input: Readable,
  onOverLong: (message: OverLongMessage) => void,
  maxBytes = MAX_MESSAGE_BYTES,
  acceptLine: (line: Buffer) => boolean = () => true,
): Readable {
  const output = new PassThrough();
  let parts: Buffer[] = [];
  let size = 0;
  // Set once the current line passed maxBytes: its start, and its last bytes so far.
  let head: Buffer | null = null;
  let tail = Buffer.alloc(0);
  let lastByte = -1;

  const keepEdges = (whole: Buffer) => {
    head = whole.subarray(0, EDGE_BYTES);
    tail = Buffer.from(whole.subarray(Math.max(0, whole.length - EDGE_BYTES)));
    parts = [];
  };

  // One byte more than maxBytes is held: a `\r` before the newline is the line's end, not its message
  // (review B: a 16 MB message sent with `\r\n` was refused, the same with `\n` read).
  const add = (bytes: Buffer) => {
    size += bytes.length;
    if (bytes.length > 0) lastByte = bytes[bytes.length - 1] as number;
    if (head === null && size <= maxBytes + 1) {
      parts.push(bytes);
      return;
    }
    if (head === null) {
      keepEdges(Buffer.concat([...parts, bytes]));
      return;
    }
    tail = Buffer.concat([tail, bytes]);
    if (tail.length > EDGE_BYTES) tail = Buffer.from(tail.subarray(tail.length - EDGE_BYTES));
  };

  const endLine = () => {
    const bytes = size - (lastByte === CARRIAGE_RETURN ? 1 : 0);
    if (head === null && bytes > maxBytes) keepEdges(Buffer.concat(parts));
    if (head === null) {
      const line = Buffer.concat(parts);
      if (acceptLine(line)) output.write(Buffer.concat([line, Buffer.from([NEWLINE])]));
    } else {
      onOverLong({ bytes, id: messageIdFromEdges(head.toString('utf8'), tail.toString('utf8')) });
    }
    parts = [];
    size = 0;
    head = null;
    tail = Buffer.alloc(0);
    lastByte = -1;
  };

  input.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      add(chunk.subarray(start, end));
      endLine();
      start = end + 1;
    }
    if (start < chunk.length) add(chunk.subarray(start));
  });
  input.on('end', () => output.end());
  input.on('error', (error) => output.destroy(error));
  return output;
}

/**
 * The server's stdin for the SDK's transport: whole lines up to MAX_MESSAGE_BYTES; a longer request is
 * answered on `stdout` with an error naming its size and the limit, and a line that is not a JSON-RPC
 * message with a parse error or an invalid request error (see malformed-line), each said on stderr
 * through `log`. The lines after are read as usual.
 */
export function guardedStdin(input: Readable, stdout: Writable, log: (message: string) => void): Readable {
  return boundedLines(
    input,
    (message) => {
      log(
        `a message of ${message.bytes} bytes from the client is over the ${MAX_MESSAGE_BYTES}-byte limit: not read${message.id === undefined ? ' (no id found to answer)' : ', answered with an error'}`,
      );
      if (message.id !== undefined) stdout.write(overLongAnswer(message));
    },
    MAX_MESSAGE_BYTES,
    (line) => {
      const malformed = answerMalformedLine(line.toString('utf8'));
      if (malformed === null) return true;
      log(`a line of ${line.length} bytes from the client ${malformed.reason}`);
      if (malformed.answer !== '') stdout.write(malformed.answer);
      return false;
    },
  );
}
