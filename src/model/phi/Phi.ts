/**
 * Names of the attempt-rejection laws φ: s = φ(ρ), the probability that one attempt is rejected at
 * a service offered load ρ (attempts per second over capacity).
 * @see docs/design.md, "One service".
 */
export type ModelName = (typeof MODEL_NAMES)[number];

/** All model names, in the order reports list them. */
export const MODEL_NAMES = ['fluid', 'mm1m', 'mixed'] as const;

/**
 * An attempt-rejection law: non-decreasing in ρ, φ(0) = 0, φ(ρ) < 1 for every finite ρ in exact
 * arithmetic (in floating point 1 − 1/ρ rounds to 1 once ρ exceeds about 2^53, where the solver
 * then reports s = 1).
 */
export interface Phi {
  readonly model: ModelName;
  /** s = φ(ρ). */
  (rho: number): number;
}
