import { isOutputPathError } from '../report/OutputPathError.js';
import {
  checkOutputDirectory as checkDirectory,
  checkOutputPath as checkPath,
  makeOutputDirectory as makeDirectory,
  type OutputFile,
  writeOutputFiles as writeFiles,
} from '../report/outputPath.js';
import { UsageError } from './UsageError.js';

export type { OutputFile };

/**
 * The commands' output paths: the checks and the all-or-nothing writes of
 * src/report/outputPath.ts, each path that cannot be written reported as a {@link UsageError}
 * with the same message (exit 2, one line).
 */
async function asUsageError(work: Promise<void>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (isOutputPathError(error)) {
      // The system's reason stays the cause, as when the CLI threw it itself.
      throw new UsageError(
        error.message,
        error.cause === undefined ? undefined : { cause: error.cause },
      );
    }
    throw error;
  }
}

/**
 * Checks, before a long run starts, that a file can be written at `path` (see
 * src/report/outputPath.ts).
 * @param option the option that named the path, as the message states it: `--csv`.
 * @throws UsageError naming the option, the path and what is wrong.
 * @example
 * ```ts
 * await checkOutputPath('out/windows.csv', '--csv'); // throws if out/ does not exist
 * ```
 */
export function checkOutputPath(path: string, option: string): Promise<void> {
  return asUsageError(checkPath(path, option));
}

/**
 * Checks, before a long run starts, that a directory can be written at `path` (created with its
 * parents if absent).
 * @param option the option that named the path, as the message states it: `--out`.
 * @throws UsageError naming the option, the path and what is wrong.
 */
export function checkOutputDirectory(path: string, option: string): Promise<void> {
  return asUsageError(checkDirectory(path, option));
}

/**
 * Creates an output directory (with its parents), as a usage error when it cannot be.
 * @throws UsageError naming the option, the path and the system's reason.
 */
export function makeOutputDirectory(path: string, option: string): Promise<void> {
  return asUsageError(makeDirectory(path, option));
}

/**
 * Writes a command's output files so that none is ever left half-written (see
 * src/report/outputPath.ts).
 * @param option the option that named the path, as the message states it: `--csv`.
 * @throws UsageError naming the option, the file and the system's reason (exit 2, one line).
 * @example
 * ```ts
 * await writeOutputFiles([{ path: 'sweep.csv', text: 'x,y\n1,2\n' }], '--csv');
 * ```
 */
export function writeOutputFiles(files: readonly OutputFile[], option: string): Promise<void> {
  return asUsageError(writeFiles(files, option));
}
