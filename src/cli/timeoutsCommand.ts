import type { Command } from 'commander';
import type { Emit } from './CommandOutput.js';
import { registerTimeoutsEvalCommand } from './timeoutsEvalCommand.js';
import { registerTimeoutsFitCommand } from './timeoutsFitCommand.js';

/** Registers `difftry timeouts` and its commands, `eval` and `fit`, on the CLI. */
export function registerTimeoutsCommands(program: Command, emit: Emit): void {
  const timeouts = program.command('timeouts').description('adaptive sequential timeouts');
  registerTimeoutsEvalCommand(timeouts, emit);
  registerTimeoutsFitCommand(timeouts, emit);
}
