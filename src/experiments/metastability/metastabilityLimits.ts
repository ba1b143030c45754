/**
 * What docs/metastability.md compares: uniform retries against DiffTry's limits, on networks of
 * two classes, high and low.
 */

/** Retry limits per class name, at every hop. */
export type RetryLimits = Readonly<Record<string, number>>;

/** Uniform retries, k = (5, 5), and DiffTry's k = (5, 1). */
export const LIMITS = {
  uniform: { label: 'uniform k = (5, 5)', retries: { high: 5, low: 5 } },
  difftry: { label: 'DiffTry k = (5, 1)', retries: { high: 5, low: 1 } },
} as const satisfies Record<string, { label: string; retries: RetryLimits }>;
/** Which limits: `uniform` or `difftry`. */
export type LimitsKey = keyof typeof LIMITS;
/** The keys of {@link LIMITS}, uniform first. */
export const LIMITS_KEYS = Object.keys(LIMITS) as LimitsKey[];

/** The classes of both networks. */
export const CLASSES = ['high', 'low'] as const;
/** `high` or `low`. */
export type ClassName = (typeof CLASSES)[number];
