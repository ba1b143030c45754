import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import { checkAttempt, checkObservation, checkOption, checkOptionsObject } from './checkOption.js';
import {
  type ControllerState,
  type ControllerTimeoutsOptions,
  controllerCore,
} from './controllerTimeouts.js';
import type { InspectableTimeouts } from './InspectableTimeouts.js';
import {
  type OptimizerState,
  type OptimizerTimeoutsOptions,
  optimizerCore,
} from './optimizerTimeouts.js';
import type { TimeoutObservation, TimeoutStrategy } from './TimeoutStrategy.js';

/** Options of {@link combinedTimeouts}; times in ms. */
export interface CombinedTimeoutsOptions {
  /**
   * The Optimizer's options (its ceiling is the Controller's, so no `tzMs`); defaults as
   * {@link optimizerTimeouts}' but `weights: 'recency'`.
   * @default as {@link optimizerTimeouts}' but `weights: 'recency'`
   */
  readonly optimizer?: Readonly<Omit<OptimizerTimeoutsOptions, 'tzMs'>>;
  /**
   * The Controller's options (no `gamma`: it sets a ceiling, not a per-retry growth); defaults as
   * {@link controllerTimeouts}' but `alpha: 1/4`.
   * @default as {@link controllerTimeouts}' but `alpha: 1 / 4`
   */
  readonly controller?: Readonly<Omit<ControllerTimeoutsOptions, 'gamma'>>;
  /**
   * One request in this many is diagnostic (the first, the (M+1)-th, …); default 20.
   * @default 20
   */
  readonly diagnosticEvery?: number;
  /**
   * The timeout of a diagnostic request's attempts, ms; default 60,000.
   * @default 60_000
   */
  readonly diagnosticTimeoutMs?: number;
}

/** What {@link combinedTimeouts} has learnt. */
export interface CombinedState {
  /** Requests begun so far. */
  readonly requests: number;
  /** Whether the current request is diagnostic. */
  readonly diagnostic: boolean;
  /** The ceiling t_z of ordinary requests: the Controller's timeout, ms. */
  readonly ceilingMs: number;
  readonly controller: ControllerState;
  readonly optimizer: OptimizerState;
}

/** One request's view of a Combined strategy: its timeouts and observations. */
export interface CombinedRequest extends TimeoutStrategy {
  /** Whether the request is diagnostic: its attempts get the long diagnostic timeout. */
  readonly diagnostic: boolean;
}

/** The Combined system: a {@link TimeoutStrategy} with an explicit request boundary. */
export interface CombinedTimeouts extends InspectableTimeouts<CombinedState> {
  /**
   * Begins a request, the current one for `next`/`observe`, and returns it, also as a strategy of
   * its own: with interleaved requests, pass each its handle (`retry(fn, { timeout: handle })`)
   * so every observation is attributed to the request it belongs to.
   */
  beginRequest(): CombinedRequest;
  /**
   * The timeouts an ordinary request begun now would get, ms (a diagnostic request gets
   * `diagnosticTimeoutMs` for every attempt).
   */
  sequence(): readonly number[];
  /** Whether request `requestIndex` (0 for the first) is diagnostic. */
  isDiagnostic(requestIndex: number): boolean;
  /** All Optimizer recomputes so far by the injected clock, ms; undefined without a clock. */
  readonly recomputeTimeMs: number | undefined;
}

/**
 * The Combined system of docs/design.md's adaptive timeouts: the Optimizer shapes the early timeouts
 * of a request from recency-weighted samples, the Controller sets the last one (the ceiling t_z)
 * from true latencies, which diagnostic requests measure.
 *
 * - **Requests.** Every `diagnosticEvery`-th request (M = 20: requests 0, M, 2M, …) is diagnostic.
 *   A request begins at `beginRequest()`, or, for plain {@link TimeoutStrategy} use as in
 *   `retry()`, at `next(0)` once the current request has handed out or observed an attempt
 *   (`retry()` calls `next(0)` once per call; the simulator calls `beginRequest()` and may skip
 *   `next(0)` for a diagnostic request it runs without a timeout).
 * - **Diagnostic requests** get `diagnosticTimeoutMs` (60 s) for every attempt, so their latency is
 *   observed uncensored. It feeds the Controller (a success moves the ceiling towards k·latency, a
 *   timeout widens it by β) and the Optimizer's buffer as a plain sample: diagnostic samples are
 *   the buffer's only view of the tail beyond the ordinary timeouts.
 * - **Ordinary requests** get the Optimizer's sequence with its last element replaced by the
 *   Controller's current timeout c, and the earlier ones capped at c: t_i = min(s_i, c) for i <
 *   z, t_z = c. The Optimizer computes s with t_z = c at each recompute; the live c makes the
 *   ceiling follow level shifts between recomputes. Until the first recompute every attempt
 *   gets c. Their observations feed the Optimizer (a timeout as a censored sample). A timeout at
 *   the ceiling also feeds the Controller: a call that exhausted the early timeouts and still
 *   timed out at t_z is the sign of a shift upwards, and each doubles the ceiling (slow start)
 *   without waiting for the next diagnostic request. Other ordinary observations do not reach
 *   the Controller: a success under a timeout is censored from above and would pull it down.
 *
 * Constants and why:
 * - M = 20: one request in twenty forgoes short timeouts, which costs about what the early
 *   timeouts save on that request. Shifts upwards reach the Controller at once through ceiling
 *   timeouts, so diagnostics mainly bring the ceiling down after a shift downwards. How M = 20
 *   compared with 10 and 40: see docs/timeouts.md, "Combined".
 * - Controller α = 1/4 (not 1/8): diagnostic samples come M times more rarely than a plain
 *   Controller's, so each moves the ceiling more; about 4 diagnostic requests (80 requests) to
 *   follow a new level (α = 1/2: see docs/timeouts.md, "Combined"). k = 3, β = 2 and the bounds
 *   as {@link controllerTimeouts}.
 * - Optimizer weights `recency` (the i-th oldest sample weighs i), docs/design.md's choice: recent
 *   samples dominate after a shift without shrinking the buffer.
 * - Escalation: a request that got through only at the ceiling, after its early timeouts expired,
 *   starts the next requests at the ceiling until one succeeds within the first early timeout. A
 *   spike (every attempt of a request sees the same raised level) would otherwise burn the early
 *   timeouts on every request it lasts; escalation keeps those requests at the ceiling instead
 *   (its effect on the evaluation: see docs/timeouts.md, "Combined").
 * - Diagnostic timeout 60 s: long against any latency it should measure, and RFC 6298's ceiling.
 * @see docs/design.md, "Adaptive sequential timeouts" (the Combined system)
 * @example
 * ```ts
 * const timeouts = combinedTimeouts({ diagnosticEvery: 20, controller: { initialMs: 300 } });
 * const request = timeouts.beginRequest();
 * await retry(call, { policy, timeout: request });
 * ```
 */
export function combinedTimeouts(
  options: Readonly<CombinedTimeoutsOptions> = {},
): CombinedTimeouts {
  checkOptionsObject('combinedTimeouts', options);
  checkOptionsObject('controller', options.controller);
  checkOptionsObject('optimizer', options.optimizer);
  if (options.controller && 'gamma' in options.controller) {
    throw new InvalidArgumentTypeError("the Combined system's controller has no option gamma");
  }
  if (options.optimizer && 'tzMs' in options.optimizer) {
    throw new InvalidArgumentTypeError(
      "the Combined system's optimizer has no option tzMs: the Controller sets it",
    );
  }
  const diagnosticEvery = checkOption('diagnosticEvery', options.diagnosticEvery ?? 20, {
    min: 1,
    max: 1_000_000,
    integer: true,
  });
  const diagnosticTimeoutMs = checkOption(
    'diagnosticTimeoutMs',
    options.diagnosticTimeoutMs ?? 60_000,
    { min: 0, max: Number.POSITIVE_INFINITY, minOpen: true },
  );
  const controller = controllerCore({
    ...options.controller,
    alpha: options.controller?.alpha ?? 1 / 4,
  });
  const optimizer = optimizerCore(
    { ...options.optimizer, weights: options.optimizer?.weights ?? 'recency' },
    () => controller.timeoutMs(),
  );

  /** The Optimizer's sequence under the Controller's ceiling, ms. */
  function fullSequence(): readonly number[] {
    const ceilingMs = controller.timeoutMs();
    if (!optimizer.recomputed()) return [ceilingMs];
    const optimized = optimizer.sequenceMs();
    return optimized.map((timeoutMs, i) =>
      i === optimized.length - 1 ? ceilingMs : Math.min(timeoutMs, ceilingMs),
    );
  }

  /**
   * Escalation: after a request got through only at the ceiling, having burnt its early timeouts,
   * the level has probably shifted up (a spike, a fast increase) and the next requests' early
   * attempts would all time out too; they start at the ceiling instead. The first success at or
   * under the first early timeout (an ordinary or a diagnostic request) ends the escalation. The
   * Optimizer's samples learn the new level meanwhile; in a stable but heavy-tailed regime an
   * escalation lasts about one request.
   */
  let escalated = false;

  /** The timeouts of an ordinary request begun now, ms. */
  function ordinarySequence(): readonly number[] {
    return escalated ? [controller.timeoutMs()] : fullSequence();
  }

  interface RequestRecord {
    readonly diagnostic: boolean;
    /** Whether the timeout handed out last was the ceiling: its timeout widens the Controller. */
    atCeiling: boolean;
    /** Whether an attempt was handed out or observed: then `next(0)` starts another request. */
    used: boolean;
    /** The attempt index handed out last. */
    attempt: number;
  }

  let requests = 0;
  let current: RequestRecord | undefined;

  const isDiagnostic = (requestIndex: number) => requestIndex % diagnosticEvery === 0;

  function begin(): RequestRecord {
    current = { diagnostic: isDiagnostic(requests), atCeiling: false, used: false, attempt: 0 };
    requests++;
    return current;
  }

  function timeoutOf(record: RequestRecord, attempt: number): number {
    record.used = true;
    if (record.diagnostic) return diagnosticTimeoutMs;
    const sequence = ordinarySequence();
    const timeoutMs = sequence[Math.min(attempt, sequence.length - 1)] as number;
    record.atCeiling = timeoutMs >= controller.timeoutMs();
    record.attempt = attempt;
    return timeoutMs;
  }

  function observeIn(record: RequestRecord, outcome: TimeoutObservation, latencyMs: number): void {
    checkObservation(outcome, latencyMs);
    record.used = true;
    if (record.diagnostic) {
      controller.observe(outcome, latencyMs);
    } else if (outcome === 'timeout' && record.atCeiling) {
      controller.observe(outcome, latencyMs);
    }
    if (outcome === 'success') {
      const firstEarlyMs = fullSequence()[0] as number;
      if (escalated && latencyMs <= firstEarlyMs) escalated = false;
      else if (!escalated && !record.diagnostic && record.atCeiling && record.attempt > 0) {
        escalated = true;
      }
    }
    optimizer.observe(outcome, latencyMs);
  }

  function handleOf(record: RequestRecord): CombinedRequest {
    return {
      diagnostic: record.diagnostic,
      next: (attempt) => timeoutOf(record, checkAttempt(attempt)),
      observe: (outcome, latencyMs) => observeIn(record, outcome, latencyMs),
    };
  }

  return {
    beginRequest: () => handleOf(begin()),
    isDiagnostic(requestIndex) {
      checkOption('requestIndex', requestIndex, {
        min: 0,
        max: Number.MAX_SAFE_INTEGER,
        integer: true,
      });
      return isDiagnostic(requestIndex);
    },
    next(attempt) {
      checkAttempt(attempt);
      const record = current === undefined || (attempt === 0 && current.used) ? begin() : current;
      return timeoutOf(record, attempt);
    },
    observe(outcome, latencyMs) {
      observeIn(current ?? begin(), outcome, latencyMs);
    },
    sequence: () => ordinarySequence().slice(),
    state: () => ({
      requests,
      diagnostic: current?.diagnostic ?? false,
      ceilingMs: controller.timeoutMs(),
      escalated,
      controller: controller.state(),
      optimizer: optimizer.state(),
    }),
    get recomputeTimeMs() {
      return optimizer.recomputeTimeMs;
    },
  };
}
