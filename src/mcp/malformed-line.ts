import { ProtocolErrorCode, parseJSONRPCMessage } from '@modelcontextprotocol/server';

/** The JSON-RPC error that answers a line the server cannot read, and what to tell people about it. */
export interface MalformedLine {
  /** The error response, one line, as JSON-RPC 2.0 says: -32700 with a null id, or -32600. */
  answer: string;
  /** What was wrong, for stderr: never the line itself, which may hold anything. */
  reason: string;
}

/**
 * The answer to a line from the client that is not a JSON-RPC message, or null for one the SDK reads.
 * The SDK's stdio reader drops a line that is not JSON without a word, and reports one that is not JSON-RPC
 * only to `onerror`: either way the client waited for an answer that never came (bad-input trial).
 * It is checked with the SDK's own parser, so that exactly what the SDK would drop is answered here.
 */
export function answerMalformedLine(line: string): MalformedLine | null {
  // A blank line is no message: the SDK skips it, and a client that sends one expects no answer.
  if (line.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return {
      answer: errorLine(null, ProtocolErrorCode.ParseError, 'Parse error', 'the line is not JSON'),
      reason: `is not JSON: answered with a parse error (${ProtocolErrorCode.ParseError})`,
    };
  }
  try {
    parseJSONRPCMessage(value);
    return null;
  } catch {
    // Only a request gets an answer (review): a notification never does (JSON-RPC 2.0), a response is one
    // to the server's own request (its id is the server's count, and an error with it would reach the
    // client as the answer to its own request of that number), and a batch's answers would be an array.
    const kind = messageKind(value);
    if (kind === 'batch') return answerBatch(value as unknown[]);
    if (kind !== 'request')
      return {
        answer: '',
        reason: `is JSON but not a JSON-RPC message (${kind}): not answered`,
      };
    return {
      answer: errorLine(
        idOf(value),
        ProtocolErrorCode.InvalidRequest,
        'Invalid Request',
        'the line is JSON but not a JSON-RPC 2.0 message: an object with "jsonrpc": "2.0" and a "method" (a request, with an "id", or a notification), or a response to one of the server\'s requests',
      ),
      reason: `is JSON but not a JSON-RPC message: answered with an invalid request error (${ProtocolErrorCode.InvalidRequest})`,
    };
  }
}

/** The request's id when it has one JSON-RPC allows (a string or a number), else null, as the spec says. */
function idOf(value: unknown): string | number | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

function errorLine(id: string | number | null, code: number, message: string, data: string): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, data } })}\n`;
}

/**
 * What a JSON value that is no valid JSON-RPC message was meant to be: a response (it has `result` or
 * `error`), a notification (a `method` and no `id`), a batch (an array), else a request, answered as an
 * invalid one (a value that is not even an object is one too, as JSON-RPC 2.0's examples answer it).
 */
function messageKind(value: unknown): 'request' | 'response' | 'notification' | 'batch' {
  if (Array.isArray(value)) return 'batch';
  if (typeof value !== 'object' || value === null) return 'request';
  const message = value as Record<string, unknown>;
  // A method first: a request with a stray `result` is still a request, and gets its answer (review).
  if (typeof message.method === 'string') return 'id' in message ? 'request' : 'notification';
  if ('result' in message || 'error' in message) return 'response';
  return 'request';
}

/**
 * A batch, which this server does not take (MCP dropped batches after 2025-03-26): as JSON-RPC 2.0 answers
 * a batch, an invalid-request error for each request in it, in an array; nothing for one of only
 * notifications and responses; one error for an empty array (review: a batch went unanswered, and its
 * client waited for ever).
 */
function answerBatch(batch: readonly unknown[]): MalformedLine {
  const why = 'batches are not taken here: send each message on a line of its own';
  if (batch.length === 0)
    return {
      answer: errorLine(null, ProtocolErrorCode.InvalidRequest, 'Invalid Request', why),
      reason: 'is an empty batch: answered with an invalid request error',
    };
  const requests = batch.filter((item) => messageKind(item) === 'request');
  if (requests.length === 0)
    return { answer: '', reason: 'is a batch of notifications and responses: not answered' };
  const errors = requests.map((item) => ({
    jsonrpc: '2.0',
    id: idOf(item),
    error: { code: ProtocolErrorCode.InvalidRequest, message: 'Invalid Request', data: why },
  }));
  return {
    answer: `${JSON.stringify(errors)}\n`,
    reason: `is a batch of ${batch.length}: answered with an invalid request error for each of its ${requests.length} request(s)`,
  };
}
