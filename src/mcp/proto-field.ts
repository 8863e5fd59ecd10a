import type { JSONRPCMessage, McpServer } from '@modelcontextprotocol/server';
import { PROTO_FIELD_STAND_IN } from '../core/input.js';

/**
 * Makes a tool call's `__proto__` argument reach the tool's schema, which refuses it like any other
 * unknown field. The SDK's parsing of the request drops that one key (zod strips it from records, so that
 * it can never become a prototype), which left it accepted and lost without a word (issue 26); it travels
 * under PROTO_FIELD_STAND_IN instead, a name the strict schemas refuse and name back as `__proto__`.
 */
export function keepProtoFields(server: McpServer): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    // Set now, before the transport delivers anything: a message arrives in a later turn of the event loop.
    const deliver = transport.onmessage;
    if (deliver) transport.onmessage = (message, extra) => deliver(withProtoFieldRenamed(message), extra);
  };
}

function withProtoFieldRenamed(message: JSONRPCMessage): JSONRPCMessage {
  if (!('method' in message) || message.method !== 'tools/call') return message;
  const params = message.params as { arguments?: unknown } | undefined;
  const args = params?.arguments;
  if (typeof args !== 'object' || args === null || !Object.hasOwn(args, '__proto__')) return message;
  // fromEntries defines own properties: "__proto__" is never set as a prototype on the way.
  const renamed = Object.fromEntries(
    Object.entries(args).map(([name, value]) => [name === '__proto__' ? PROTO_FIELD_STAND_IN : name, value]),
  );
  return { ...message, params: { ...params, arguments: renamed } } as JSONRPCMessage;
}
