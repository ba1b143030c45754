import { denseLu } from './denseLu.js';
import { type LevelQbd, qbdBlocks } from './levelQbd.js';

/**
 * The mean time for a {@link LevelQbd} to first reach level `target` from each state on one side
 * of it: `up` from the levels 0 … target − 1, `down` from target + 1 … N. h_n (one entry per
 * phase) solves D_n h_{n−1} + L_n h_n + U_n h_{n+1} = −1 with h = 0 at the target, by block
 * elimination from the far end towards the target (h_n = A_n h_{n+1} + b_n, one P × P
 * factorisation per level, O(levels · P³)). Returns h per level, indexed by level (the levels
 * not on that side are undefined), in the generator's time unit.
 * @throws RangeError for a target outside 0 … N (or with no level on that side), or when a block
 *   is singular (a phase that never reaches the target).
 */
export function levelQbdHittingTimes(
  qbd: Readonly<LevelQbd>,
  target: number,
  direction: 'up' | 'down',
): (Float64Array | undefined)[] {
  const { phases: p, levels } = qbd;
  const count = direction === 'up' ? target : levels - target;
  if (!Number.isInteger(target) || target < 0 || target > levels || count < 1) {
    throw new RangeError(
      `the target level should be an integer in 1 … ${levels} going up or 0 … ${levels - 1} going down, got ${target}`,
    );
  }
  const { ups, downs, locals } = qbdBlocks(qbd);
  // k = 0 is the level farthest from the target, k = count − 1 the one next to it.
  const levelOf = (k: number) => (direction === 'up' ? k : levels - k);
  const toward = (n: number) => (direction === 'up' ? ups[n] : downs[n]) as Float64Array;
  const away = (n: number) => (direction === 'up' ? downs[n] : ups[n]) as Float64Array;
  const as: Float64Array[] = [];
  const bs: Float64Array[] = [];
  for (let k = 0; k < count; k++) {
    const n = levelOf(k);
    const m = Float64Array.from(locals[n] as Float64Array);
    const rhs = new Float64Array(p).fill(-1);
    if (k > 0) {
      const w = away(n);
      const previousA = as[k - 1] as Float64Array;
      const previousB = bs[k - 1] as Float64Array;
      for (let i = 0; i < p; i++) {
        for (let l = 0; l < p; l++) {
          const v = w[i * p + l] as number;
          if (v === 0) continue;
          rhs[i] = (rhs[i] as number) - v * (previousB[l] as number);
          for (let j = 0; j < p; j++)
            m[i * p + j] = (m[i * p + j] as number) + v * (previousA[l * p + j] as number);
        }
      }
    }
    const lu = denseLu(m, p);
    if (lu === undefined)
      throw new RangeError(
        `a block of the chain is singular at level ${n}: a phase never reaches level ${target}`,
      );
    lu.solve(rhs);
    bs.push(rhs);
    // A_k = −M⁻¹ T, column by column.
    const t = toward(n);
    const a = new Float64Array(p * p);
    const column = new Float64Array(p);
    for (let j = 0; j < p; j++) {
      let any = false;
      for (let i = 0; i < p; i++) {
        column[i] = -(t[i * p + j] as number);
        if (column[i] !== 0) any = true;
      }
      if (!any) continue;
      lu.solve(column);
      for (let i = 0; i < p; i++) a[i * p + j] = column[i] as number;
    }
    as.push(a);
  }
  const out: (Float64Array | undefined)[] = new Array(levels + 1).fill(undefined);
  // The level next to the target: h = b (h at the target is 0); then back out.
  let next = new Float64Array(p);
  for (let k = count - 1; k >= 0; k--) {
    const a = as[k] as Float64Array;
    const h = Float64Array.from(bs[k] as Float64Array);
    if (k < count - 1) {
      for (let i = 0; i < p; i++) {
        let v = 0;
        for (let j = 0; j < p; j++) v += (a[i * p + j] as number) * (next[j] as number);
        h[i] = (h[i] as number) + v;
      }
    }
    out[levelOf(k)] = h;
    next = h;
  }
  return out;
}

/**
 * The mean of the hitting times `h` (from {@link levelQbdHittingTimes}) over the law `pi`
 * restricted to the levels `h` is given on: the mean time to reach the target from that part of
 * the law, conditioned on starting there.
 */
export function meanHittingTime(
  pi: readonly Float64Array[],
  h: readonly (Float64Array | undefined)[],
): number {
  let mass = 0;
  let sum = 0;
  h.forEach((times, n) => {
    const level = pi[n];
    if (times === undefined || level === undefined) return;
    for (let i = 0; i < times.length; i++) {
      mass += level[i] as number;
      sum += (level[i] as number) * (times[i] as number);
    }
  });
  return mass > 0 ? sum / mass : Number.NaN;
}
