/**
 * How long a client waits after a rejected attempt before it retries: the one description that the
 * network file, the runtime library, the sidecar and the simulator share.
 *
 * All delays are in milliseconds. `retry` below counts retries from 1 (the first retry follows the
 * first rejected attempt).
 *
 * - `constant`: every retry waits `delayMs`.
 * - `exponential`: exponential backoff. Without jitter the r-th retry waits
 *   `min(maxMs, baseMs · factor^(r−1))`. Jitter (AWS architecture blog, "Exponential Backoff And
 *   Jitter"): `full` draws uniformly from [0, cap], `equal` from [cap/2, cap], `decorrelated` from
 *   [baseMs, min(maxMs, 3 · previous delay)].
 * - `random`: an exponentially distributed (memoryless) delay with mean `meanMs`, the same for
 *   every retry; retries then form a Poisson stream, the regime the analytical model describes.
 *
 * @example
 * ```ts
 * const b: BackoffDescription = { kind: 'exponential', baseMs: 50, maxMs: 2000, jitter: 'full' };
 * ```
 */
export type BackoffDescription =
  | { readonly kind: 'constant'; readonly delayMs: number }
  | {
      readonly kind: 'exponential';
      readonly baseMs: number;
      /**
       * Growth factor per retry; default 2.
       * @default 2
       */
      readonly factor?: number;
      /**
       * Largest delay; default unbounded but for the absolute ceiling of every delay, 2³¹ − 1 ms
       * (about 24.8 days, `MAX_DELAY_MS`).
       * @default 2 ** 31 - 1 (`MAX_DELAY_MS`)
       */
      readonly maxMs?: number;
      /**
       * Default `none`.
       * @default 'none'
       */
      readonly jitter?: 'none' | 'full' | 'equal' | 'decorrelated';
    }
  | { readonly kind: 'random'; readonly meanMs: number };

/**
 * The default retry delay: exponentially distributed with a mean of 100 ms, long against the
 * service times of typical microservices, which is the regime the independence assumption of the
 * model describes (docs/design.md, "Files and commands").
 */
export const DEFAULT_BACKOFF: BackoffDescription = Object.freeze({ kind: 'random', meanMs: 100 });
