import { birthDeathFluctuation } from '../numeric/birthDeathFluctuation.js';
import type { LevelQbd } from '../numeric/levelQbd.js';
import type { OrbitClass } from './OrbitClass.js';
import { mixAt, type OrbitMix } from './orbitMix.js';

/** What {@link orbitFailedShare} reads one state of the orbit law from. */
export interface OrbitFailedShareInput {
  /** The law: per orbit level, the probability of each queue length L = 0 … m. */
  readonly pi: readonly Float64Array[];
  /** What the orbit moves on (the chain, or the dispersed law's one-phase walk). */
  readonly walk: LevelQbd;
  /** The state's levels, [from, to]. */
  readonly from: number;
  readonly to: number;
  readonly classes: readonly OrbitClass[];
  /** The orbit's mix the law was solved with. */
  readonly mix: OrbitMix;
  /** f_p(L): the probability an attempt of class p arriving at queue length L fails. */
  readonly failAt: (p: number, L: number) => number;
}

/**
 * How the share of a class's ending requests that fail swings within one state of the orbit law.
 * `share` is the state's give-ups over its ending requests; `variance` and `asymptoticVariance`
 * are those of h(n) = (g(n) − share · c(n)) / c̄, the ratio's swing to first order, so that a
 * window's failed share scatters about `share` by `windowAverageVariance` of them.
 */
export interface OrbitFailedShare {
  readonly share: number;
  readonly variance: number;
  readonly asymptoticVariance: number;
}

/**
 * How each class's failed share swings in one state of the orbit law. At orbit level n, with
 * f̄_p(n) the failure probability of the class's attempts over the level's queue law and
 * r_p(n) = n v_p its retries per second: requests give up at g(n) = r_p(n) ℓ_p f̄_p(n) (ℓ_p the
 * share of last tries; λ_p f̄_p(n) for a class that does not retry) and succeed at
 * s(n) = (λ_p + r_p(n))(1 − f̄_p(n)), so end at c(n) = g(n) + s(n); a window's failed share is
 * ∫g / ∫c over it. The level moves as the orbit's birth–death walk with the queue folded in:
 * births b_n, the chain's upward rates averaged over the level's queue law (the level marginal
 * keeps its balance across every level).
 */
export function orbitFailedShare(input: OrbitFailedShareInput): OrbitFailedShare[] {
  const { pi, walk, from, to, classes, mix, failAt } = input;
  const levels = to - from + 1;
  const mass = new Float64Array(levels);
  const births = new Float64Array(levels);
  const giveUps = classes.map(() => new Float64Array(levels));
  const endings = classes.map(() => new Float64Array(levels));
  for (let n = from; n <= to; n++) {
    const level = pi[n] as Float64Array;
    const phases = level.length;
    let pn = 0;
    for (const w of level) pn += w;
    const i = n - from;
    mass[i] = pn;
    if (!(pn > 0)) continue;
    if (n < walk.levels) births[i] = levelBirthRate(walk, n, level, pn);
    const here = mixAt(mix, n);
    classes.forEach((entry, p) => {
      let failing = 0;
      for (let L = 0; L < phases; L++) failing += ((level[L] as number) / pn) * failAt(p, L);
      const retries = entry.retryLimit === 0 ? 0 : n * (here.rate[p] as number);
      const g =
        entry.retryLimit === 0
          ? entry.arrivalRate * failing
          : retries * (here.last[p] as number) * failing;
      (giveUps[p] as Float64Array)[i] = g;
      (endings[p] as Float64Array)[i] = g + (entry.arrivalRate + retries) * (1 - failing);
    });
  }
  let total = 0;
  for (const w of mass) total += w;
  return classes.map((_, p) => {
    const g = giveUps[p] as Float64Array;
    const c = endings[p] as Float64Array;
    let meanG = 0;
    let meanC = 0;
    for (let i = 0; i < levels; i++) {
      meanG += ((mass[i] as number) / total) * (g[i] as number);
      meanC += ((mass[i] as number) / total) * (c[i] as number);
    }
    if (!(meanC > 0)) return { share: 0, variance: 0, asymptoticVariance: 0 };
    const share = meanG / meanC;
    const h = g.map((x, i) => (x - share * (c[i] as number)) / meanC);
    const { variance, asymptoticVariance } = birthDeathFluctuation(mass, births, h);
    return { share, variance, asymptoticVariance };
  });
}

/** The walk's rate from level n upwards, averaged over the level's queue law. */
function levelBirthRate(walk: LevelQbd, n: number, level: Float64Array, pn: number): number {
  const up = walk.up(n);
  if (walk.phases === 1) return up[0] as number;
  let rate = 0;
  for (let L = 0; L < walk.phases; L++) {
    let row = 0;
    for (let K = 0; K < walk.phases; K++) row += up[L * walk.phases + K] as number;
    rate += ((level[L] as number) / pn) * row;
  }
  return rate;
}
