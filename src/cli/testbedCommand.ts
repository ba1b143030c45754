import type { Command } from 'commander';
import type { CommandOutput } from './CommandOutput.js';
import { registerTestbedFig5Command } from './testbedFig5Command.js';
import { registerTestbedRunCommand } from './testbedRunCommand.js';

/**
 * Registers `difftry testbed run` and `difftry testbed fig5` on the CLI. Each command stops every
 * service, sidecar and socket it started when it ends, when it fails and on Ctrl-C (exit 130);
 * a second Ctrl-C kills the process.
 * @param emit - prints a command's output and keeps its exit code (pass the CLI's own, so
 *   `main()` returns the code); default: writes stdout/stderr and sets `process.exitCode`.
 */
export function registerTestbedCommands(
  program: Command,
  emit: (output: CommandOutput) => void = defaultEmit,
): Command {
  const testbed = program
    .command('testbed')
    .description(
      'run a network live on 127.0.0.1 under open-loop load; measured against predicted',
    );
  registerTestbedRunCommand(testbed, emit);
  registerTestbedFig5Command(testbed, emit);
  return testbed;
}

function defaultEmit(output: CommandOutput): void {
  if (output.stdout !== '') {
    process.stdout.write(output.stdout.endsWith('\n') ? output.stdout : `${output.stdout}\n`);
  }
  if (output.stderr !== undefined) process.stderr.write(`difftry: ${output.stderr}\n`);
  if (output.exitCode !== undefined && output.exitCode !== 0) process.exitCode = output.exitCode;
}
