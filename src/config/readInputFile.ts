import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/** The largest input file difftry reads (network files, sidecar configs, schedules, latencies). */
export const MAX_INPUT_FILE_BYTES = 64 * 1024 * 1024;

/** Why an input file could not be read: one phrase, for a message that names the file. */
export class InputFileProblem extends Error {
  /** `ENOENT`, `EISDIR`, `EACCES`, `E2BIG` (over the cap), `ENOTREG` (a device or socket), …. */
  readonly code: string;
  constructor(code: string, reason: string, options?: ErrorOptions) {
    super(reason, options);
    this.code = code;
    this.name = 'InputFileProblem';
  }
}

/** Options of {@link readInputFile}. */
export interface ReadInputFileOptions {
  /**
   * The most bytes read; a larger file is refused, naming the cap.
   * @default MAX_INPUT_FILE_BYTES (64 MiB)
   */
  readonly maxBytes?: number;
}

const CHUNK_BYTES = 1024 * 1024;

/**
 * Reads a user's input file as UTF-8 text, bounded: a regular file larger than `maxBytes` is
 * refused before anything is read, a pipe (`<(…)`, `/dev/stdin` fed by a pipe) is read until it
 * ends or passes the cap, and a file that is neither — a character or block device such as
 * `/dev/zero` or a terminal, a socket — is refused at once, since it may never end.
 * @throws {InputFileProblem} with one phrase saying why (`no such file`, `it is a directory`,
 *   `permission denied`, `it is larger than 64 MiB`, `it is a character device, not a regular
 *   file or a pipe`, or the system's message).
 * @example
 * ```ts
 * const text = await readInputFile('net.yaml');
 * ```
 */
export async function readInputFile(
  path: string,
  options: Readonly<ReadInputFileOptions> = {},
): Promise<string> {
  const maxBytes = options.maxBytes ?? MAX_INPUT_FILE_BYTES;
  try {
    const handle = await open(path, 'r');
    try {
      // Judged on what was opened, so the path cannot change in between.
      refuseKind(await handle.stat(), maxBytes);
      const chunks: Buffer[] = [];
      let size = 0;
      for (;;) {
        const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - size));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        size += bytesRead;
        if (size > maxBytes) throw tooLarge(maxBytes);
        chunks.push(chunk.subarray(0, bytesRead));
      }
      return Buffer.concat(chunks, size).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof InputFileProblem) throw error;
    throw systemProblem(error);
  }
}

function refuseKind(info: Stats, maxBytes: number): void {
  if (info.isDirectory()) throw new InputFileProblem('EISDIR', 'it is a directory');
  if (info.isFile()) {
    if (Number(info.size) > maxBytes) throw tooLarge(maxBytes, Number(info.size));
    return;
  }
  if (info.isFIFO()) return;
  const kind = info.isCharacterDevice()
    ? 'a character device'
    : info.isBlockDevice()
      ? 'a block device'
      : info.isSocket()
        ? 'a socket'
        : 'not a file';
  throw new InputFileProblem('ENOTREG', `it is ${kind}, not a regular file or a pipe`);
}

function tooLarge(maxBytes: number, size?: number): InputFileProblem {
  const cap = formatBytes(maxBytes);
  return new InputFileProblem(
    'E2BIG',
    size === undefined
      ? `it is larger than ${cap}, the most difftry reads`
      : `it is ${formatBytes(size)}, larger than ${cap}, the most difftry reads`,
  );
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (mib < 1) return `${bytes} bytes`;
  return Number.isInteger(mib) ? `${mib} MiB` : `${mib.toFixed(1)} MiB`;
}

function systemProblem(error: unknown): InputFileProblem {
  const code = String((error as { code?: unknown } | null)?.code ?? 'EIO');
  const reason =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EISDIR'
        ? 'it is a directory'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'ENXIO' // what open() says of a Unix socket
            ? 'it is a socket, not a regular file or a pipe'
            : error instanceof Error
              ? error.message
              : String(error);
  return new InputFileProblem(code, reason, { cause: error });
}
