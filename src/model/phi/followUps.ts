import { illinoisRoot } from '../numeric/illinois.js';

/**
 * The rejection of a *fresh* attempt at a service some of whose attempts are *follow-ups*: the
 * next of a caller's sequential calls to the same service, sent the moment the one before it
 * came back (docs/model.md, "Follow-up calls"). A follow-up arrives as its caller's attempt
 * leaves, so it never finds the queue fuller than that attempt left it: for the queue's length
 * the two are one job served twice, and a follow-up is never turned away. The fresh attempts
 * (first calls, retries, other callers) arrive as before.
 *
 * With the follow-ups' load ρ_f (follow-ups per second / μ) and the rest ρ_a = ρ − ρ_f, the
 * queue's length moves as under the law φ at the fresh attempts' work: each accepted fresh
 * attempt brings its own service and, on average, ρ_f / (ρ_a (1 − π)) follow-ups' more, so
 *
 *     π = φ(ρ_a + ρ_f / (1 − π)),
 *
 * π the share of fresh attempts rejected; the service's attempt rejection (every attempt) is
 * π ρ_a / ρ. Without follow-ups π = φ(ρ); in a saturated fluid queue the attempt rejection is
 * 1 − 1/ρ as before (the server's throughput does not change, only who is turned away). Where
 * the follow-ups alone would fill the server (ρ_f ≥ 1), every fresh attempt is rejected.
 *
 * π is the smallest root at or above φ(ρ) of g(π) = φ(ρ_a + ρ_f/(1 − π)) − π (the map is
 * increasing, so fixed-point steps from φ(ρ) stay below it): Steffensen's steps from below until
 * one passes the root, then Illinois false position in that bracket, to 1e-15 relative.
 * @param phi - the service's law φ, non-decreasing, below 1 for every finite load.
 * @param rho - offered load, every attempt (ρ ≥ 0).
 * @param followLoad - the follow-ups' part of it, ρ_f (clamped to [0, ρ]).
 * @returns π, the probability that a fresh attempt is rejected.
 */
export function freshRejection(
  phi: (rho: number) => number,
  rho: number,
  followLoad: number,
): number {
  if (!(followLoad > 0 && rho > 0) || rho === Number.POSITIVE_INFINITY) return phi(rho);
  const follow = Math.min(followLoad, rho);
  if (follow >= 1) return 1;
  const fresh = rho - follow;
  const gap = (pi: number) => (pi >= 1 ? 0 : phi(fresh + follow / (1 - pi))) - pi;
  // Steffensen's steps from below while they stay below the root (g ≥ 0 there); the first that
  // passes it brackets the root for false position.
  let low = phi(rho);
  let gLow = gap(low);
  for (let round = 0; round < MOST_ROUNDS; round++) {
    if (gLow <= TOLERANCE * (low + gLow)) return low + gLow;
    const a = low + gLow;
    const gA = gap(a);
    const curve = gA - gLow;
    // Aitken's point from low, a = T(low) and T(a); a plain step where the map is not convex.
    const jump = curve < 0 ? low - (gLow * gLow) / curve : a + gA;
    const high = Math.min(jump, 1 - Number.EPSILON);
    if (gA < 0) return illinoisRoot(gap, low, gLow, a, gA, TOLERANCE * a);
    const gHigh = gap(high);
    if (gHigh < 0) return illinoisRoot(gap, a, gA, high, gHigh, TOLERANCE * high);
    if (high <= a) {
      low = a;
      gLow = gA;
    } else {
      low = high;
      gLow = gHigh;
    }
  }
  return low;
}

/** Relative accuracy of π. */
const TOLERANCE = 1e-15;
/** At most this many rounds (three evaluations of φ each) before the bracket is found. */
const MOST_ROUNDS = 100;

/**
 * How much of a fresh attempt's rejection a follow-up meets when it comes a time D after the
 * attempt before it left the server, D exponential with mean `delay` (the called service's own
 * calls ran meanwhile): P(the M/M/1/m queue at load ρ is full at D | a departure at 0) / P_m,
 * from 0 (no delay: the place just freed is still free) towards 1 (long after: a fresh arrival).
 *
 * A departure leaves n behind with probability P_n / (1 − P_m), n < m, P_n ∝ ρ^n; the law at
 * an exponential time is that start times the resolvent, y = (I − D Q)^(−T) p₀, one tridiagonal
 * solve (Thomas, diagonally dominant: stable).
 * @param rho - offered load of the queue (> 0, finite).
 * @param m - its capacity.
 * @param delay - mean of D in mean service times (μ · E[D]).
 */
export function delayedFollowShare(rho: number, m: number, delay: number): number {
  if (!(delay > 0)) return 0;
  if (!(rho > 0) || !Number.isFinite(rho)) return 1;
  if (scratch.length < 2 * (m + 1)) scratch = new Float64Array(4 * (m + 1));
  const c = scratch;
  const y = scratch.subarray(m + 1);
  // The start P_n ∝ ρ^n, n < m, scaled so its largest term is 1 (ρ^(n − m + 1) above 1), and
  // the stationary P_m on the same scale.
  const ratio = rho <= 1 ? rho : 1 / rho;
  let total = 0;
  let weight = 1;
  if (rho <= 1) {
    for (let n = 0; n < m; n++) {
      y[n] = weight;
      total += weight;
      weight *= ratio;
    }
  } else {
    for (let n = m - 1; n >= 0; n--) {
      y[n] = weight;
      total += weight;
      weight *= ratio;
    }
  }
  const atTop = rho <= 1 ? (y[m - 1] as number) * rho : rho;
  const pm = atTop / (total + atTop);
  if (!(pm > 0)) return 0;
  // (I − D Q)ᵀ y = p₀, in place: row n has −ρD at n − 1, 1 + its rates at n, −D at n + 1.
  const up = rho * delay;
  y[m] = 0;
  for (let n = 0; n <= m; n++) {
    const below = n > 0 ? -up : 0;
    const pivot =
      1 + (n < m ? up : 0) + (n > 0 ? delay : 0) - (n > 0 ? below * (c[n - 1] as number) : 0);
    c[n] = n < m ? -delay / pivot : 0;
    const start = n < m ? (y[n] as number) / total : 0;
    y[n] = (start - (n > 0 ? below * (y[n - 1] as number) : 0)) / pivot;
  }
  for (let n = m - 1; n >= 0; n--)
    y[n] = (y[n] as number) - (c[n] as number) * (y[n + 1] as number);
  return Math.min(1, Math.max(0, (y[m] as number) / pm));
}

/** Work space of {@link delayedFollowShare}, grown as needed. */
let scratch = new Float64Array(256);
