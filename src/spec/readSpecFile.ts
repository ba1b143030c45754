import { readFile } from 'node:fs/promises';
import { SpecError } from './SpecError.js';

/**
 * Reads a spec file (UTF-8) for a parser, turning a failure into one {@link SpecError} line that
 * names the file and why: `no such file`, `it is a directory`, `permission denied`, or the
 * system's message.
 * @param what the kind of file, as the error states it: `a readable network file`.
 * @throws {SpecError} `DIFFTRY_SPEC_UNREADABLE`.
 */
export async function readSpecFile(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : error instanceof Error
              ? error.message
              : String(error);
    throw SpecError.of(
      {
        code: 'DIFFTRY_SPEC_UNREADABLE',
        file: path,
        expected: what,
        problem: `cannot read the file: ${reason}`,
      },
      { cause: error },
    );
  }
}
