#!/usr/bin/env node
import { finishCommand } from './cli/finish.js';
import { runCli } from './cli/main.js';
import { guardStdioStreams } from './cli/stdio.js';

guardStdioStreams();
finishCommand(runCli(process.argv.slice(2)), process.argv[2] === 'hook');
