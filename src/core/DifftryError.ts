/** The mark of an error difftry threw on purpose, the same in every copy of the module. */
export const DIFFTRY_ERROR_BRAND: unique symbol = Symbol.for('difftry.error') as never;
const BRAND = DIFFTRY_ERROR_BRAND;

/**
 * The base of every error difftry throws on purpose — a runtime timeout, a bad network file, a
 * mistaken command line — with a stable `code` (`DIFFTRY_TIMEOUT`, `DIFFTRY_SPEC_INVALID`,
 * `DIFFTRY_USAGE`, …) to branch on, and a brand that survives duplicate copies of the module
 * ({@link isDifftryError}).
 * @example
 * ```ts
 * try {
 *   await loadNetworkFile('net.yaml');
 * } catch (error) {
 *   if (isDifftryError(error)) console.error(error.code, error.message);
 *   else throw error;
 * }
 * ```
 */
export class DifftryError extends Error {
  readonly code: string;
  readonly [BRAND] = true;
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = 'DifftryError';
  }

  /**
   * `error instanceof DifftryError` holds for every error difftry threw on purpose (its brand),
   * the argument errors that are also `RangeError`s ({@link InvalidArgumentError}) included; a
   * subclass (`error instanceof SpecError`) checks its prototype chain as usual.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // `this` is the class `instanceof` asks about: DifftryError itself, or a subclass.
    // biome-ignore lint/complexity/noThisInStatic: the class asked about is what decides.
    // biome-ignore lint/complexity/noUselessThisAlias: named for what it is.
    const asked: unknown = this;
    if (asked === DifftryError) return isDifftryError(value);
    return Function.prototype[Symbol.hasInstance].call(asked, value);
  }
}

/** Whether `error` is a {@link DifftryError} (from any copy of difftry). */
export function isDifftryError(error: unknown): error is DifftryError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[BRAND] === true
  );
}
