import { checkAttempt, checkObservation, checkOption, checkOptionsObject } from './checkOption.js';
import { geometricSequence, type InspectableTimeouts } from './InspectableTimeouts.js';
import type { TimeoutObservation } from './TimeoutStrategy.js';

/** Options of {@link controllerTimeouts}; times in ms. */
export interface ControllerTimeoutsOptions {
  /**
   * The timeout before anything is observed; default 1000 (RFC 6298's initial RTO), or `maxMs` if
   * that is smaller.
   * @default 1000 (or `maxMs`, if smaller)
   */
  readonly initialMs?: number;
  /**
   * The tightest timeout; default 1.
   * @default 1
   */
  readonly minMs?: number;
  /**
   * The widest timeout; default 60,000 (RFC 6298's suggested ceiling).
   * @default 60_000
   */
  readonly maxMs?: number;
  /**
   * Gain of a success: the share of the gap to the target closed; default 1/8.
   * @default 1 / 8
   */
  readonly alpha?: number;
  /**
   * The target over a success's latency; default 3.
   * @default 3
   */
  readonly k?: number;
  /**
   * Widening per timeout; default 2.
   * @default 2
   */
  readonly beta?: number;
  /**
   * Growth per retry within one request; default 2.
   * @default 2
   */
  readonly gamma?: number;
}

/**
 * The Controller's phase. `slow-start`: since the last timeout no attempt has succeeded, so the
 * latency level is unknown and each timeout widens by β (exponential search). `avoidance`: an
 * attempt succeeded since, and successes move the timeout by a share of the gap (linear).
 */
export type ControllerPhase = 'slow-start' | 'avoidance';

/** What {@link controllerTimeouts} has learnt. */
export interface ControllerState {
  /** The timeout of attempt 0, ms. */
  readonly timeoutMs: number;
  readonly phase: ControllerPhase;
  /** Timeouts observed since the last success. */
  readonly consecutiveTimeouts: number;
  readonly successes: number;
  readonly timeouts: number;
}

/** The Controller's state and its two update rules, apart from any request. */
export interface ControllerCore {
  /** The timeout of attempt 0, ms. */
  readonly timeoutMs: () => number;
  readonly observe: (outcome: TimeoutObservation, latencyMs: number) => void;
  readonly state: () => ControllerState;
}

/**
 * The Controller of docs/design.md's adaptive timeouts: TCP congestion control with the roles turned
 * round: a success tightens the timeout a little, a timeout widens it a lot. With t the timeout of
 * attempt 0 and L a latency:
 *
 * - **timeout** (censored: the latency exceeded t): t ← min(maxMs, β·t), phase `slow-start`. A run
 *   of timeouts with no success between widens by β^n: the multiplicative response of TCP to
 *   loss, and the exponential search of slow start (and RFC 6298's timer back-off) for a latency
 *   level that censored observations cannot show.
 * - **success** (uncensored L): t ← clamp(t − α·(t − k·L)), phase `avoidance`. The timeout closes
 *   the share α of its gap to the target k·L: additive (gap-proportional) tightening when the
 *   latency is well inside the timeout, and equally gradual widening when a success came close to
 *   it. So after the exponential search the timeout settles linearly, as congestion avoidance
 *   follows slow start.
 * - **failure**: ignored; a failed attempt's latency belongs to another path (a fast 503, a refused
 *   connection) and says nothing of how long a success takes.
 *
 * Within one request, retry i gets min(maxMs, t·γ^i): the shared t follows the population of
 * requests, γ keeps one request from retrying forever at a timeout that others' successes
 * tightened.
 *
 * Constants and why:
 * - α = 1/8: TCP's SRTT gain (RFC 6298 (2.3)); a new level is reached within about 1/α = 8
 *   successes, and one outlier moves t by 1/8 of its gap only.
 * - k = 3: for exponential latencies P(L > 3·mean) ≈ 5 %. With the rules above the timeout settles
 *   where the widening by timeouts balances the tightening by successes, about 3.5 × the mean (3 %
 *   of attempts time out); RFC 6298's SRTT + 4·RTTVAR comes to about 4 × the mean for the same law.
 * - β = 2: the doubling of RFC 6298 (5.5) and of TCP's slow start: a level 2^n above the timeout
 *   is found within n timeouts.
 * - γ = 2: the same doubling, per retry.
 * - initialMs 1000, maxMs 60,000: RFC 6298 (2.1) and (2.5); minMs 1: service latencies are ms.
 *
 * The phase starts at `slow-start`: nothing is known, as for a fresh TCP connection.
 * @see RFC 5681 §3.1 (slow start, congestion avoidance), RFC 6298 (timer, back-off)
 * @see docs/design.md, "Adaptive sequential timeouts" (the Controller)
 * @example
 * ```ts
 * const timeout = controllerTimeouts({ initialMs: 200, minMs: 5, maxMs: 10_000 });
 * await retry(call, { policy, timeout });
 * ```
 */
export function controllerTimeouts(
  options: Readonly<ControllerTimeoutsOptions> = {},
): InspectableTimeouts<ControllerState> {
  const core = controllerCore(options);
  const maxMs = options.maxMs ?? DEFAULT_MAX_MS;
  const gamma = checkOption('gamma', options.gamma ?? 2, { min: 1, max: 1000 });
  const timeoutOf = (attempt: number) => Math.min(maxMs, core.timeoutMs() * gamma ** attempt);
  return {
    next: (attempt) => timeoutOf(checkAttempt(attempt)),
    observe: core.observe,
    sequence: () => geometricSequence(timeoutOf),
    state: core.state,
  };
}

const DEFAULT_MAX_MS = 60_000;

/**
 * The Controller's state and rules without the per-request growth γ, for strategies that use its
 * timeout otherwise (the Combined system's ceiling). Checks every option but `gamma`.
 */
export function controllerCore(options: Readonly<ControllerTimeoutsOptions> = {}): ControllerCore {
  checkOptionsObject('controllerTimeouts', options);
  const positive = { min: 0, max: Number.POSITIVE_INFINITY, minOpen: true };
  const minMs = checkOption('minMs', options.minMs ?? 1, positive);
  const maxMs = checkOption('maxMs', options.maxMs ?? DEFAULT_MAX_MS, {
    min: minMs,
    max: Number.POSITIVE_INFINITY,
  });
  const initialMs = checkOption('initialMs', options.initialMs ?? Math.min(1000, maxMs), {
    min: minMs,
    max: maxMs,
  });
  const alpha = checkOption('alpha', options.alpha ?? 1 / 8, { min: 0, max: 1, minOpen: true });
  const k = checkOption('k', options.k ?? 3, { min: 0, max: 1000, minOpen: true });
  const beta = checkOption('beta', options.beta ?? 2, { min: 1, max: 1000, minOpen: true });
  let timeoutMs = initialMs;
  let phase: ControllerPhase = 'slow-start';
  let consecutiveTimeouts = 0;
  let successes = 0;
  let timeouts = 0;
  return {
    timeoutMs: () => timeoutMs,
    observe(outcome, latencyMs) {
      const latency = checkObservation(outcome, latencyMs);
      if (outcome === 'timeout') {
        timeoutMs = Math.min(maxMs, beta * timeoutMs);
        phase = 'slow-start';
        consecutiveTimeouts++;
        timeouts++;
      } else if (outcome === 'success') {
        timeoutMs = Math.min(maxMs, Math.max(minMs, timeoutMs - alpha * (timeoutMs - k * latency)));
        phase = 'avoidance';
        consecutiveTimeouts = 0;
        successes++;
      }
    },
    state: () => ({ timeoutMs, phase, consecutiveTimeouts, successes, timeouts }),
  };
}
