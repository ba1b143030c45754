import { readInputFile } from './readInputFile.js';
import { SpecError } from './SpecError.js';

/**
 * Reads a spec file (UTF-8, at most 64 MiB: `readInputFile`) for a parser, turning a failure
 * into one {@link SpecError} line that names the file and why: `no such file`, `it is a
 * directory`, `permission denied`, `it is larger than 64 MiB`, `it is a character device, not a
 * regular file or a pipe`, or the system's message.
 * @param what the kind of file, as the error states it: `a readable network file`.
 * @throws {SpecError} `DIFFTRY_SPEC_UNREADABLE`.
 */
export async function readSpecFile(path: string, what: string): Promise<string> {
  try {
    return await readInputFile(path);
  } catch (error) {
    throw SpecError.of(
      {
        code: 'DIFFTRY_SPEC_UNREADABLE',
        file: path,
        expected: what,
        problem: `cannot read the file: ${(error as Error).message}`,
      },
      { cause: error },
    );
  }
}
