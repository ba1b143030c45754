/**
 * Output files of long runs, for the commands and the scripts alike: check before the work that
 * every path can be written, and write the files so that none is ever left half-written. A path
 * that cannot be written is an {@link OutputPathError} whose message names the option, the path
 * and what is wrong; the CLI reports it as a usage error (exit 2, one line).
 */
import { constants } from 'node:fs';
import { access, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { OutputPathError } from './OutputPathError.js';

/**
 * Checks, before a long run starts, that a file can be written at `path`: its directory exists
 * and is writable, and the path is not a directory (nor a file that cannot be overwritten). The
 * run's output would otherwise be lost at its very end.
 * @param option the option that named the path, as the message states it: `--csv`.
 * @throws OutputPathError naming the option, the path and what is wrong.
 * @example
 * ```ts
 * await checkOutputPath('out/windows.csv', '--csv'); // throws if out/ does not exist
 * ```
 */
export async function checkOutputPath(path: string, option: string): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) {
    throw new OutputPathError(`${option}: ${path} is a directory; expected a file to write`);
  }
  const directory = dirname(path);
  const parent = await stat(directory).catch(() => undefined);
  if (parent === undefined || !parent.isDirectory()) {
    throw new OutputPathError(`${option}: cannot write ${path}: no such directory ${directory}`);
  }
  const target = existing === undefined ? directory : path;
  try {
    await access(target, constants.W_OK);
  } catch {
    throw new OutputPathError(`${option}: cannot write ${path}: permission denied`);
  }
}

/**
 * Checks, before a long run starts, that a directory can be written at `path` (created with its
 * parents if absent): nothing there but a directory, and the nearest existing ancestor a
 * writable directory.
 * @param option the option that named the path, as the message states it: `--out`.
 * @throws OutputPathError naming the option, the path and what is wrong.
 * @example
 * ```ts
 * await checkOutputDirectory('runs/fig5', '--out'); // throws if runs is a file
 * ```
 */
export async function checkOutputDirectory(path: string, option: string): Promise<void> {
  let at = path;
  for (;;) {
    const existing = await stat(at).catch(() => undefined);
    if (existing !== undefined) {
      if (!existing.isDirectory()) {
        throw new OutputPathError(
          at === path
            ? `${option}: ${path} is a file; expected a directory to write into`
            : `${option}: cannot create ${path}: ${at} is a file`,
        );
      }
      try {
        await access(at, constants.W_OK);
      } catch {
        throw new OutputPathError(
          `${option}: cannot write into ${path}: permission denied on ${at}`,
        );
      }
      return;
    }
    const parent = dirname(at);
    if (parent === at) return;
    at = parent;
  }
}

/**
 * Creates an output directory (with its parents), as an {@link OutputPathError} when it cannot be.
 * @throws OutputPathError naming the option, the path and the system's reason.
 */
export async function makeOutputDirectory(path: string, option: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new OutputPathError(`${option}: cannot create ${path}: ${reason}`, { cause: error });
  }
}

/** One file of a command's output: where, and its whole text. */
export interface OutputFile {
  readonly path: string;
  readonly text: string;
}

/**
 * Writes a command's output files so that none is ever left half-written: each text goes to a
 * temporary file beside its target (`.NAME.PID.tmp`), and only once every one is written whole
 * are they renamed into place (a rename within a directory is atomic). A failure (a full disk, a
 * directory removed meanwhile) removes the temporary files and leaves what was there before.
 * @param option the option that named the path, as the message states it: `--csv`.
 * @throws OutputPathError naming the option, the file and the system's reason.
 * @example
 * ```ts
 * await writeOutputFiles([{ path: 'sweep.csv', text: 'x,y\n1,2\n' }], '--csv');
 * ```
 */
export async function writeOutputFiles(
  files: readonly OutputFile[],
  option: string,
): Promise<void> {
  const temporary = files.map(({ path }) =>
    join(dirname(path), `.${basename(path)}.${process.pid}.tmp`),
  );
  let failed: { path: string; error: unknown } | undefined;
  for (let i = 0; i < files.length && failed === undefined; i++) {
    const file = files[i] as OutputFile;
    await writeFile(temporary[i] as string, file.text).catch((error: unknown) => {
      failed = { path: file.path, error };
    });
  }
  for (let i = 0; i < files.length && failed === undefined; i++) {
    const file = files[i] as OutputFile;
    await rename(temporary[i] as string, file.path).catch((error: unknown) => {
      failed = { path: file.path, error };
    });
  }
  if (failed === undefined) return;
  await Promise.all(temporary.map((path) => rm(path, { force: true }).catch(() => {})));
  const reason = failed.error instanceof Error ? failed.error.message : String(failed.error);
  throw new OutputPathError(`${option}: cannot write ${failed.path}: ${reason}`, {
    cause: failed.error,
  });
}
