// The destructive-command gate as its own bundle (plugin/dist/hook-gate.cjs), which the hooks' front
// (hook-front.ts) loads through V8's code cache for pre-command events only: every other event starts
// without compiling it (it is bigger than the front).
export { stdinMayDestroyWork } from './hooks/pre-command-gate.js';
