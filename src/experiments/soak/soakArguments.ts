/**
 * The command line of `npm run soak` (scripts/soak.ts): `--minutes N` (default 10, fractions
 * allowed) and `--out FILE`. Pure: the executor checks that the file can be written.
 */

/** What `npm run soak` was asked to do. */
export interface SoakArguments {
  /** How long the load runs, minutes (> 0, at most {@link MAX_SOAK_MINUTES}); default 10. */
  readonly minutes: number;
  /** Where the markdown summary is also written; none by default (stdout only). */
  readonly out?: string;
  /** `--help`: print the usage and exit 0. */
  readonly help: boolean;
}

/** The default load duration, minutes: a soak of ten minutes. */
export const DEFAULT_SOAK_MINUTES = 10;

/** The longest load accepted, minutes (a day): a longer one is almost certainly a typo. */
export const MAX_SOAK_MINUTES = 24 * 60;

/** The usage text of `npm run soak`. */
export const SOAK_USAGE =
  'usage: npm run soak -- [--minutes N] [--out FILE]\n' +
  `  --minutes N  how long the load runs, minutes (default ${DEFAULT_SOAK_MINUTES}; 0.5 for a quick check)\n` +
  '  --out FILE   also write the markdown summary to FILE (checked before the run starts)\n';

/** A command line `npm run soak` refuses; its message is one line. */
export class SoakUsageError extends Error {
  readonly code = 'DIFFTRY_SOAK_USAGE';
  override readonly name = 'SoakUsageError';
}

/** Whether `error` is a {@link SoakUsageError}. */
export function isSoakUsageError(error: unknown): error is SoakUsageError {
  return error instanceof Error && (error as { code?: unknown }).code === 'DIFFTRY_SOAK_USAGE';
}

/**
 * Parses the soak's arguments (`process.argv.slice(2)`): `--minutes N`, `--minutes=N`,
 * `--out FILE`, `--out=FILE`, `--help`. Each option at most once.
 * @throws {SoakUsageError} naming the bad argument.
 * @example
 * ```ts
 * parseSoakArguments(['--minutes', '0.5']); // { minutes: 0.5, help: false }
 * ```
 */
export function parseSoakArguments(argv: readonly string[]): SoakArguments {
  let minutes: number | undefined;
  let out: string | undefined;
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = name === arg ? undefined : arg.slice(eq + 1);
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        throw new SoakUsageError(`${name}: expected a value`);
      }
      i++;
      return next;
    };
    switch (name) {
      case '--minutes': {
        if (minutes !== undefined) throw new SoakUsageError('--minutes: given twice');
        minutes = parseMinutes(value());
        break;
      }
      case '--out': {
        if (out !== undefined) throw new SoakUsageError('--out: given twice');
        out = value();
        if (out === '') throw new SoakUsageError('--out: expected a file name, got ""');
        break;
      }
      case '--help':
      case '-h':
        if (inline !== undefined) throw new SoakUsageError(`${name}: takes no value`);
        help = true;
        break;
      default:
        throw new SoakUsageError(`unknown argument ${JSON.stringify(arg)} (try --help)`);
    }
  }
  return { minutes: minutes ?? DEFAULT_SOAK_MINUTES, help, ...(out !== undefined && { out }) };
}

function parseMinutes(text: string): number {
  // Number('') is 0 and Number(' 1 ') is 1: accept only a plain decimal.
  const minutes = /^\d*\.?\d+(e[+-]?\d+)?$/i.test(text) ? Number(text) : Number.NaN;
  if (!(minutes > 0 && minutes <= MAX_SOAK_MINUTES)) {
    throw new SoakUsageError(
      `--minutes: expected a number > 0 and ≤ ${MAX_SOAK_MINUTES}, got ${JSON.stringify(text)}`,
    );
  }
  return minutes;
}
