import { checkAttempt, checkObservation, checkOption, checkOptionsObject } from './checkOption.js';
import { geometricSequence, type InspectableTimeouts } from './InspectableTimeouts.js';
import type { TimeoutObservation } from './TimeoutStrategy.js';

/** Options of {@link rtoTimeouts}; times in ms. */
export interface RtoTimeoutsOptions {
  /**
   * RTO before the first sample; default 1000 (RFC 6298 (2.1)), or `maxMs` if that is smaller.
   * @default 1000 (or `maxMs`, if smaller)
   */
  readonly initialMs?: number;
  /**
   * Floor of every computed RTO; default 0. RFC 6298 (2.4) rounds up to 1 s, a floor set for
   * TCP's coarse timers that would swamp service latencies of a few ms: pass 1000 for the RFC's
   * behaviour.
   * @default 0
   */
  readonly minMs?: number;
  /**
   * Ceiling of every timeout, backed off or not; default 60,000 (RFC 6298 (2.5)).
   * @default 60_000
   */
  readonly maxMs?: number;
  /**
   * K, the weight of the variation; default 4.
   * @default 4
   */
  readonly k?: number;
  /**
   * α, the gain of SRTT; default 1/8.
   * @default 1 / 8
   */
  readonly alpha?: number;
  /**
   * β, the gain of RTTVAR; default 1/4.
   * @default 1 / 4
   */
  readonly beta?: number;
  /**
   * G, the clock granularity, ms (> 0); default 1.
   * @default 1
   */
  readonly clockGranularityMs?: number;
}

/** What {@link rtoTimeouts} has learnt; times in ms. */
export interface RtoState {
  /** Smoothed round-trip time; undefined before the first sample. */
  readonly srttMs: number | undefined;
  /** Round-trip time variation; undefined before the first sample. */
  readonly rttvarMs: number | undefined;
  /** The RTO, before back-off. */
  readonly rtoMs: number;
  /** Doublings kept from earlier timeouts until a valid sample (Karn). */
  readonly backoff: number;
  /** RTT samples taken (successes of first attempts). */
  readonly samples: number;
}

/**
 * TCP's retransmission timer (RFC 6298) as a per-try timeout, with Karn's algorithm.
 *
 * - First sample R: SRTT ← R, RTTVAR ← R/2 (2.2).
 * - Later samples R': RTTVAR ← (1 − β)·RTTVAR + β·|SRTT − R'|, then SRTT ← (1 − α)·SRTT + α·R'
 *   (2.3, RTTVAR first, with the old SRTT).
 * - RTO ← SRTT + max(G, K·RTTVAR), clamped to [minMs, maxMs] (2.2–2.5); `initialMs` before any
 *   sample (2.1).
 * - Back-off (5.5): retry i of a request waits RTO·2^i (capped at maxMs). An expiry also keeps
 *   the doubled timer for the requests after it, as TCP keeps the backed-off RTO for the next
 *   segment: `next(i)` is RTO·2^max(i, b), where b is one more than the exponent of the last
 *   expired timer, cleared by the next valid sample.
 * - Karn's rule: only a success of attempt 0 is a sample; the latency of a retry is ambiguous in
 *   TCP (which transmission was acknowledged?) and here biased (a retry follows a slow draw). The
 *   attempt an observation belongs to is the one of the last `next(attempt)`, which is how
 *   `retry()` calls a strategy: `next` before each attempt, `observe` after it. Interleaved
 *   requests sharing one strategy blur this, as they do TCP's single timer.
 * - Timeouts (censored) and failures (another path's latency) are never samples.
 *
 * Defaults are the RFC's, but `minMs` (0, see there). Since G > 0, RTO > 0 always.
 * @see RFC 6298, "Computing TCP's Retransmission Timer", §2 and §5
 * @see Karn and Partridge, "Improving Round-Trip Time Estimates in Reliable Transport
 *   Protocols", SIGCOMM 1987
 * @example
 * ```ts
 * const timeout = rtoTimeouts({ initialMs: 500, maxMs: 10_000 });
 * await retry(call, { policy, timeout });
 * ```
 */
export function rtoTimeouts(
  options: Readonly<RtoTimeoutsOptions> = {},
): InspectableTimeouts<RtoState> {
  checkOptionsObject('rtoTimeouts', options);
  const positive = { min: 0, max: Number.POSITIVE_INFINITY, minOpen: true };
  const minMs = checkOption('minMs', options.minMs ?? 0, {
    min: 0,
    max: Number.POSITIVE_INFINITY,
  });
  // A zero floor still leaves every timeout positive: the ceiling and the start must be.
  const maxMs = checkOption('maxMs', options.maxMs ?? 60_000, {
    min: minMs,
    minOpen: minMs === 0,
    max: Number.POSITIVE_INFINITY,
  });
  const initialMs = checkOption('initialMs', options.initialMs ?? Math.min(1000, maxMs), {
    min: minMs,
    minOpen: minMs === 0,
    max: maxMs,
  });
  const k = checkOption('k', options.k ?? 4, { min: 0, max: 1000 });
  const alpha = checkOption('alpha', options.alpha ?? 1 / 8, { min: 0, max: 1, minOpen: true });
  const beta = checkOption('beta', options.beta ?? 1 / 4, { min: 0, max: 1, minOpen: true });
  const granularityMs = checkOption(
    'clockGranularityMs',
    options.clockGranularityMs ?? 1,
    positive,
  );
  let srttMs: number | undefined;
  let rttvarMs: number | undefined;
  let rtoMs = initialMs;
  let backoff = 0;
  let samples = 0;
  // The attempt and the exponent of the timer handed out last: the attempt the next observation
  // is about (Karn) and the timer that expired when it is a timeout.
  let lastAttempt = 0;
  let lastExponent = 0;

  const exponentOf = (attempt: number) => Math.max(attempt, backoff);
  const timeoutOf = (attempt: number) => Math.min(maxMs, rtoMs * 2 ** exponentOf(attempt));

  return {
    next(attempt) {
      checkAttempt(attempt);
      lastAttempt = attempt;
      lastExponent = exponentOf(attempt);
      return timeoutOf(attempt);
    },
    observe(outcome: TimeoutObservation, latencyMs: number) {
      const rttMs = checkObservation(outcome, latencyMs);
      if (outcome === 'timeout') {
        // Stop doubling once the timer is at the ceiling: the exponent stays small.
        if (rtoMs * 2 ** lastExponent < maxMs) backoff = Math.max(backoff, lastExponent + 1);
        return;
      }
      if (outcome !== 'success' || lastAttempt > 0) return;
      if (srttMs === undefined || rttvarMs === undefined) {
        srttMs = rttMs;
        rttvarMs = rttMs / 2;
      } else {
        rttvarMs = (1 - beta) * rttvarMs + beta * Math.abs(srttMs - rttMs);
        srttMs = (1 - alpha) * srttMs + alpha * rttMs;
      }
      samples++;
      backoff = 0;
      rtoMs = Math.min(maxMs, Math.max(minMs, srttMs + Math.max(granularityMs, k * rttvarMs)));
    },
    sequence: () => geometricSequence(timeoutOf),
    state: () => ({ srttMs, rttvarMs, rtoMs, backoff, samples }),
  };
}
