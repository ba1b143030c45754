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
