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
  /**
   * `routing`: after success a request moves on by `routes` (docs/design.md, "A network");
   * `calls`: a service calls its children and succeeds only if every call does (call-graph
   * mode). Default `routing`.
   */
  readonly mode?: 'routing' | 'calls';
  /**
   * Call-graph mode: read the next of a caller's sequential calls to a service that makes no
   * calls of its own (and has no per-try timeout) as a *follow-up*, sent the moment the call
   * before came back — let in, as the queue is no fuller than that call left it
   * (docs/model.md, "Follow-up calls"). Default false: every attempt is rejected alike.
   */
  readonly followUps?: boolean;
}

/** A priority class. */
export interface NetworkClass {
  readonly name: string;
  /** k_p, the default retry limit of the class at every hop. */
  readonly retryLimit: number;
  /**
   * The mean delay before each retry r = 1, 2, … of the class, seconds (the last stands for the
   * rest): what the orbit law (`law: 'orbit'`) reads of its backoff. Default 0.1 s, the mean of
   * `DEFAULT_BACKOFF`. The mean-field law does not depend on it.
   */
  readonly meanBackoffs?: readonly number[];
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
  /**
   * T per class, seconds: the per-try timeout of a call (routing: an attempt) into this service.
   * An accepted attempt not back within T is abandoned by its caller — a failure its hop may
   * retry — while the service still does its work. `undefined` (or a missing entry): no timeout.
   */
  readonly timeouts?: readonly (number | undefined)[];
  /** Probabilistic routing after success: F_ij^p, per class (routing mode). */
  readonly routes: readonly NetworkRoute[];
  /** Calls made by every accepted attempt, in order (call-graph mode). */
  readonly calls?: readonly NetworkCall[];
  /** Endpoints: one branch is chosen per accepted attempt with probability p (call-graph mode). */
  readonly branches?: readonly NetworkBranch[];
}

/** `n` calls to service `to` (only for class `classIndex` when given). */
export interface NetworkCall {
  readonly to: number;
  /** Calls per request, an integer ≥ 1. */
  readonly n: number;
  readonly classIndex?: number;
  /**
   * Parallel calls are issued together with the adjacent parallel calls: all are made even if
   * one fails. Sequential calls (the default) stop at the first failure.
   */
  readonly parallel?: boolean;
}

/** A kind of request a calling service serves: with probability p, it makes `calls`. */
export interface NetworkBranch {
  readonly p: number;
  readonly calls: readonly NetworkCall[];
}

/** After a request of class `classIndex` (all classes when undefined) succeeds, go on to `to`. */
export interface NetworkRoute {
  /** Index of the next service. */
  readonly to: number;
  /** Probability, in [0, 1]. */
  readonly p: number;
  readonly classIndex?: number;
}
