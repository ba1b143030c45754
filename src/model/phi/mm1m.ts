import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { integerPower } from '../numeric/integerPower.js';
import type { Phi } from './Phi.js';

/**
 * From this distance |ρ − 1| on, {@link mm1mBlocking} takes ρ^m by binary powering: 1 − ρ and
 * 1 − ρ^(m+1) (1 − r^(m+1) above saturation, r = 1/ρ) are then at least 1/16 and 1/9.
 */
export const POWERS_FROM = 1 / 16;

/**
 * The M/M/1/m blocking probability P_m(ρ) = (1 − ρ) ρ^m / (1 − ρ^(m+1)), with P_m(1) = 1/(m+1).
 *
 * Computed stably for every ρ and m:
 * - |ρ − 1| ≥ 1/16: ρ^m by ⌊log₂ m⌋ squarings, and above saturation through r = 1/ρ,
 *   P = (1 − r)/(1 − r^(m+1)), so nothing overflows; relative error about (2 log₂ m + 12) ulps
 *   (a tenth of the cost of the logs below, which the call-graph sweeps spent a fifth of their
 *   time in);
 * - nearer saturation, with x = ln ρ: P = e^(mx) · expm1(x) / expm1((m+1)x) below 1 and
 *   expm1(−x) / expm1(−(m+1)x) above, full relative precision as ρ → 1 thanks to expm1.
 * @param m - system capacity (jobs in the system, including the one in service), an integer ≥ 1.
 */
export function mm1mBlocking(rho: number, m: number): number {
  if (rho <= 0) return 0;
  if (rho === 1) return 1 / (m + 1);
  if (rho === Number.POSITIVE_INFINITY) return 1;
  if (m <= MOST_SQUARED) {
    if (rho <= 1 - POWERS_FROM) {
      const power = integerPower(rho, m);
      return ((1 - rho) * power) / (1 - rho * power);
    }
    if (rho >= 1 + POWERS_FROM) {
      const r = 1 / rho;
      return (1 - r) / (1 - r * integerPower(r, m));
    }
  }
  const x = Math.log(rho);
  if (x === 0) return 1 / (m + 1);
  if (x < 0) return (Math.exp(m * x) * Math.expm1(x)) / Math.expm1((m + 1) * x);
  return Math.expm1(-x) / Math.expm1(-(m + 1) * x);
}

/** The largest m whose power is taken by squarings (its bits fit a 32-bit shift). */
const MOST_SQUARED = 2 ** 30;

/** The stationary law of the M/M/1/m queue at offered load ρ: P(L) ∝ ρ^L, L = 0 … m. */
export function mm1mQueueLaw(rho: number, m: number): Float64Array {
  const law = new Float64Array(m + 1);
  // From the larger end down, so a heavy load does not overflow: ρ^(L − m) when ρ > 1.
  const ratio = rho > 1 ? 1 / rho : rho;
  let term = 1;
  let sum = 0;
  for (let j = 0; j <= m; j++) {
    law[rho > 1 ? m - j : j] = term;
    sum += term;
    term *= ratio;
  }
  for (let L = 0; L <= m; L++) law[L] = (law[L] as number) / sum;
  return law;
}

/**
 * The mean number in an M/M/1/m system, L = ρ/(1 − ρ) − (m+1) ρ^(m+1)/(1 − ρ^(m+1)), m/2 at ρ = 1.
 * Used to validate the simulator against the exact queue.
 *
 * Computed without cancellation near ρ = 1: with x = ln ρ and g(y) = y/(1 − e^(−y)),
 * L = (g((m+1)x) − g(x))/x, and when |(m+1)x| < 1e-2 by its Taylor series
 * L = m/2 + ((m+1)² − 1)x/12 − ((m+1)⁴ − 1)x³/720 + ((m+1)⁶ − 1)x⁵/30240 (Bernoulli numbers).
 */
export function mm1mMeanInSystem(rho: number, m: number): number {
  if (rho <= 0) return 0;
  if (rho === Number.POSITIVE_INFINITY) return m;
  const x = Math.log(rho);
  const a = (m + 1) * x;
  if (Math.abs(a) < 1e-2) {
    const n = m + 1;
    const n2 = n * n;
    const x2 = x * x;
    return (
      m / 2 +
      ((n2 - 1) * x) / 12 -
      ((n2 * n2 - 1) * x * x2) / 720 +
      ((n2 * n2 * n2 - 1) * x * x2 * x2) / 30240
    );
  }
  return (bernoulliGenerating(a) - bernoulliGenerating(x)) / x;
}

/** g(y) = y/(1 − e^(−y)), 1 at y = 0; stable for large |y| of either sign. */
function bernoulliGenerating(y: number): number {
  if (y === 0) return 1;
  const denominator = -Math.expm1(-y);
  return Number.isFinite(denominator) ? y / denominator : 0;
}

/** The `mm1m` law for a service with system capacity m. */
export function mm1mPhi(m: number): Phi {
  checkQueue(m);
  return Object.assign((rho: number) => mm1mBlocking(rho, m), { model: 'mm1m' as const });
}

/** Throws a RangeError unless m is an integer ≥ 1. */
export function checkQueue(m: number): void {
  if (!(Number.isInteger(m) && m >= 1)) {
    throw new InvalidArgumentError(`queue (system capacity m) should be an integer ≥ 1, got ${m}`);
  }
}
