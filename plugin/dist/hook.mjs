import { createRequire } from 'node:module';
createRequire(import.meta.url)('./hook.cjs');
