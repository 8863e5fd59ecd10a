// Temporary: profile the server answering save and load calls in the S benchmark repository.
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const root = path.resolve('.cache/bench/repo-S');
const client = new Client({ name: 'p', version: '1' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--cpu-prof', '--cpu-prof-dir', '/tmp/srvprof', path.resolve('dist/index.js')], cwd: root, stderr: 'ignore' }));
const args = { goal: 'Benchmark', tasks: [{ description: 'measure', status: 'in_progress' }] };
await client.callTool({ name: 'save_session_checkpoint', arguments: args });
const t0 = performance.now();
for (let i = 0; i < 40; i++) await client.callTool({ name: process.argv[2] ?? 'load_session_checkpoint', arguments: process.argv[2] === 'save_session_checkpoint' ? args : {} });
console.log('avg ms', ((performance.now() - t0) / 40).toFixed(1));
await client.close();
