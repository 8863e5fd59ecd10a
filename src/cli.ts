#!/usr/bin/env node
import { finishCommand } from './cli/finish.js';
import { runCli } from './cli/main.js';
import { guardStdioStreams } from './cli/stdio.js';
import { offerDetectorPathRedaction } from './core/path-redaction-offer.js';

guardStdioStreams();
// The whole CLI holds the secret detector: its drift checks tell a listed redacted path exactly.
offerDetectorPathRedaction();
finishCommand(runCli(process.argv.slice(2)), process.argv[2] === 'hook');
