import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
/**
 * How much the time average of a function of a birth–death walk's level swings: the walk on
 * levels 0 … N with stationary law π_n and birth rates b_n (n → n + 1; its death rates are those
 * that balance them, π_{n+1} d_{n+1} = π_n b_n), and a value f_n read at each level.
 */
export interface BirthDeathFluctuation {
  /** f̄ = Σ π_n f_n. */
  readonly mean: number;
  /** V = Σ π_n (f_n − f̄)²: the spread of f at one instant. */
  readonly variance: number;
  /**
   * σ² = lim_{W→∞} W · Var((1/W) ∫_0^W f dt): the spread of long averages, here
   * 2 Σ_{n<N} F_n² / (π_n b_n) with F_n = Σ_{j≤n} π_j (f_j − f̄) (the Poisson equation of a
   * birth–death walk solved level by level).
   */
  readonly asymptoticVariance: number;
}

/**
 * The mean, instantaneous variance and asymptotic variance of f on a birth–death walk (see
 * {@link BirthDeathFluctuation}). π need not be normalised; levels with π_n b_n = 0 cut the walk
 * (no flow crosses there) and add nothing. F_n is summed from whichever end holds less mass, so
 * a level far out in a tail (π_n b_n near underflow) is not divided into rounding error.
 * @throws RangeError when the arrays differ in length, are empty, or π has no mass.
 * @example
 * ```ts
 * // Two levels, 0 → 1 at a, 1 → 0 at b, f = level: σ² = 2ab / (a + b)³.
 * birthDeathFluctuation([b, a], [a, 0], [0, 1]).asymptoticVariance; // 2ab / (a + b)³
 * ```
 */
export function birthDeathFluctuation(
  pi: ArrayLike<number>,
  births: ArrayLike<number>,
  f: ArrayLike<number>,
): BirthDeathFluctuation {
  const levels = pi.length;
  if (levels === 0 || births.length !== levels || f.length !== levels)
    throw new InvalidArgumentError(
      'π, the birth rates and f should be one value per level, at least one',
    );
  let mass = 0;
  for (let n = 0; n < levels; n++) mass += pi[n] as number;
  if (!(mass > 0)) throw new InvalidArgumentError('π should have some mass');
  let mean = 0;
  for (let n = 0; n < levels; n++) mean += ((pi[n] as number) / mass) * (f[n] as number);
  let variance = 0;
  for (let n = 0; n < levels; n++)
    variance += ((pi[n] as number) / mass) * ((f[n] as number) - mean) ** 2;
  // F_n from below (prefix) and from above (−suffix), and the mass each side.
  const fromBelow = new Float64Array(levels);
  const massBelow = new Float64Array(levels);
  let sum = 0;
  let below = 0;
  for (let n = 0; n < levels; n++) {
    const w = (pi[n] as number) / mass;
    sum += w * ((f[n] as number) - mean);
    below += w;
    fromBelow[n] = sum;
    massBelow[n] = below;
  }
  let asymptoticVariance = 0;
  let above = 0;
  let fromAbove = 0;
  for (let n = levels - 1; n >= 0; n--) {
    // Here `fromAbove` is Σ_{j>n} π_j (f_j − f̄), `above` the mass over n.
    const flow = ((pi[n] as number) / mass) * (births[n] as number);
    if (n < levels - 1 && flow > 0) {
      const F = (massBelow[n] as number) <= above ? (fromBelow[n] as number) : -fromAbove;
      asymptoticVariance += (2 * F * F) / flow;
    }
    const w = (pi[n] as number) / mass;
    fromAbove += w * ((f[n] as number) - mean);
    above += w;
  }
  return { mean, variance, asymptoticVariance };
}

/**
 * The variance of the average of f over a window of `seconds`, for a fluctuation whose
 * correlation decays as one exponential with the time τ = σ² / (2V) that gives its asymptotic
 * variance: 2Vτ/W · (1 − (τ/W)(1 − e^(−W/τ))). V for a window far shorter than τ, σ²/W for one
 * far longer; exact for a two-level walk.
 * @throws RangeError for a window of no length.
 */
export function windowAverageVariance(
  fluctuation: Pick<BirthDeathFluctuation, 'variance' | 'asymptoticVariance'>,
  seconds: number,
): number {
  if (!(seconds > 0))
    throw new InvalidArgumentError(`the window should last > 0 s, got ${seconds}`);
  const { variance, asymptoticVariance } = fluctuation;
  if (!(variance > 0) || !(asymptoticVariance > 0)) return 0;
  const tau = asymptoticVariance / (2 * variance);
  const x = seconds / tau;
  // 1 − (1 − e^(−x))/x, by its series where x is small (cancellation).
  const kept = x < 1e-4 ? x / 2 - (x * x) / 6 : 1 + Math.expm1(-x) / x;
  return ((2 * variance) / x) * kept;
}
