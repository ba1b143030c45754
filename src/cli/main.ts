#!/usr/bin/env node
import { exitOnOutputErrors } from './outputErrors.js';
import { main } from './program.js';

exitOnOutputErrors(process);
process.exitCode = await main(process.argv.slice(2));
