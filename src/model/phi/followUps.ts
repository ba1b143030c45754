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
