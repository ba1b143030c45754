import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import type { RandomSource } from '../random.js';
import type { BackoffDescription } from './BackoffDescription.js';

/**
 * The law of one retry delay, in milliseconds: what the model needs to know of a backoff to
 * apply the residual-time correction.
 */
export type DelayLaw =
  | { readonly kind: 'fixed'; readonly ms: number }
  | { readonly kind: 'exponential'; readonly meanMs: number }
  | { readonly kind: 'uniform'; readonly minMs: number; readonly maxMs: number };

/**
 * The absolute ceiling of any delay: 2³¹ − 1 ms (about 24.8 days), the longest `setTimeout`
 * accepts. Exponential growth saturates here instead of overflowing to Infinity or NaN.
 */
export const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * The exponential backoff ceiling for retry `retry` (1-based): min(maxMs, baseMs · factor^(retry−1)),
 * computed in log space so a thousandth retry gives a finite number.
 */
export function exponentialCap(
  baseMs: number,
  factor: number,
  maxMs: number | undefined,
  retry: number,
): number {
  const ceiling = Math.min(maxMs ?? MAX_DELAY_MS, MAX_DELAY_MS);
  // factor ** (retry − 1) is exact for powers of two and overflows to Infinity, never NaN
  // (factor ≥ 1, retry ≥ 1).
  const raw = baseMs * factor ** (retry - 1);
  return Math.min(raw, ceiling);
}

/**
 * The law of the delay before retry number `retry` (1-based).
 *
 * `previousDelayMs` is the delay before the previous retry (for decorrelated jitter); for the
 * first retry pass `baseMs`. Decorrelated jitter makes each delay depend on the last one, so its
 * marginal law is not uniform; the model approximates it by the uniform law given the *expected*
 * previous delay (see {@link expectedPreviousDelayMs}).
 */
export function retryDelayLaw(
  backoff: BackoffDescription,
  retry: number,
  previousDelayMs?: number,
): DelayLaw {
  switch (backoff.kind) {
    case 'constant':
      return { kind: 'fixed', ms: Math.min(backoff.delayMs, MAX_DELAY_MS) };
    case 'random':
      return { kind: 'exponential', meanMs: backoff.meanMs };
    case 'exponential': {
      const factor = backoff.factor ?? 2;
      const jitter = backoff.jitter ?? 'none';
      if (jitter === 'decorrelated') {
        const previous = previousDelayMs ?? expectedPreviousDelayMs(backoff, retry);
        const upper = Math.min(
          backoff.maxMs ?? MAX_DELAY_MS,
          MAX_DELAY_MS,
          Math.max(backoff.baseMs, 3 * previous),
        );
        return { kind: 'uniform', minMs: Math.min(backoff.baseMs, upper), maxMs: upper };
      }
      const cap = exponentialCap(backoff.baseMs, factor, backoff.maxMs, retry);
      if (jitter === 'full') return { kind: 'uniform', minMs: 0, maxMs: cap };
      if (jitter === 'equal') return { kind: 'uniform', minMs: cap / 2, maxMs: cap };
      return { kind: 'fixed', ms: cap };
    }
  }
}

/**
 * Expected delay before retry `retry − 1` under decorrelated jitter, by the mean recursion
 * E[d₁] = base (the seed), E[dᵣ] ≈ min(max, (base + 3 E[dᵣ₋₁]) / 2).
 */
export function expectedPreviousDelayMs(
  backoff: Extract<BackoffDescription, { kind: 'exponential' }>,
  retry: number,
): number {
  const max = Math.min(backoff.maxMs ?? MAX_DELAY_MS, MAX_DELAY_MS);
  let previous = backoff.baseMs;
  for (let r = 1; r < retry && previous < max; r++) {
    previous = Math.min(max, (backoff.baseMs + 3 * previous) / 2);
  }
  return previous;
}

/**
 * Draws the delay before retry `retry` (1-based), milliseconds. Same semantics as
 * {@link retryDelayLaw}, without allocating: the simulator calls it on its hot path.
 * @param previousDelayMs - the delay drawn before the previous retry (decorrelated jitter only);
 *   `baseMs` for the first retry.
 */
export function drawRetryDelay(
  backoff: BackoffDescription,
  retry: number,
  previousDelayMs: number,
  random: RandomSource,
): number {
  switch (backoff.kind) {
    case 'constant':
      return Math.min(backoff.delayMs, MAX_DELAY_MS);
    case 'random':
      return Math.min(-backoff.meanMs * Math.log1p(-random()), MAX_DELAY_MS);
    case 'exponential': {
      const jitter = backoff.jitter ?? 'none';
      if (jitter === 'decorrelated') {
        // The range never falls below baseMs, so a zero previous delay cannot lock it at 0.
        const upper = Math.min(
          backoff.maxMs ?? MAX_DELAY_MS,
          MAX_DELAY_MS,
          Math.max(backoff.baseMs, 3 * previousDelayMs),
        );
        const lower = Math.min(backoff.baseMs, upper);
        return lower + random() * (upper - lower);
      }
      const cap = exponentialCap(backoff.baseMs, backoff.factor ?? 2, backoff.maxMs, retry);
      if (jitter === 'full') return random() * cap;
      if (jitter === 'equal') return cap / 2 + random() * (cap / 2);
      return cap;
    }
  }
}

/**
 * Checks a backoff description's numbers and throws a RangeError naming the bad value.
 */
export function checkBackoff(backoff: BackoffDescription): void {
  // Values above MAX_DELAY_MS are accepted: every draw is capped there.
  const positive = (name: string, value: number | undefined, allowZero = false) => {
    if (value === undefined) return;
    if (!(Number.isFinite(value) && (allowZero ? value >= 0 : value > 0))) {
      throw new InvalidArgumentError(
        `backoff.${name} should be a ${allowZero ? 'non-negative' : 'positive'} finite number of milliseconds, got ${value}`,
      );
    }
  };
  switch (backoff.kind) {
    case 'constant':
      positive('delayMs', backoff.delayMs, true);
      return;
    case 'random':
      positive('meanMs', backoff.meanMs);
      return;
    case 'exponential':
      positive('baseMs', backoff.baseMs);
      positive('maxMs', backoff.maxMs);
      if (
        backoff.factor !== undefined &&
        !(Number.isFinite(backoff.factor) && backoff.factor >= 1)
      ) {
        throw new InvalidArgumentError(
          `backoff.factor should be a finite number ≥ 1, got ${backoff.factor}`,
        );
      }
      if (
        backoff.jitter !== undefined &&
        !['none', 'full', 'equal', 'decorrelated'].includes(backoff.jitter)
      ) {
        throw new InvalidArgumentError(
          `backoff.jitter should be one of none, full, equal, decorrelated, got ${JSON.stringify(backoff.jitter)}`,
        );
      }
      return;
    default:
      throw new InvalidArgumentTypeError(
        `backoff.kind should be one of constant, exponential, random, got ${JSON.stringify((backoff as { kind: unknown }).kind)}`,
      );
  }
}
