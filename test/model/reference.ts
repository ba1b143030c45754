/**
 * Independent reference implementations for the model tests. Each one is written a different way
 * from the code under test (sum forms instead of expm1 ratios, bisection instead of Brent,
 * composite Simpson instead of adaptive Simpson) so that agreement means something.
 */
import { expect } from 'vitest';

/** Neumaier-compensated sum of the terms, for long sums of positive numbers. */
export function compensatedSum(terms: Iterable<number>): number {
  let sum = 0;
  let compensation = 0;
  for (const term of terms) {
    const next = sum + term;
    compensation += Math.abs(sum) >= Math.abs(term) ? sum - next + term : term - next + sum;
    sum = next;
  }
  return sum + compensation;
}

function* range(from: number, to: number): Generator<number> {
  for (let j = from; j <= to; j++) yield j;
}

/**
 * M/M/1/m blocking by the sum form P_m = ρ^m / Σ_{j=0..m} ρ^j; for ρ > 1 divided through by ρ^m,
 * P_m = 1 / Σ_{j=0..m} ρ^(−j), so nothing overflows. O(m): for m up to a few thousand.
 */
export function mm1mReference(rho: number, m: number): number {
  if (rho <= 0) return 0;
  if (rho <= 1) return rho ** m / compensatedSum([...range(0, m)].map((j) => rho ** j));
  return 1 / compensatedSum([...range(0, m)].map((j) => rho ** -j));
}

/** Mean number in an M/M/1/m system, Σ j ρ^j / Σ ρ^j (scaled by ρ^(−m) when ρ > 1). */
export function meanInSystemReference(rho: number, m: number): number {
  const scale = rho > 1 ? m : 0;
  const weights = [...range(0, m)].map((j) => rho ** (j - scale));
  return compensatedSum(weights.map((w, j) => j * w)) / compensatedSum(weights);
}

/** max(0, 1 − 1/ρ). */
export function fluidReference(rho: number): number {
  return Math.max(0, 1 - 1 / rho);
}

/** docs/design.md's mixed law: mm1m for ρ ≤ 1, max(1 − 1/ρ, 1/(m+1)) above. */
export function mixedReference(rho: number, m: number): number {
  return rho <= 1 ? mm1mReference(rho, m) : Math.max(1 - 1 / rho, 1 / (m + 1));
}

export type ReferenceModel = 'fluid' | 'mm1m' | 'mixed';

export function phiReference(model: ReferenceModel, rho: number, m: number): number {
  if (model === 'fluid') return fluidReference(rho);
  if (model === 'mm1m') return mm1mReference(rho, m);
  return mixedReference(rho, m);
}

/**
 * Attempts per request with independent attempts: (1 − s^(k+1)) / (1 − s) while 1 − s is not
 * small, else the plain sum Σ_{j=0..k} s^j (evaluated from the highest power down).
 */
export function attemptsReference(s: number, k: number): number {
  if (s < 0.5) return (1 - s ** (k + 1)) / (1 - s);
  let sum = 0;
  for (let j = k; j >= 0; j--) sum += s ** j;
  return sum;
}

/** docs/design.md residual correction with one α: Λ/λ = 1 + s Σ_{j<k} s_r^j and R = s s_r^k. */
export function residualFlowReference(
  s: number,
  k: number,
  alpha: number,
): { attemptsPerRequest: number; rejection: number } {
  const sr = 1 - alpha + alpha * s;
  let geometric = 0;
  for (let j = 0; j < k; j++) geometric += sr ** j;
  return { attemptsPerRequest: 1 + s * geometric, rejection: s * sr ** k };
}

/**
 * Bisection for an increasing function on [lo, hi] (g(lo) ≤ 0 ≤ g(hi)): 200 halvings, so the
 * answer is the floating-point root up to the last bit.
 */
export function bisectIncreasing(g: (x: number) => number, lo: number, hi: number): number {
  let a = lo;
  let b = hi;
  if (g(a) >= 0) return a;
  for (let i = 0; i < 200; i++) {
    const mid = (a + b) / 2;
    if (mid <= a || mid >= b) break;
    if (g(mid) < 0) a = mid;
    else b = mid;
  }
  return (a + b) / 2;
}

export interface ReferenceClass {
  readonly arrivalRate: number;
  readonly retryLimit: number;
  readonly alpha?: number;
}

/** Offered load ρ(s) = Σ λ_p A_p(s) / μ with the reference attempts formulas. */
export function offeredLoadReference(
  s: number,
  capacity: number,
  classes: readonly ReferenceClass[],
): number {
  let attempts = 0;
  for (const c of classes) {
    const perRequest =
      c.alpha === undefined
        ? attemptsReference(s, c.retryLimit)
        : residualFlowReference(s, c.retryLimit, c.alpha).attemptsPerRequest;
    attempts += c.arrivalRate * perRequest;
  }
  return attempts / capacity;
}

/**
 * The rejected fraction of all attempts, s̄ = 1 − Σ λ_p (1 − R_p) / Σ Λ_p (the `flow` closure of
 * the residual-time correction); s itself for classes without α or when nothing is offered.
 */
export function rejectedFractionReference(s: number, classes: readonly ReferenceClass[]): number {
  if (classes.every((c) => c.alpha === undefined)) return s;
  let attempts = 0;
  let accepted = 0;
  for (const c of classes) {
    if (c.arrivalRate <= 0) continue;
    const flow =
      c.alpha === undefined
        ? {
            attemptsPerRequest: attemptsReference(s, c.retryLimit),
            rejection: s ** (c.retryLimit + 1),
          }
        : residualFlowReference(s, c.retryLimit, c.alpha);
    attempts += c.arrivalRate * flow.attemptsPerRequest;
    accepted += c.arrivalRate * (1 - flow.rejection);
  }
  return attempts > 0 ? 1 - accepted / attempts : s;
}

/**
 * h(s) whose root is the fixed point: s − φ(ρ(s)) (`attempt` closure, and the independent model)
 * or s̄(s) − φ(ρ(s)) (`flow` closure), from the reference formulas.
 */
export function fixedPointResidual(
  model: ReferenceModel,
  capacity: number,
  queue: number,
  classes: readonly ReferenceClass[],
  closure: 'attempt' | 'flow' = 'attempt',
): (s: number) => number {
  return (s) =>
    (closure === 'flow' ? rejectedFractionReference(s, classes) : s) -
    phiReference(model, offeredLoadReference(s, capacity, classes), queue);
}

/**
 * The independent fixed point by bisection on {@link fixedPointResidual}. Bisection keeps
 * h(lo) < 0 ≤ h(hi), so it returns a root even where the `attempt` closure has several.
 */
export function solveReference(
  model: ReferenceModel,
  capacity: number,
  queue: number,
  classes: readonly ReferenceClass[],
  closure: 'attempt' | 'flow' = 'attempt',
): number {
  return bisectIncreasing(fixedPointResidual(model, capacity, queue, classes, closure), 0, 1);
}

/**
 * How far a computed root s of h may honestly lie from the exact one: Brent's 1.1e-12 plus the
 * width of the band where |h| is below its rounding noise (~4e-15), 4e-15/|h'(s)|. Near a
 * critical load (fluid, λ ≈ μ) h is flat at its root and that band is wide; the slope is
 * estimated by a chord over ±1e-7 and floored at 4e-9 (so the band is at most 1e-6).
 */
export function rootSlack(h: (s: number) => number, s: number): number {
  const lo = Math.max(0, s - 1e-7);
  const hi = Math.min(1, s + 1e-7);
  const slope = Math.abs((h(hi) - h(lo)) / (hi - lo));
  return 1.1e-12 + 4e-15 / Math.max(slope, 4e-9);
}

/** Composite Simpson rule with n (even) panels, summed with Neumaier compensation. */
export function simpson(f: (x: number) => number, a: number, b: number, n = 20_000): number {
  const panels = n % 2 === 0 ? n : n + 1;
  const h = (b - a) / panels;
  let sum = 0;
  let compensation = 0;
  for (let i = 0; i <= panels; i++) {
    const weight = i === 0 || i === panels ? 1 : i % 2 === 1 ? 4 : 2;
    const term = weight * f(a + i * h);
    const next = sum + term;
    compensation += Math.abs(sum) >= Math.abs(term) ? sum - next + term : term - next + sum;
    sum = next;
  }
  return ((sum + compensation) * h) / 3;
}

/** Standard normal density. */
export function normalPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

/**
 * Asserts |actual − expected| ≤ abs + rel·|expected|, printing every input, the values and the
 * tolerance when it fails.
 */
export function expectClose(
  actual: number,
  expected: number,
  tolerance: { readonly rel?: number; readonly abs?: number },
  inputs: unknown,
): void {
  const allowed = (tolerance.abs ?? 0) + (tolerance.rel ?? 0) * Math.abs(expected);
  const message = `inputs ${JSON.stringify(inputs)}: got ${actual}, expected ${expected} ± ${allowed}`;
  expect(Number.isFinite(actual), message).toBe(true);
  expect(Math.abs(actual - expected), message).toBeLessThanOrEqual(allowed);
}

/** Sample mean and squared coefficient of variation. */
export function meanAndScv(values: readonly number[]): { mean: number; scv: number } {
  const mean = compensatedSum(values) / values.length;
  const variance = compensatedSum(values.map((v) => (v - mean) ** 2)) / (values.length - 1);
  return { mean, scv: variance / (mean * mean) };
}

/** Balanced-means H2 parameters, from Whitt (1982), written out here independently. */
export function h2Parameters(mean: number, scv: number) {
  const p1 = 0.5 * (1 + Math.sqrt((scv - 1) / (scv + 1)));
  const p2 = 1 - p1;
  // Balanced means: p1/μ1 = p2/μ2 = mean/2.
  return { p1, p2, rate1: (2 * p1) / mean, rate2: (2 * p2) / mean };
}

/** Lognormal parameters: σ² = ln(1 + scv), μ = ln(mean) − σ²/2. */
export function lognormalParameters(mean: number, scv: number) {
  const sigma = Math.sqrt(Math.log(1 + scv));
  return { sigma, mu: Math.log(mean) - (sigma * sigma) / 2 };
}

/**
 * E[g(S)] for a lognormal S = e^(μ + σZ), by composite Simpson over Z in [−12, 12], split at
 * `kink` (in z) when g has a kink there. Independent of erfc.
 */
export function lognormalExpectation(
  mean: number,
  scv: number,
  g: (s: number) => number,
  kink?: number,
): number {
  const { sigma, mu } = lognormalParameters(mean, scv);
  const integrand = (z: number) => g(Math.exp(mu + sigma * z)) * normalPdf(z);
  if (kink === undefined || kink <= -12 || kink >= 12) return simpson(integrand, -12, 12, 20_000);
  return simpson(integrand, -12, kink, 20_000) + simpson(integrand, kink, 12, 20_000);
}

/** F_e(x) = E[min(S, x)] / E[S] for a lognormal, in z-space. */
export function lognormalResidualCdf(mean: number, scv: number, x: number): number {
  const { sigma, mu } = lognormalParameters(mean, scv);
  const kink = (Math.log(x) - mu) / sigma;
  return lognormalExpectation(mean, scv, (s) => Math.min(s, x), kink) / mean;
}
