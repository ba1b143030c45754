/**
 * What happened in one window of virtual time, for a class end to end or for a service. Every
 * figure counts the events that fell in the window, whichever request they belong to (measured
 * or not): an attempt counts in the window it was made, a request ends (completed or rejected)
 * in the window it ended in. Rates are per second of the window.
 *
 * For a class: `offered` its external arrivals, `completed` and `rejected` its requests that ended
 * end to end, `attempts`, `s` and `timeouts` its attempts at every service. For a service: the
 * same of the calls to it (`offered` calls arriving, from outside or from callers; `completed`
 * those that got through it; `rejected` those that failed there after its retries).
 */
export interface WindowFigures {
  /**
   * The schedule's mean multiplier over the window: of the service's capacity, or of the class's
   * external arrivals (weighted by the network's rates when the class enters at several
   * services); 1 where nothing changes.
   */
  readonly multiplier: number;
  /** Arrivals per second (a class: external requests; a service: calls, before retries). */
  readonly offered: number;
  /** Requests (or calls) per second that ended and got through. */
  readonly completed: number;
  /** Requests (or calls) per second that ended and failed after their retries. */
  readonly rejected: number;
  /** rejected / (completed + rejected): of those that ended in the window, the fraction failed. */
  readonly rejection: number;
  /** Attempts per second. */
  readonly attempts: number;
  /** Attempts in the window per arrival in the window. */
  readonly attemptsPerRequest: number;
  /** Fraction of the attempts rejected at admission (the queue was full). */
  readonly s: number;
  /** Attempts per second abandoned at their per-try timeout. */
  readonly timeouts: number;
}

/** A service in one window: {@link WindowFigures} and its load at the window's end. */
export interface WindowServiceFigures extends WindowFigures {
  /** Attempts per second over the window's mean capacity (μ × `multiplier`). */
  readonly rho: number;
  /** Requests in the system (queued or in service, abandoned work included) at the window's end. */
  readonly inSystem: number;
}

/** One window [start, end) of virtual seconds. */
export interface SimulatedWindow {
  /** Virtual seconds since the run began (warm-up included). */
  readonly start: number;
  readonly end: number;
  /** Per class, keyed by name, in network order. */
  readonly classes: Readonly<Record<string, WindowFigures>>;
  /** Per service, keyed by name, in network order. */
  readonly services: Readonly<Record<string, WindowServiceFigures>>;
}
