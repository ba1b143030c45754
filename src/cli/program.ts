import { Command, CommanderError } from 'commander';
import { isSpecError } from '../config/SpecError.js';
import { oneLine } from '../core/printable.js';
import { isTraceFileError } from '../traces/TraceFileError.js';
import { registerAnalyzeCommand } from './analyzeCommand.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import { registerDemoCommand } from './demoCommand.js';
import { EXIT_BAD_INPUT, EXIT_INTERNAL } from './exitCodes.js';
import { registerFromTracesCommand } from './fromTracesCommand.js';
import { registerGenerateCommand } from './generateCommand.js';
import { registerMergeCommand } from './mergeCommand.js';
import { registerMeshCommand } from './meshCommand.js';
import { packageVersion } from './packageVersion.js';
import { registerProxyCommand } from './proxyCommand.js';
import { registerSimulateCommand } from './simulateCommand.js';
import { registerTestbedCommands } from './testbedCommand.js';
import { registerTimeoutsCommands } from './timeoutsCommand.js';
import { registerTuneCommand } from './tuneCommand.js';
import { isUsageError } from './UsageError.js';
import { registerUiCommand } from './uiCommand.js';
import { registerVerifyUniquenessCommand } from './verifyUniquenessCommand.js';
import { registerXdsCommand } from './xdsCommand.js';

/** Exit code for bad input of every kind: a bad file, option or argument. */
export { EXIT_BAD_INPUT } from './exitCodes.js';

/**
 * Every command, in the order `difftry --help` lists them. Each file registers its own command
 * the same way: its flags (parsed and checked by commander), then a call to the command's
 * function, whose output goes to `emit`.
 */
const COMMANDS: readonly ((program: Command, emit: Emit) => void)[] = [
  registerAnalyzeCommand,
  registerSimulateCommand,
  registerDemoCommand,
  registerGenerateCommand,
  registerFromTracesCommand,
  registerTuneCommand,
  registerVerifyUniquenessCommand,
  registerMergeCommand,
  registerTimeoutsCommands,
  registerProxyCommand,
  registerMeshCommand,
  registerXdsCommand,
  registerTestbedCommands,
  registerUiCommand,
];

function program(): Command {
  const cli = new Command('difftry')
    .description('Differential retries (DiffTry): analyse and simulate priority-aware retries')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .showHelpAfterError(false)
    .exitOverride();
  cli.configureOutput({
    writeErr: (text) => process.stderr.write(text),
    outputError: (text, write) =>
      write(`difftry: ${oneLine(text.replace(/^error: /, '').trim())}\n`),
  });
  for (const register of COMMANDS) register(cli, emit);
  return cli;
}

/** Prints a command's output; a non-zero exit code is kept for `main` to return. */
function emit(output: CommandOutput): void {
  write(output.stdout);
  if (output.stderr !== undefined) process.stderr.write(`difftry: ${output.stderr}\n`);
  if (output.exitCode !== undefined && output.exitCode !== 0) pendingExitCode = output.exitCode;
}

let pendingExitCode = 0;

function write(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * Runs the CLI with `argv` (without the node and script paths) and returns the exit code (see
 * `exitCodes.ts`): 0 on success, 1 for a negative answer, 2 on bad input (one line on stderr,
 * nothing on stdout), 70 on an internal error.
 */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    pendingExitCode = 0;
    await program().parseAsync([...argv], { from: 'user' });
    return pendingExitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
    }
    if (
      isSpecError(error) ||
      isUsageError(error) ||
      isTraceFileError(error) ||
      error instanceof RangeError
    ) {
      // One line, whatever a name inside the message holds (a file name, a service name).
      process.stderr.write(`difftry: ${oneLine(error.message)}\n`);
      return EXIT_BAD_INPUT;
    }
    process.stderr.write(
      `difftry: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT_INTERNAL;
  }
}
