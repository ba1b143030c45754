import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import { brentRoot } from './numeric/brent.js';
import { phiFor } from './phi/index.js';
import type { ModelName, Phi } from './phi/Phi.js';
import { attemptsPerRequest, retryFlow } from './retryFlow.js';

/** Tolerance of every fixed-point solve on s (absolute): 1e-12. */
export const FIXED_POINT_TOLERANCE = 1e-12;

/** One class's load at one service. */
export interface ServiceClassLoad {
  /** Original (first-attempt) arrival rate λ_p, requests per second. */
  readonly arrivalRate: number;
  /** Retry limit k_p: at most k_p + 1 attempts per request at this service. */
  readonly retryLimit: number;
  /**
   * α_j for retries j = 1..k_p, the residual-time correction (see `residualAlpha`); a shorter
   * array repeats its last element. Omitted: the independent model.
   */
  readonly residualAlphas?: readonly number[];
}

/** A service and the classes offered to it. */
export interface ServiceLoad {
  /** μ, requests per second. */
  readonly capacity: number;
  /** m, the most requests in the system (including the one in service), an integer ≥ 1. */
  readonly queue: number;
  /**
   * The attempt-rejection law φ, by name or as a function. Default `mixed`.
   * @default 'mixed'
   */
  readonly model?: ModelName | Phi;
  /**
   * How the residual-time correction closes the fixed point (only used when a class has
   * `residualAlphas`). See {@link ResidualClosure}. Default `flow`.
   * @default 'flow'
   */
  readonly residualClosure?: ResidualClosure;
  readonly classes: readonly ServiceClassLoad[];
}

/**
 * How s is tied to the load when retries are rejected with s_r ≠ s (residual-time correction):
 *
 * - `attempt` (docs/design.md read literally): a first attempt is rejected with s = φ(ρ), ρ = ΣΛ/μ.
 *   Retries are rejected more often than s, so fewer attempts get in than φ assumes and the
 *   server's accepted flow Σ λ(1 − R) falls below what φ(ρ) implies: in overload this can
 *   predict a goodput far below the capacity the server actually delivers.
 * - `flow`: the fraction of *all* attempts that are rejected, s̄ = 1 − Σλ(1 − R)/ΣΛ, equals
 *   φ(ρ); s stays the rejection of a first attempt. Flow is conserved (in fluid overload the
 *   goodput is exactly μ, as in the independent model), and with α = 1 both closures are the
 *   independent model. This is the default: it tracks the simulator far better
 *   (docs/validation.md, section 3).
 */
export type ResidualClosure = 'flow' | 'attempt';

/** The per-class part of a {@link ServiceReport}. */
export interface ServiceClassReport {
  /** λ_p, original requests per second. */
  readonly arrivalRate: number;
  /** Λ_p, attempts per second. */
  readonly attempts: number;
  /** R_p, probability that a request is rejected on every attempt. */
  readonly rejection: number;
  /** E_p = λ_p (1 − R_p), requests per second that get through. */
  readonly goodput: number;
}

/** The solved state of one service. */
export interface ServiceReport {
  /** s, the probability that one attempt is rejected, in [0, 1). */
  readonly s: number;
  /** ρ = Σ Λ_p / μ, offered load counting every attempt. */
  readonly rho: number;
  readonly classes: readonly ServiceClassReport[];
  /** Evaluations of φ the root finder used. */
  readonly evaluations: number;
}

/**
 * Solves the single-service DiffTry model: the attempt-rejection probability s is the unique
 * root of s = φ(ρ(s)), ρ(s) = Σ_p λ_p A_p(s) / μ, where A_p is the attempts per request of class
 * p (see {@link retryFlow}). Uniqueness: equivalently the goodput Σ λ_p (1 − R_p(s)), falling in
 * s, meets the server's throughput, rising in s. Found by Brent's method on [0, 1] to
 * {@link FIXED_POINT_TOLERANCE}.
 * @see docs/design.md, "One service".
 * @example
 * ```ts
 * const report = solveService({
 *   capacity: 143, queue: 50, model: 'mixed',
 *   classes: [{ arrivalRate: 50, retryLimit: 5 }, { arrivalRate: 250, retryLimit: 1 }],
 * });
 * report.classes[0].rejection; // high class
 * ```
 */
export function solveService(load: ServiceLoad, tolerance = FIXED_POINT_TOLERANCE): ServiceReport {
  checkServiceLoad(load);
  const phi =
    typeof load.model === 'function' ? load.model : phiFor(load.model ?? 'mixed', load.queue);
  const { s, evaluations } = attemptRejection(
    phi,
    load.capacity,
    load.classes,
    load.residualClosure ?? 'flow',
    tolerance,
  );
  let attempts = 0;
  const reports = load.classes.map((c) => {
    const flow = retryFlow(s, c.retryLimit, c.residualAlphas);
    attempts += c.arrivalRate * flow.attemptsPerRequest;
    return {
      arrivalRate: c.arrivalRate,
      attempts: c.arrivalRate * flow.attemptsPerRequest,
      rejection: flow.rejection,
      goodput: c.arrivalRate * (1 - flow.rejection),
    };
  });
  return { s, rho: attempts / load.capacity, classes: reports, evaluations };
}

/**
 * The fixed point s = φ(ρ(s)) of one service, without input checks or a report: the inner loop
 * of the network solvers. Same method and tolerance as {@link solveService}.
 * @internal
 */
export function attemptRejection(
  phi: Phi,
  capacity: number,
  classes: readonly ServiceClassLoad[],
  closure: ResidualClosure,
  tolerance = FIXED_POINT_TOLERANCE,
): { s: number; evaluations: number } {
  let totalRate = 0;
  let corrected = false;
  for (const c of classes) {
    totalRate += c.arrivalRate;
    if (closure === 'flow' && (c.residualAlphas?.length ?? 0) > 0) corrected = true;
  }
  if (totalRate <= 0) return { s: 0, evaluations: 0 };
  const offeredLoad = (s: number): number => {
    let attempts = 0;
    for (const c of classes) {
      if (c.arrivalRate > 0)
        attempts += c.arrivalRate * attemptsPerRequest(s, c.retryLimit, c.residualAlphas);
    }
    return attempts / capacity;
  };
  // The rejected fraction of all attempts: s itself unless retries are rejected at s_r ≠ s.
  const rejectedFraction = (s: number): number => {
    if (!corrected) return s;
    // Rates enter as shares of the total so a tiny (even subnormal) rate keeps its precision.
    let attempts = 0;
    let accepted = 0;
    for (const c of classes) {
      if (c.arrivalRate <= 0) continue;
      const share = c.arrivalRate / totalRate;
      const flow = retryFlow(s, c.retryLimit, c.residualAlphas);
      attempts += share * flow.attemptsPerRequest;
      accepted += share * (1 - flow.rejection);
    }
    return attempts > 0 ? 1 - accepted / attempts : s;
  };
  // h(s) = s̄(s) − φ(ρ(s)): h(0) ≤ 0 and h(1) = 1 − φ(ρ(1)) > 0 because φ < 1 at finite load.
  const h = (s: number) => rejectedFraction(s) - phi(offeredLoad(s));
  let { root, evaluations } = brentRoot(h, 0, 1, tolerance);
  // In extreme overload 1 − s falls below the absolute tolerance, and goodput λ(1 − s^(k+1))
  // would keep no digits: refine on the last bracket to machine precision.
  if (1 - root < 1e-6) {
    const lo = Math.max(0, root - 2 * tolerance);
    if (h(lo) < 0) {
      const refined = brentRoot(h, lo, 1, 0);
      root = refined.root;
      evaluations += refined.evaluations;
    }
  }
  return { s: Math.min(Math.max(root, 0), 1), evaluations };
}

function checkServiceLoad(load: ServiceLoad): void {
  if (!(Number.isFinite(load.capacity) && load.capacity > 0)) {
    throw new InvalidArgumentError(
      `capacity should be a positive finite number (requests/s), got ${load.capacity}`,
    );
  }
  if (!(Number.isInteger(load.queue) && load.queue >= 1)) {
    throw new InvalidArgumentError(`queue should be an integer ≥ 1, got ${load.queue}`);
  }
  load.classes.forEach((c, p) => {
    if (!(Number.isFinite(c.arrivalRate) && c.arrivalRate >= 0)) {
      throw new InvalidArgumentError(
        `classes[${p}].arrivalRate should be a finite number ≥ 0, got ${c.arrivalRate}`,
      );
    }
    if (!(Number.isInteger(c.retryLimit) && c.retryLimit >= 0 && c.retryLimit <= 1000)) {
      throw new InvalidArgumentError(
        `classes[${p}].retryLimit should be an integer in [0, 1000], got ${c.retryLimit}`,
      );
    }
    for (const alpha of c.residualAlphas ?? []) {
      if (!(alpha >= 0 && alpha <= 1)) {
        throw new InvalidArgumentError(
          `classes[${p}].residualAlphas should lie in [0, 1], got ${alpha}`,
        );
      }
    }
  });
}
