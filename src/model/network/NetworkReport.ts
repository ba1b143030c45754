/**
 * The analysis of a network, in the shape of DESIGN.md's `--json` document. Rates are per second;
 * rejections and completions are probabilities.
 */
export interface NetworkReport {
  readonly classes: readonly { readonly name: string; readonly retries: number }[];
  readonly services: Readonly<Record<string, ServiceAnalysis>>;
  readonly endToEnd: Readonly<Record<string, EndToEndAnalysis>>;
  /** Whether the fixed point was reached to the stated tolerance. */
  readonly converged: boolean;
  /** Passes over the network (1 for a DAG solved in topological order). */
  readonly iterations: number;
}

/** One service's solved state. */
export interface ServiceAnalysis {
  readonly model: string;
  /** Attempt-rejection probability. */
  readonly s: number;
  /** Offered load counting every attempt, Σ Λ / μ. */
  readonly rho: number;
  readonly classes: Readonly<Record<string, ServiceClassAnalysis>>;
}

/** One class at one service. */
export interface ServiceClassAnalysis {
  /** λin, original requests per second arriving (external plus routed in). */
  readonly in: number;
  /** λout = λin (1 − R), requests per second that get through. */
  readonly out: number;
  /** Λ, attempts per second. */
  readonly attempts: number;
  /** R, probability that a request is rejected on every attempt here. */
  readonly rejection: number;
}

/** End-to-end figures of a class. */
export interface EndToEndAnalysis {
  readonly rejection: number;
  readonly completion: number;
}
