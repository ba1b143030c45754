/** One class of a service under the orbit law (`orbitQueue`). */
export interface OrbitClass {
  /** λ_p, fresh requests (calls) per second. */
  readonly arrivalRate: number;
  /** k_p: retries after a failed attempt. */
  readonly retryLimit: number;
  /** The per-try timeout in mean service times, μT; 0 or less (or Infinity): none. */
  readonly timeout: number;
  /**
   * How the timeout is distributed: `fixed` (default), `exponential` with that mean, or `erlang`
   * with that mean in {@link timeoutStages} exponential stages (1: exponential; many: nearly
   * fixed).
   */
  readonly timeoutLaw?: 'fixed' | 'exponential' | 'erlang';
  /** The stages of an `erlang` timeout, an integer ≥ 1. */
  readonly timeoutStages?: number;
  /**
   * The mean backoff before a retry, seconds (the orbit's mean sojourn): one for every retry,
   * or per retry (r = 1 … k; the last one given stands for the rest), as an exponential backoff
   * grows.
   */
  readonly meanBackoff: number | readonly number[];
}
