import type { RandomSource } from '../random.js';

/**
 * A service-time distribution: what one job occupies the server for, in seconds.
 *
 * Besides sampling it exposes the *equilibrium (residual-life) distribution*
 * F_e(x) = (1/E[S]) ∫₀ˣ F̄(u) du: the law of the remaining service time of the job in service
 * seen by an arrival at a random time, which the residual-time correction of the model uses.
 * @see docs/design.md, "One service": the residual-time correction.
 */
export interface ServiceTimeDistribution {
  /** Which family: `exponential`, `deterministic`, `hyperexponential` (two phases), `lognormal`. */
  readonly kind: 'exponential' | 'deterministic' | 'hyperexponential' | 'lognormal';
  /** Mean E[S], seconds. */
  readonly mean: number;
  /** Squared coefficient of variation Var[S]/E[S]². */
  readonly scv: number;
  /** F̄(x) = P(S > x). */
  survival(x: number): number;
  /** F_e(x) = P(residual ≤ x) = (1/E[S]) ∫₀ˣ F̄(u) du. */
  residualCdf(x: number): number;
  /**
   * E[e^(−θR)] for the residual R, when it has a closed form (used for exponentially distributed
   * retry delays: P(R ≤ D) = E[e^(−R/mean(D))]); `undefined` where only numerical integration
   * serves.
   */
  residualLaplace?(theta: number): number;
  /** One draw, using `random` for every uniform it needs. */
  sample(random: RandomSource): number;
}

/** Description of a service-time law as the network file gives it (mean comes from capacity). */
export type ServiceTimeDescription =
  | { readonly dist: 'exponential' }
  | { readonly dist: 'deterministic' }
  | { readonly dist: 'hyperexponential'; readonly scv: number }
  | { readonly dist: 'lognormal'; readonly scv: number };
