import { denseLu } from './denseLu.js';
import { solveDense } from './solveDense.js';

/**
 * A level-dependent quasi-birth–death process on levels 0 … N, each with the same P phases: a
 * continuous-time Markov chain whose transitions move at most one level. Its generator is given
 * by blocks, each P × P, row-major in a Float64Array:
 * - `up(n)`: from level n to n + 1 (n < N; what would leave level N upwards is not asked for);
 * - `down(n)`: from level n to n − 1 (n ≥ 1);
 * - `within(n)`: between phases of level n, off-diagonal only (the diagonal is made here, as
 *   minus every rate out of the state, so the rows sum to zero).
 */
export interface LevelQbd {
  readonly phases: number;
  /** N, the highest level. */
  readonly levels: number;
  readonly up: (n: number) => Float64Array;
  readonly down: (n: number) => Float64Array;
  readonly within: (n: number) => Float64Array;
}

/** The stationary distribution of a {@link LevelQbd}: π_n per level, summing to 1. */
export interface LevelQbdSolution {
  readonly pi: readonly Float64Array[];
  /** ‖πQ‖₁ over the largest exit rate: how far π is from stationary. */
  readonly residual: number;
}

/**
 * The stationary distribution of a level-dependent QBD by linear level reduction (Gaver, Jacobs
 * and Latouche 1984): π_{n+1} = π_n R_n with R_{N−1} = U_{N−1}(−L_N)^(−1) and
 * R_{n−1} = U_{n−1}(−(L_n + R_n D_{n+1}))^(−1), from the top level down; then
 * π_0 (L_0 + R_0 D_1) = 0, normalised. One P × P solve per level, O(N P³), exact up to rounding.
 * @throws RangeError when a block is singular (a phase with no way out).
 */
export function solveLevelQbd(qbd: Readonly<LevelQbd>): LevelQbdSolution {
  const { phases: p, levels } = qbd;
  const size = p * p;
  const { ups, downs, locals } = qbdBlocks(qbd);
  // R_n for n = N − 1 … 0.
  const rs: Float64Array[] = new Array<Float64Array>(levels);
  let below: Float64Array | undefined;
  for (let n = levels; n >= 1; n--) {
    const m = Float64Array.from(locals[n] as Float64Array);
    if (below !== undefined) addProduct(m, below, downs[n + 1] as Float64Array, p);
    for (let k = 0; k < size; k++) m[k] = -(m[k] as number);
    below = rightSolve(ups[n - 1] as Float64Array, m, p);
    rs[n - 1] = below;
  }
  const base = Float64Array.from(locals[0] as Float64Array);
  if (levels > 0) addProduct(base, rs[0] as Float64Array, downs[1] as Float64Array, p);
  const pi0 = nullVector(base, p);
  const pi: Float64Array[] = [pi0];
  for (let n = 0; n < levels; n++)
    pi.push(rowTimes(pi[n] as Float64Array, rs[n] as Float64Array, p));
  let total = 0;
  for (const level of pi) for (const v of level) total += v;
  for (const level of pi) for (let i = 0; i < p; i++) level[i] = (level[i] as number) / total;

  let residual = 0;
  let fastest = 0;
  for (let n = 0; n <= levels; n++) {
    const flow = rowTimes(pi[n] as Float64Array, locals[n] as Float64Array, p);
    if (n > 0) addTo(flow, rowTimes(pi[n - 1] as Float64Array, ups[n - 1] as Float64Array, p));
    if (n < levels)
      addTo(flow, rowTimes(pi[n + 1] as Float64Array, downs[n + 1] as Float64Array, p));
    for (let i = 0; i < p; i++) {
      residual += Math.abs(flow[i] as number);
      fastest = Math.max(fastest, -((locals[n] as Float64Array)[i * p + i] as number));
    }
  }
  return { pi, residual: fastest > 0 ? residual / fastest : 0 };
}

/** A QBD's blocks per level: up (none at N), down (none at 0), and within with its diagonal. */
export interface QbdBlocks {
  readonly ups: readonly Float64Array[];
  readonly downs: readonly Float64Array[];
  /** L_n: `within(n)` with the diagonal made minus every rate out of the state. */
  readonly locals: readonly Float64Array[];
}

/** The blocks of every level of a {@link LevelQbd}, the diagonal made (see {@link LevelQbd}). */
export function qbdBlocks(qbd: Readonly<LevelQbd>): QbdBlocks {
  const { phases: p, levels } = qbd;
  const size = p * p;
  const ups: Float64Array[] = [];
  const downs: Float64Array[] = [];
  const locals: Float64Array[] = [];
  for (let n = 0; n <= levels; n++) {
    const up = n < levels ? qbd.up(n) : new Float64Array(size);
    const down = n > 0 ? qbd.down(n) : new Float64Array(size);
    const local = Float64Array.from(qbd.within(n));
    for (let i = 0; i < p; i++) {
      let out = 0;
      for (let j = 0; j < p; j++) {
        out += (up[i * p + j] as number) + (down[i * p + j] as number);
        if (j !== i) out += local[i * p + j] as number;
      }
      local[i * p + i] = -out;
    }
    ups.push(up);
    downs.push(down);
    locals.push(local);
  }
  return { ups, downs, locals };
}

/** target += a · b (P × P, row-major). */
export function addProduct(
  target: Float64Array,
  a: Float64Array,
  b: Float64Array,
  p: number,
): void {
  for (let i = 0; i < p; i++) {
    for (let k = 0; k < p; k++) {
      const v = a[i * p + k] as number;
      if (v === 0) continue;
      for (let j = 0; j < p; j++)
        target[i * p + j] = (target[i * p + j] as number) + v * (b[k * p + j] as number);
    }
  }
}

/** x · a for a row vector x. */
function rowTimes(x: Float64Array, a: Float64Array, p: number): Float64Array {
  const out = new Float64Array(p);
  for (let k = 0; k < p; k++) {
    const v = x[k] as number;
    if (v === 0) continue;
    for (let j = 0; j < p; j++) out[j] = (out[j] as number) + v * (a[k * p + j] as number);
  }
  return out;
}

function addTo(target: Float64Array, add: Float64Array): void {
  for (let i = 0; i < target.length; i++) target[i] = (target[i] as number) + (add[i] as number);
}

/** X = B M^(−1): row by row of X, Mᵀ xᵀ = (row of B)ᵀ, with one LU of Mᵀ. */
function rightSolve(b: Float64Array, m: Float64Array, p: number): Float64Array {
  const a = new Float64Array(p * p);
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) a[i * p + j] = m[j * p + i] as number;
  const lu = denseLu(a, p);
  if (lu === undefined)
    throw new RangeError('a block of the chain is singular: a phase has no way out');
  const x = new Float64Array(p * p);
  const y = new Float64Array(p);
  for (let row = 0; row < p; row++) {
    for (let i = 0; i < p; i++) y[i] = b[row * p + i] as number;
    lu.solve(y);
    x.set(y, row * p);
  }
  return x;
}

/** A row vector x ≥ 0 with x Q = 0 for a P × P generator-like Q of rank P − 1, summing to 1. */
function nullVector(q: Float64Array, p: number): Float64Array {
  // Qᵀ xᵀ = 0 with the last equation replaced by Σ x = 1.
  const a = new Float64Array(p * p);
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) a[i * p + j] = q[j * p + i] as number;
  for (let j = 0; j < p; j++) a[(p - 1) * p + j] = 1;
  const rhs = new Float64Array(p);
  rhs[p - 1] = 1;
  const x = solveDense(a, rhs, p);
  if (x === undefined) throw new RangeError('the chain has no unique stationary distribution');
  for (let i = 0; i < p; i++) x[i] = Math.max(0, x[i] as number);
  return x;
}
