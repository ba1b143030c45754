import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from './UsageError.js';

/**
 * Checks, before a long run starts, that a file can be written at `path`: its directory exists
 * and is writable, and the path is not a directory (nor a file that cannot be overwritten). The
 * run's output would otherwise be lost at its very end.
 * @param option the option that named the path, as the message states it: `--csv`.
 * @throws UsageError naming the option, the path and what is wrong.
 * @example
 * ```ts
 * await checkOutputPath('out/windows.csv', '--csv'); // throws if out/ does not exist
 * ```
 */
export async function checkOutputPath(path: string, option: string): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) {
    throw new UsageError(`${option}: ${path} is a directory; expected a file to write`);
  }
  const directory = dirname(path);
  const parent = await stat(directory).catch(() => undefined);
  if (parent === undefined || !parent.isDirectory()) {
    throw new UsageError(`${option}: cannot write ${path}: no such directory ${directory}`);
  }
  const target = existing === undefined ? directory : path;
  try {
    await access(target, constants.W_OK);
  } catch {
    throw new UsageError(`${option}: cannot write ${path}: permission denied`);
  }
}

/**
 * Checks, before a long run starts, that a directory can be written at `path` (created with its
 * parents if absent): nothing there but a directory, and the nearest existing ancestor a
 * writable directory.
 * @param option the option that named the path, as the message states it: `--out`.
 * @throws UsageError naming the option, the path and what is wrong.
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
        throw new UsageError(
          at === path
            ? `${option}: ${path} is a file; expected a directory to write into`
            : `${option}: cannot create ${path}: ${at} is a file`,
        );
      }
      try {
        await access(at, constants.W_OK);
      } catch {
        throw new UsageError(`${option}: cannot write into ${path}: permission denied on ${at}`);
      }
      return;
    }
    const parent = dirname(at);
    if (parent === at) return;
    at = parent;
  }
}
