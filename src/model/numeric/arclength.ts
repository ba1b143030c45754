import { newtonKrylov } from './newtonKrylov.js';

/**
 * Pseudo-arclength continuation of the solutions of F(x, θ) = 0 from θ_start to θ = θ_end (up
 * or down).
 * A natural continuation in θ stops where the branch of solutions turns back (a fold: the state
 * the load was following ceases to exist); following the branch by its arclength instead goes
 * round the fold, so the branch that starts at θ_start always reaches θ_end when it gets there
 * at all, possibly on a part of it that is unstable.
 *
 * Each step predicts along the secant tangent t of the last two points and corrects with
 * Newton–Krylov on [F(x, θ); t · (y − y_predicted)] = 0, y = (x, θ); a step whose corrector fails
 * is halved, a step that succeeds lets the next grow by half.
 * @see E. L. Allgower and K. Georg, "Introduction to Numerical Continuation Methods" (SIAM, 2003),
 *   ch. 2; H. B. Keller, "Numerical solution of bifurcation and nonlinear eigenvalue problems"
 *   (1977).
 */
export interface ArclengthOptions {
  /** max |F| at an accepted point. */
  readonly tolerance: number;
  /** The parameter to reach. */
  readonly end: number;
  /** First step, in the Euclidean norm of (x, θ). @default 0.05 */
  readonly step?: number;
  /** Smallest step before giving up. @default 1e-7 */
  readonly minStep?: number;
  /** Largest step. @default 0.5 */
  readonly maxStep?: number;
  /** Most residual evaluations in all. @default 20000 */
  readonly maxEvaluations?: number;
  /** Projects x back into its domain, in place. */
  readonly project?: (x: Float64Array) => void;
}

/** What {@link continueByArclength} reached. */
export interface ArclengthResult {
  /** Whether a solution at θ = end was found. */
  readonly reached: boolean;
  /** Residual evaluations used. */
  readonly evaluations: number;
  /** Parameter values at which the branch turned (θ stopped rising, or started again). */
  readonly folds: readonly number[];
  /** max |F(x, end)| at the returned x. */
  readonly residual: number;
}

/**
 * Follows the solution branch through (x0, θ0) and (x1, θ1) — two nearby solutions, θ1 nearer
 * the end — until θ = `end`; writes the solution there into `x`.
 * @param residual - writes F(x, θ) into `out`.
 */
export function continueByArclength(
  x: Float64Array,
  first: { readonly x: Float64Array; readonly theta: number },
  second: { readonly x: Float64Array; readonly theta: number },
  residual: (x: Float64Array, theta: number, out: Float64Array) => void,
  options: ArclengthOptions,
): ArclengthResult {
  const n = x.length;
  const minStep = options.minStep ?? 1e-7;
  const maxStep = options.maxStep ?? 0.5;
  const maxEvaluations = options.maxEvaluations ?? 20_000;
  const project = options.project ?? (() => {});
  let step = options.step ?? 0.05;
  let evaluations = 0;
  const point = new Float64Array(n + 1);
  const previous = new Float64Array(n + 1);
  const tangent = new Float64Array(n + 1);
  const predicted = new Float64Array(n + 1);
  const trial = new Float64Array(n + 1);
  const xs = new Float64Array(n);
  const fx = new Float64Array(n);
  previous.set(first.x);
  previous[n] = first.theta;
  point.set(second.x);
  point[n] = second.theta;
  const setTangent = () => {
    let norm = 0;
    for (let i = 0; i <= n; i++) {
      tangent[i] = (point[i] as number) - (previous[i] as number);
      norm += (tangent[i] as number) ** 2;
    }
    norm = Math.sqrt(norm);
    for (let i = 0; i <= n; i++) tangent[i] = (tangent[i] as number) / norm;
  };
  setTangent();
  const folds: number[] = [];
  // +1 when the end lies above the start, −1 below: "towards the end" is direction · θ rising.
  const direction = options.end >= second.theta ? 1 : -1;
  const before = (theta: number) => direction * (options.end - theta) > 0;
  let rising = (tangent[n] as number) > 0;
  const augmented = (y: Float64Array, out: Float64Array) => {
    xs.set(y.subarray(0, n));
    residual(xs, y[n] as number, fx);
    out.set(fx);
    let constraint = 0;
    for (let i = 0; i <= n; i++)
      constraint += (tangent[i] as number) * ((y[i] as number) - (predicted[i] as number));
    out[n] = constraint;
  };
  const projectY = (y: Float64Array) => {
    xs.set(y.subarray(0, n));
    project(xs);
    y.set(xs);
  };
  while (evaluations < maxEvaluations && before(point[n] as number)) {
    // A step that would pass θ = end is cut to land on it, so the last point is close to end.
    const rate = tangent[n] as number;
    if (direction * rate > 0 && !before((point[n] as number) + step * rate))
      step = Math.max(minStep, (options.end - (point[n] as number)) / rate);
    for (let i = 0; i <= n; i++)
      predicted[i] = (point[i] as number) + step * (tangent[i] as number);
    trial.set(predicted);
    const corrected = newtonKrylov(trial, augmented, {
      tolerance: options.tolerance,
      maxEvaluations: Math.min(400, maxEvaluations - evaluations),
      project: projectY,
    });
    evaluations += corrected.evaluations;
    if (!corrected.converged) {
      step /= 2;
      if (step < minStep) break;
      continue;
    }
    previous.set(point);
    point.set(trial);
    setTangent();
    const nowRising = (tangent[n] as number) > 0;
    if (nowRising !== rising) folds.push(point[n] as number);
    rising = nowRising;
    step = Math.min(maxStep, step * 1.5);
  }
  if (before(point[n] as number)) {
    x.set(point.subarray(0, n));
    return { reached: false, evaluations, folds, residual: Number.POSITIVE_INFINITY };
  }
  // The last step landed on (or just past) θ = end: solve there from the interpolated point.
  const span = (point[n] as number) - (previous[n] as number);
  const w = span !== 0 ? ((point[n] as number) - options.end) / span : 0;
  for (let i = 0; i < n; i++)
    x[i] = (point[i] as number) - w * ((point[i] as number) - (previous[i] as number));
  const final = newtonKrylov(x, (at, out) => residual(at, options.end, out), {
    tolerance: options.tolerance,
    maxEvaluations: Math.max(1, maxEvaluations - evaluations),
    project,
  });
  evaluations += final.evaluations;
  return { reached: final.converged, evaluations, folds, residual: final.residual };
}
