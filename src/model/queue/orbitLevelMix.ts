import type { OrbitClass } from './OrbitClass.js';
import { levelMarginal } from './orbitMarginal.js';
import { type OrbitMix, orbitMix } from './orbitMix.js';

/**
 * The orbit's mix per level (`orbitQueue`'s `mix: 'level'`, docs/model.md "The orbit law"): at
 * level n, the mix of a population of requests that met that level's queue all along — each
 * class's failure probability there (the law π's queue at level n, fresh attempts and retries
 * alike; `failAt(p, L)` the chance an attempt of class p arriving at L fails), made into a mix.
 * A level with no mass to read (past the law's reach) takes the level below's.
 */
export function levelMixes(
  pi: readonly Float64Array[],
  classes: readonly OrbitClass[],
  failAt: (p: number, L: number) => number,
): OrbitMix[] {
  const classCount = classes.length;
  const out: OrbitMix[] = [];
  let previous: Float64Array | undefined;
  for (let n = 0; n < pi.length; n++) {
    const level = pi[n] as Float64Array;
    let mass = 0;
    for (const w of level) mass += w;
    let fail: Float64Array;
    if (mass > 0 && Number.isFinite(mass)) {
      fail = new Float64Array(classCount);
      for (let p = 0; p < classCount; p++) {
        let f = 0;
        for (let L = 0; L < level.length; L++) f += ((level[L] as number) / mass) * failAt(p, L);
        fail[p] = f;
      }
    } else {
      fail = previous ?? Float64Array.from(classes, (_, p) => failAt(p, 0));
    }
    previous = fail;
    out.push(orbitMix(classes, fail, fail));
  }
  return out;
}

/**
 * The largest change of a class's last-try share or retry rate (relative to the larger) between
 * two per-level mixes, over the levels holding more than 1e-9 of the peak level's mass.
 */
export function levelMixChange(
  before: readonly OrbitMix[],
  after: readonly OrbitMix[],
  pi: readonly Float64Array[],
): number {
  const marginal = levelMarginal(pi);
  let peak = 0;
  for (const w of marginal) peak = Math.max(peak, w);
  let most = 0;
  after.forEach((here, n) => {
    if (!((marginal[n] as number) > 1e-9 * peak)) return;
    const was = before[Math.min(n, before.length - 1)] as OrbitMix;
    for (let p = 0; p < here.rate.length; p++) {
      const rate = Math.max(here.rate[p] as number, was.rate[p] as number);
      most = Math.max(
        most,
        Math.abs((here.last[p] as number) - (was.last[p] as number)),
        rate > 0 ? Math.abs((here.rate[p] as number) - (was.rate[p] as number)) / rate : 0,
      );
    }
  });
  return most;
}
