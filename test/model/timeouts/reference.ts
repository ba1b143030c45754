/**
 * Independent references for the timeout-model tests: the bimodal law's closed forms, a sampler,
 * composite Simpson integration and a brute-force sequence optimum. Written apart from
 * src/model/timeouts (sums and loops, no shared helpers but `normalCdf`, which has its own
 * tests), so agreement means something.
 */

import type { RandomSource } from '../../../src/model/random.js';
import { normalCdf } from '../../../src/model/special.js';

/** A lognormal mixture given by medians, one σ and weights (the test's own closed forms). */
export interface MixtureSpec {
  readonly medians: readonly number[];
  readonly weights: readonly number[];
  readonly sigma: number;
}

/** The target law of docs/design.md's bimodal example: medians 0.1 s and 0.5 s, weights 0.7/0.3. */
export const BIMODAL: MixtureSpec = { medians: [0.1, 0.5], weights: [0.7, 0.3], sigma: 0.25 };

/** a(t) and b(t) of one attempt with timeout t under the mixture, with g(t) = c1·t. */
export function mixtureAttempt(spec: MixtureSpec, t: number, c1 = 0): { a: number; b: number } {
  const s = spec.sigma;
  let survival = 0;
  let partial = 0;
  spec.medians.forEach((median, i) => {
    const w = spec.weights[i] as number;
    const mu = Math.log(median);
    survival += w * (1 - normalCdf((Math.log(t) - mu) / s));
    partial += w * Math.exp(mu + (s * s) / 2) * normalCdf((Math.log(t) - mu - s * s) / s);
  });
  return { a: partial + t * survival + c1 * t, b: survival };
}

/** E_0 by the backward recursion, from a(t) and b(t) as plain numbers. */
export function recursionE0(attempts: readonly { a: number; b: number }[]): number {
  const last = attempts[attempts.length - 1] as { a: number; b: number };
  let E = last.a / (1 - last.b);
  for (let n = attempts.length - 2; n >= 0; n--) {
    const { a, b } = attempts[n] as { a: number; b: number };
    E = a + b * E;
  }
  return E;
}

/** E_0 of a sequence under the mixture. */
export function mixtureE0(spec: MixtureSpec, sequence: readonly number[], c1 = 0): number {
  return recursionE0(sequence.map((t) => mixtureAttempt(spec, t, c1)));
}

/** Draws from the mixture: pick a component, then Box–Muller. */
export function sampleMixture(spec: MixtureSpec, count: number, random: RandomSource): number[] {
  const draws: number[] = [];
  for (let k = 0; k < count; k++) {
    let u = random();
    let component = 0;
    while (component < spec.weights.length - 1 && u >= (spec.weights[component] as number)) {
      u -= spec.weights[component] as number;
      component++;
    }
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    draws.push((spec.medians[component] as number) * Math.exp(spec.sigma * normal));
  }
  return draws;
}

/** Composite Simpson's rule with `n` (even) panels. */
export function simpson(f: (x: number) => number, a: number, b: number, n = 20_000): number {
  const h = (b - a) / n;
  let sum = f(a) + f(b);
  for (let i = 1; i < n; i++) sum += (i % 2 === 1 ? 4 : 2) * f(a + i * h);
  return (sum * h) / 3;
}

/**
 * The least E_0 over increasing sequences t_0 < … < t_(depth−2) < tz, by brute force: every
 * increasing choice from `points` geometric grid points in [low, tz), then coordinate descent
 * (golden section on each free timeout near its value, within its neighbours) from the best grid sequence.
 */
export function bruteForceOptimum(
  spec: MixtureSpec,
  options: { depth: number; tz: number; c1?: number; low?: number; points?: number },
): { sequence: number[]; E0: number } {
  const { depth, tz } = options;
  const c1 = options.c1 ?? 0;
  const low = options.low ?? 0.02;
  const points = options.points ?? 120;
  const grid = Array.from({ length: points }, (_, k) => low * (tz / low) ** (k / points));
  const attempts = grid.map((t) => mixtureAttempt(spec, t, c1));
  const top = mixtureAttempt(spec, tz, c1);
  const topE = top.a / (1 - top.b);
  const free = depth - 1;
  let best = { E0: topE, indices: [] as number[] };
  const search = (level: number, indices: number[]): void => {
    if (level === free) {
      let E = topE;
      for (let n = free - 1; n >= 0; n--) {
        const { a, b } = attempts[indices[n] as number] as { a: number; b: number };
        E = a + b * E;
      }
      if (E < best.E0) best = { E0: E, indices: [...indices] };
      return;
    }
    const from = level === 0 ? 0 : (indices[level - 1] as number) + 1;
    for (let k = from; k < points - (free - level - 1); k++) {
      indices[level] = k;
      search(level + 1, indices);
    }
    indices.length = level;
  };
  search(0, []);
  const sequence = [...best.indices.map((k) => grid[k] as number), tz];
  let E0 = mixtureE0(spec, sequence, c1);
  for (let sweep = 0; sweep < 30; sweep++) {
    const before = E0;
    for (let n = 0; n < free; n++) {
      const lo = n === 0 ? low / 2 : (sequence[n - 1] as number);
      const hi = sequence[n + 1] as number;
      const at = (t: number) => {
        const trial = [...sequence];
        trial[n] = t;
        return mixtureE0(spec, trial, c1);
      };
      // Golden section near the current value only: E_0 is not unimodal in one timeout over
      // its whole range (another mode may sit between the neighbours).
      const current = sequence[n] as number;
      let a = Math.max(lo, current / 1.1);
      let b = Math.min(hi, current * 1.1);
      const r = (Math.sqrt(5) - 1) / 2;
      for (let i = 0; i < 80; i++) {
        const c = b - r * (b - a);
        const d = a + r * (b - a);
        if (at(c) < at(d)) b = d;
        else a = c;
      }
      const t = (a + b) / 2;
      if (at(t) < E0 && t > lo && t < hi) {
        sequence[n] = t;
        E0 = at(t);
      }
    }
    if (before - E0 < 1e-15) break;
  }
  return { sequence, E0 };
}
