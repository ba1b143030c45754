import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import { checkAttempt, checkObservation, checkOption, checkOptionsObject } from './checkOption.js';
import type { InspectableTimeouts } from './InspectableTimeouts.js';
import type { TimeoutObservation } from './TimeoutStrategy.js';

/** Options of {@link exponentialBackoffTimeouts}. Give at most one of `startMs`, `startingLatencyMs`. */
export interface ExponentialBackoffTimeoutsOptions {
  /** The first timeout itself, ms (no headroom applied). */
  readonly startMs?: number;
  /** The starting latency L0, ms: the first timeout is `headroom · L0`. */
  readonly startingLatencyMs?: number;
  /**
   * Growth from one element to the next; default 2.
   * @default 2
   */
  readonly factor?: number;
  /**
   * Elements of the sequence, the last repeating; default 5.
   * @default 5
   */
  readonly elements?: number;
  /**
   * The first timeout over the starting latency; default 1.2 (20 % above).
   * @default 1.2
   */
  readonly headroom?: number;
  /**
   * With neither start given: successful latencies whose median becomes L0; default 20. Until
   * then the sequence starts at `initialMs`.
   * @default 20
   */
  readonly learnFrom?: number;
  /**
   * The first timeout while L0 is being learnt, ms; default 1000 (RFC 6298's initial RTO).
   * @default 1000
   */
  readonly initialMs?: number;
}

/** What {@link exponentialBackoffTimeouts} has learnt. */
export interface ExponentialBackoffState {
  /** L0 (ms): given, or learnt; undefined while learning. */
  readonly startingLatencyMs: number | undefined;
  /** The first timeout in use, ms. */
  readonly startMs: number;
  /** Successful latencies collected towards L0 (0 once it is known). */
  readonly collected: number;
}

/**
 * The baseline of the timeout evaluation (docs/design.md, "Adaptive sequential timeouts"): a fixed
 * exponential sequence t_i = headroom · L0 · factor^i for i < elements, the last repeating; with the
 * defaults t = 1.2 L0 · (1, 2, 4, 8, 16). `startMs` gives t_0 directly instead.
 *
 * Without either start, L0 is learnt once: the median of the first `learnFrom` (20) successful
 * latencies, of any attempt. Until then t_0 = `initialMs` (1000 ms). Timeouts and failures are not
 * collected: a timeout only bounds the latency from below, a failure's latency is another path's
 * (a fast 503). The median of successes under a short initial timeout is biased low, which is the
 * baseline's documented weakness, not corrected here.
 * @see docs/design.md, "Adaptive sequential timeouts": first = 1.2 × starting latency, factor 2, 5 elements
 * @example
 * ```ts
 * const timeout = exponentialBackoffTimeouts({ startingLatencyMs: 40 }); // 48, 96, 192, 384, 768 ms
 * await retry(call, { policy, timeout });
 * ```
 */
export function exponentialBackoffTimeouts(
  options: Readonly<ExponentialBackoffTimeoutsOptions> = {},
): InspectableTimeouts<ExponentialBackoffState> {
  checkOptionsObject('exponentialBackoffTimeouts', options);
  if (options.startMs !== undefined && options.startingLatencyMs !== undefined) {
    throw new InvalidArgumentTypeError(
      `give startMs or startingLatencyMs, not both (got ${options.startMs} and ${options.startingLatencyMs})`,
    );
  }
  const positive = { min: 0, max: Number.POSITIVE_INFINITY, minOpen: true };
  const factor = checkOption('factor', options.factor ?? 2, { min: 1, max: 1000 });
  const elements = checkOption('elements', options.elements ?? 5, {
    min: 1,
    max: 64,
    integer: true,
  });
  const headroom = checkOption('headroom', options.headroom ?? 1.2, positive);
  const learnFrom = checkOption('learnFrom', options.learnFrom ?? 20, {
    min: 1,
    max: 100_000,
    integer: true,
  });
  const initialMs = checkOption('initialMs', options.initialMs ?? 1000, positive);
  let startingLatencyMs =
    options.startingLatencyMs === undefined
      ? undefined
      : checkOption('startingLatencyMs', options.startingLatencyMs, positive);
  const givenStartMs =
    options.startMs === undefined ? undefined : checkOption('startMs', options.startMs, positive);
  const collected: number[] = [];
  let sequence = geometric(
    givenStartMs ?? (startingLatencyMs === undefined ? initialMs : headroom * startingLatencyMs),
  );

  function geometric(startMs: number): number[] {
    // Capped at the largest double so that an absurd start cannot overflow to Infinity.
    return Array.from({ length: elements }, (_, i) =>
      Math.min(Number.MAX_VALUE, startMs * factor ** i),
    );
  }

  return {
    next(attempt) {
      checkAttempt(attempt);
      return sequence[Math.min(attempt, elements - 1)] as number;
    },
    observe(outcome: TimeoutObservation, latencyMs: number) {
      const latency = checkObservation(outcome, latencyMs);
      if (outcome !== 'success' || givenStartMs !== undefined || startingLatencyMs !== undefined) {
        return;
      }
      collected.push(latency);
      if (collected.length < learnFrom) return;
      // Latencies of 0 (a coarse or fake clock) would give zero timeouts: L0 is floored at 1 µs.
      startingLatencyMs = Math.max(median(collected), MIN_LATENCY_MS);
      collected.length = 0;
      sequence = geometric(startingLatencyMs * headroom);
    },
    sequence: () => sequence.slice(),
    state: () => ({
      startingLatencyMs,
      startMs: sequence[0] as number,
      collected: collected.length,
    }),
  };
}

/** The smallest L0 learnt, ms (1 µs): keeps every timeout positive. */
const MIN_LATENCY_MS = 0.001;

/** The median (the mean of the two middle values for an even count). */
function median(values: readonly number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
