import type { ModelName } from '../phi/Phi.js';

/**
 * A network as the analysis sees it: names for reports, numbers for the math. Built from a
 * network file by `spec/` (`toNetworkModel`), or by hand.
 *
 * Per-class arrays are indexed like `classes` (index 0 is the highest class).
 */
export interface NetworkModel {
  readonly classes: readonly NetworkClass[];
  readonly services: readonly NetworkService[];
}

/** A priority class. */
export interface NetworkClass {
  readonly name: string;
  /** k_p, the default retry limit of the class at every hop. */
  readonly retryLimit: number;
}

/** A service of the network. */
export interface NetworkService {
  readonly name: string;
  /** μ, requests per second. */
  readonly capacity: number;
  /** m, the most requests in the system. */
  readonly queue: number;
  /** φ law of this service. */
  readonly model: ModelName;
  /** γ_i^p, external arrivals per class, requests per second. */
  readonly arrivals: readonly number[];
  /** k_i^p per class (the class default unless the file overrides it). */
  readonly retryLimits: readonly number[];
  /**
   * Residual-time correction per class: α_j for retries j = 1..k (see `residualAlpha`);
   * `undefined` for the independent model.
   */
  readonly residualAlphas?: readonly (readonly number[])[];
  /** Probabilistic routing after success: F_ij^p, per class. */
  readonly routes: readonly NetworkRoute[];
}

/** After a request of class `classIndex` (all classes when undefined) succeeds, go on to `to`. */
export interface NetworkRoute {
  /** Index of the next service. */
  readonly to: number;
  /** Probability, in [0, 1]. */
  readonly p: number;
  readonly classIndex?: number;
}
