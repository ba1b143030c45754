/**
 * A latency distribution as the timeout model needs it (docs/design.md, "Timeouts"). Times are in
 * seconds. f is the density, F̄(t) = ∫_t^∞ f. An estimate from censored samples may leave mass
 * beyond the last observation unknown, so `mass` = ∫f can be below 1.
 */
export interface LatencyDistribution {
  /** F̄(t) = P(latency > t), within the known mass (F̄(0) = mass). */
  survival(t: number): number;
  /** f(t), per second (smooth for estimates from samples). */
  density(t: number): number;
  /** ∫_0^t x f(x) dx, seconds. */
  partialMean(t: number): number;
  /** ∫f over (0, ∞]: 1 for a proper law. */
  readonly mass: number;
  /** Smallest and largest latency the distribution is known at (seeds of the tree search). */
  readonly minObserved: number;
  readonly maxObserved: number;
}

/** One observed attempt: its latency (s), or a lower bound when it timed out (censored). */
export interface LatencySample {
  /** Seconds: the latency, or the timeout when `censored`. */
  readonly latency: number;
  /** The attempt timed out at `latency`: the true latency is larger. */
  readonly censored?: boolean;
  /**
   * Weight (default 1), e.g. i for the i-th oldest sample in a recency-skewed buffer.
   * @default 1
   */
  readonly weight?: number;
}

/** The cost of sending one attempt with timeout t: g(t) = c0 + c1·t (s), and g'(t). */
export interface AttemptCost {
  g(t: number): number;
  dg(t: number): number;
}
