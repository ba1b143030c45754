import { mm1mBlocking } from '../phi/mm1m.js';
import type { ModelName } from '../phi/Phi.js';

/**
 * One service's attempt-rejection fixed point s = φ(ρ(s)), solved from a guess: the inner solve
 * of the uniqueness check's sweeps ({@link warmRoutingSolver}), where a service is re-solved on
 * every sweep at a λin that has barely moved, so the previous sweep's s is nearly the answer.
 */
export interface WarmRejectionSolver {
  /**
   * s at the class rates `rates[offset … offset + P)` (requests/s), starting from `guess`, to an
   * absolute `tolerance` on s, and on 1 − s relative (machine precision once 1 − s < 1e-6, as
   * `attemptRejection` refines it): 0 when the rates sum to 0.
   */
  solve(rates: ArrayLike<number>, offset: number, guess: number, tolerance: number): number;
  /** Forgets the slope learnt from earlier solves, so a solve depends only on its inputs. */
  reset(): void;
  /** Evaluations of s − φ(ρ(s)) so far (a profile of the solver). */
  readonly evaluations: number;
}

/** The φ laws as codes, so the solver's loop has one branch and no call through a closure. */
export const PHI_LAW_CODE: Readonly<Record<ModelName, number>> = { fluid: 0, mm1m: 1, mixed: 2 };

/** Most steps of a solve (bisection alone needs 53 from [0, 1]; never reached in practice). */
const MOST_STEPS = 200;

/**
 * Below this 1 − s the solve goes on to machine precision, as `attemptRejection` does: λ(1 − s)
 * would otherwise keep too few digits in extreme overload.
 */
const NEAR_ONE = 1e-6;

/**
 * The offered load of a service as a polynomial in s: ρ(s) = Σ_p λ_p (1 + s + … + s^(k_p)) / μ
 * = Σ_j c_j s^j with c_j = Σ_{p: k_p ≥ j} λ_p / μ, written into `coefficients[0 … degree]`.
 * Rates are `rates[offset + p]` and limits `limits[limitOffset + p]`, p < `classCount`.
 * @returns the degree (the largest k_p among classes with a positive rate), or −1 when the rates
 *   sum to 0 (then s = 0).
 */
export function loadPolynomial(
  rates: ArrayLike<number>,
  offset: number,
  limits: ArrayLike<number>,
  limitOffset: number,
  classCount: number,
  capacity: number,
  coefficients: Float64Array,
): number {
  // Coefficients above the degree so far are stale: cleared as the degree grows.
  let degree = -1;
  let totalRate = 0;
  for (let p = 0; p < classCount; p++) {
    const rate = rates[offset + p] as number;
    totalRate += rate;
    if (rate > 0) {
      const limit = limits[limitOffset + p] as number;
      for (let j = degree + 1; j <= limit; j++) coefficients[j] = 0;
      if (limit > degree) degree = limit;
      coefficients[limit] = (coefficients[limit] as number) + rate;
    }
  }
  if (!(totalRate > 0)) return -1;
  let tail = 0;
  for (let j = degree; j >= 0; j--) {
    tail += coefficients[j] as number;
    coefficients[j] = tail / capacity;
  }
  return degree;
}

/**
 * h(s) = s − φ(ρ(s)) for the polynomial ρ of {@link loadPolynomial} and the law `law`
 * ({@link PHI_LAW_CODE}) of a service with system capacity `queue`: the laws of `phiFor`, with
 * the M/M/1/m blocking of {@link mm1mBlocking} (integer powers away from saturation).
 */
export function rejectionResidual(
  law: number,
  queue: number,
  coefficients: Float64Array,
  degree: number,
  s: number,
): number {
  let rho = coefficients[degree] as number;
  for (let j = degree - 1; j >= 0; j--) rho = rho * s + (coefficients[j] as number);
  let phi: number;
  if (law === 0) phi = rho <= 1 ? 0 : 1 - 1 / rho;
  else if (law === 1 || rho <= 1) phi = mm1mBlocking(rho, queue);
  else phi = Math.max(1 - 1 / rho, 1 / (queue + 1));
  return s - phi;
}

/**
 * The root of {@link rejectionResidual} on [0, 1] — the service's s, unique (docs/model.md) —
 * from `guess`: secant steps, the first with the slope learnt by the previous solve of this
 * service (`memory[slot]`, updated), each kept inside the bracket that the evaluations so far
 * have narrowed from [0, 1] (h(0) ≤ 0 < h(1)); a step that leaves it, or fails to halve the step
 * before last (Brent's test), is replaced by bisection, and a step to 0 or below looks at 0 itself
 * (the root of a fluid service below capacity). It stops when a step is below the tolerance —
 * `tolerance` absolute and relative to 1 − s, machine precision once 1 − s < 1e-6 — where the
 * superlinear secant knows the root far more closely. `memory[slot + 1]` counts evaluations.
 * Allocates nothing.
 * @param guess - where to start; outside [0, 1] (or NaN) starts at 1/2.
 */
export function warmRejectionRoot(
  law: number,
  queue: number,
  coefficients: Float64Array,
  degree: number,
  guess: number,
  tolerance: number,
  memory: Float64Array,
  slot: number,
): number {
  let lo = 0;
  let hi = 1;
  let x = guess >= 0 && guess <= 1 ? guess : 0.5;
  let hx = rejectionResidual(law, queue, coefficients, degree, x);
  let evaluations = 1;
  let root = x;
  if (hx < 0) lo = x;
  else hi = x;
  // The evaluation before x, for the secant.
  let previous = Number.NaN;
  let hPrevious = Number.NaN;
  // The sizes of the last two steps, for Brent's test.
  let step1 = Number.POSITIVE_INFINITY;
  let step2 = Number.POSITIVE_INFINITY;
  let zeroSeen = x === 0;
  const slope = memory[slot] as number;
  for (let step = 0; step < MOST_STEPS && hx !== 0; step++) {
    const width = hi - lo;
    let next =
      step > 0 && hx !== hPrevious
        ? x - (hx * (x - previous)) / (hx - hPrevious)
        : x - hx / (slope > 0 ? slope : 1);
    if (!(next > lo && next < hi)) next = next <= 0 && !zeroSeen ? 0 : lo + 0.5 * width;
    else if (!(Math.abs(next - x) < 0.5 * step2)) next = lo + 0.5 * width;
    step2 = step1;
    step1 = Math.abs(next - x);
    root = next;
    const stepTolerance =
      1 - next < NEAR_ONE
        ? 4 * Number.EPSILON
        : Math.max(4 * Number.EPSILON, tolerance * Math.min(1, 1 - next));
    if (step1 <= stepTolerance || width <= stepTolerance) break;
    previous = x;
    hPrevious = hx;
    x = next;
    hx = rejectionResidual(law, queue, coefficients, degree, x);
    evaluations++;
    if (x === 0) zeroSeen = true;
    if (hx < 0) lo = x;
    else hi = x;
  }
  const learnt = (hx - hPrevious) / (x - previous);
  if (learnt > 0 && learnt < Number.POSITIVE_INFINITY) memory[slot] = learnt;
  memory[slot + 1] = (memory[slot + 1] as number) + evaluations;
  return Math.min(Math.max(root, 0), 1);
}

/**
 * A {@link WarmRejectionSolver} for one service without the residual-time correction (a retry
 * limit and a rate per class, as `independentRejectionSolver` handles): the same equation
 * h(s) = s − φ(ρ(s)) = 0, the same φ laws and the same bracket [0, 1] as `attemptRejection`, but
 * ρ(s) is one polynomial evaluated by Horner's rule ({@link loadPolynomial}), φ is evaluated in
 * line, and the root is found from a guess by safeguarded secant steps
 * ({@link warmRejectionRoot}). From the previous sweep's s a solve takes fewer evaluations than
 * Brent's method from [0, 1] to 1e-14 (see docs/benchmarks.md, "verify-uniqueness throughput").
 * The root is `attemptRejection`'s to within the two tolerances (the same root, not the same
 * bits).
 *
 * @param model - the service's φ law; `queue` is its m (ignored by `fluid`).
 * @param capacity - μ, requests/s.
 * @param retryLimits - k_p per class, integers ≥ 0.
 * @example
 * ```ts
 * const solver = warmRejectionSolver('mixed', 50, 143, [5, 1]);
 * const s = solver.solve(Float64Array.of(50, 250), 0, Number.NaN, 1e-14);
 * solver.solve(Float64Array.of(50, 251), 0, s, 1e-14); // two evaluations or so
 * ```
 */
export function warmRejectionSolver(
  model: ModelName,
  queue: number,
  capacity: number,
  retryLimits: readonly number[],
): WarmRejectionSolver {
  const law = PHI_LAW_CODE[model];
  const limits = Int32Array.from(retryLimits);
  const coefficients = new Float64Array(limits.reduce((most, k) => Math.max(most, k), 0) + 1);
  const memory = Float64Array.of(1, 0);
  return {
    solve(rates, offset, guess, tolerance) {
      const degree = loadPolynomial(
        rates,
        offset,
        limits,
        0,
        limits.length,
        capacity,
        coefficients,
      );
      if (degree < 0) return 0;
      return warmRejectionRoot(law, queue, coefficients, degree, guess, tolerance, memory, 0);
    },
    reset() {
      memory[0] = 1;
    },
    get evaluations() {
      return memory[1] as number;
    },
  };
}
