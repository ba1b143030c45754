/**
 * What one simulated class measured. Counts are over the *measured requests*: those whose
 * original (first) attempt arrived inside the measured window, followed to their end even when
 * their retries or service fall after it.
 */
export interface ClassMeasurement {
  /** Measured requests (original arrivals in the window). */
  readonly originals: number;
  /** Attempts they made, first attempts included. */
  readonly attempts: number;
  /** Attempts rejected because the system was full. */
  readonly attemptRejections: number;
  /** Requests whose every allowed attempt was rejected. */
  readonly finalRejections: number;
  /** Requests served. */
  readonly successes: number;
  /** λ_p: originals per second of window. */
  readonly arrivalRate: number;
  /** Λ_p: attempts per second of window. */
  readonly attemptRate: number;
  /** E_p: successes per second of window. */
  readonly goodput: number;
  /** R_p = finalRejections / originals (NaN without originals). */
  readonly rejection: number;
  /** attemptRejections / attempts: this class's view of s (NaN without attempts). */
  readonly attemptRejection: number;
  /** attempts / originals (NaN without originals). */
  readonly attemptsPerRequest: number;
  /** Mean latency of successful requests, original arrival to departure, seconds. */
  readonly latencyMean: number;
  /** Latency median, seconds (HdrHistogram of whole microseconds, 3 significant digits). */
  readonly latencyP50: number;
  /** Latency 90th percentile, seconds. */
  readonly latencyP90: number;
  /** Latency 99th percentile, seconds. */
  readonly latencyP99: number;
  /** Latency 99.9th percentile, seconds. */
  readonly latencyP999: number;
}

/** Service-level figures of one simulated service. */
export interface ServiceMeasurement {
  /** s: rejected attempts / attempts, all classes (measured requests). */
  readonly s: number;
  /** ρ: offered attempts per second of window (measured requests, all classes) / capacity. */
  readonly rho: number;
  /** L: time-average number in system (queue and service) over the window. */
  readonly meanInSystem: number;
  /** Attempts accepted per second of window (in steady state, the departure rate). */
  readonly throughput: number;
  /** Mean sojourn (acceptance to departure), seconds, of the attempts accepted in the window;
   * Little's law says L = throughput × meanSojourn. */
  readonly meanSojourn: number;
}

/** Result of one run of {@link simulateSingleService}. */
export interface SingleServiceResult extends ServiceMeasurement {
  /** Measured window, seconds. */
  readonly duration: number;
  /** Warm-up simulated before the window, seconds. */
  readonly warmup: number;
  /** Events the engine processed (warm-up and drain included). */
  readonly events: number;
  /** Virtual time, seconds, at which the run ended: after the window, once every measured
   * request had finished. */
  readonly endTime: number;
  /** Per class, keyed by class name, in configuration order. */
  readonly classes: Readonly<Record<string, ClassMeasurement>>;
}
