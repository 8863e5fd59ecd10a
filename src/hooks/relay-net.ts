import type { RelayTransport } from './relay-exchange.js';

/**
 * The relay's exchange (relay-exchange.ts) over node:net: for the MCP server, and for a hook where this
 * Node's pipe binding is not as relay-pipe.ts expects. `net` is passed in, so that the hooks' entry loads
 * it only then.
 */
export function netTransport(net: typeof import('node:net')): RelayTransport {
  let connection: import('node:net').Socket | undefined;
  return {
    connect(socketPath, on) {
      connection = net.createConnection(socketPath, on.connect);
      connection.on('data', on.data);
      connection.on('end', on.end);
      connection.on('error', (error: NodeJS.ErrnoException) => on.error(error.code ?? error.message));
    },
    write: (text) => connection?.write(text),
    end: () => connection?.end(),
    destroy: () => connection?.destroy(),
  };
}
