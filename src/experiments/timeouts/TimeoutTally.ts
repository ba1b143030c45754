import { CompensatedSum } from './CompensatedSum.js';
import type { TimeoutScenarioName } from './scenarios.js';

/**
 * The measurements of one strategy on one scenario (virtual or live); every figure covers the
 * measured requests only (the initialisation is left out).
 */
export interface TimeoutEvaluation {
  readonly scenario: TimeoutScenarioName;
  /** Measured requests. */
  readonly requests: number;
  /** Attempts of the measured requests. */
  readonly attempts: number;
  /** Attempts that timed out. */
  readonly timedOutAttempts: number;
  /** 100 × timed-out attempts / attempts. */
  readonly timeoutPercentage: number;
  /** Time from the first measured request's start to the last one's end, seconds. */
  readonly totalTimeS: number;
  /** Σ of the scenario's noise-free latency over the measured requests, seconds. */
  readonly curveIntegralS: number;
  /**
   * totalTimeS / curveIntegralS. 1.00 is the oracle that knows the curve and waits every
   * attempt out (the noise has mean 1); lower is better.
   */
  readonly timeFraction: number;
  /**
   * Σ timeout / Σ latency over the successful attempts that ran under a timeout (a
   * latency-weighted mean of timeout/latency): 1 is a timeout that fits the latency exactly, 2
   * one twice as long. `NaN` when no such attempt succeeded.
   */
  readonly timeoutCloseness: number;
  /** Measured requests the strategy marked diagnostic (first attempt without timeout). */
  readonly diagnosticRequests: number;
  /** Measured requests that reached the attempt cap (last attempt without timeout). */
  readonly cappedRequests: number;
  /**
   * Time the strategy spent recomputing its timeouts over the measured requests (real ms, as the
   * strategy reports it), `undefined` when the strategy does not expose it.
   */
  readonly recomputeTimeMs: number | undefined;
}

/** Accumulates a {@link TimeoutEvaluation} attempt by attempt, request by request. */
export class TimeoutTally {
  private requests = 0;
  private attempts = 0;
  private timedOut = 0;
  private diagnostic = 0;
  private capped = 0;
  private readonly elapsedMs = new CompensatedSum();
  private readonly curveS = new CompensatedSum();
  private readonly closeTimeoutMs = new CompensatedSum();
  private readonly closeLatencyMs = new CompensatedSum();

  constructor(private readonly scenario: TimeoutScenarioName) {}

  /**
   * Records one attempt of a measured request: its timeout (`undefined` when it ran without
   * one), and whether it timed out; `latencyMs` is what it took when it did not.
   */
  attempt(timeoutMs: number | undefined, timedOut: boolean, latencyMs: number): void {
    this.attempts++;
    if (timedOut) {
      this.timedOut++;
    } else if (timeoutMs !== undefined) {
      this.closeTimeoutMs.add(timeoutMs);
      this.closeLatencyMs.add(latencyMs);
    }
  }

  /** Records the end of a measured request. */
  request(
    elapsedMs: number,
    curveS: number,
    flags: { diagnostic: boolean; capped: boolean },
  ): void {
    this.requests++;
    this.elapsedMs.add(elapsedMs);
    this.curveS.add(curveS);
    if (flags.diagnostic) this.diagnostic++;
    if (flags.capped) this.capped++;
  }

  /** The evaluation so far. */
  result(recomputeTimeMs: number | undefined): TimeoutEvaluation {
    const totalTimeS = this.elapsedMs.value / 1000;
    const curveIntegralS = this.curveS.value;
    const closeLatency = this.closeLatencyMs.value;
    return {
      scenario: this.scenario,
      requests: this.requests,
      attempts: this.attempts,
      timedOutAttempts: this.timedOut,
      timeoutPercentage: this.attempts === 0 ? Number.NaN : (100 * this.timedOut) / this.attempts,
      totalTimeS,
      curveIntegralS,
      timeFraction: totalTimeS / curveIntegralS,
      timeoutCloseness: closeLatency > 0 ? this.closeTimeoutMs.value / closeLatency : Number.NaN,
      diagnosticRequests: this.diagnostic,
      cappedRequests: this.capped,
      recomputeTimeMs,
    };
  }
}
