// The destructive-command gate as its own bundle (plugin/dist/hook-gate.cjs), which the hooks' loader
// (hook-loader.ts) loads through V8's code cache for pre-command events only: every other event starts
// without compiling it (it is half the loader's size).
export { stdinMayDestroyWork } from './hooks/pre-command-gate.js';
