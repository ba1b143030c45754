import { AndersonMixer } from '../numeric/anderson.js';
import { FIXED_POINT_TOLERANCE } from '../service.js';
import type { CallSweep } from './callSweep.js';

/** What {@link relaxCalls} reached. */
export interface Relaxation {
  readonly converged: boolean;
  /**
   * Whether the state is one the sweeps settle on (false: a fixed point found by continuation
   * around which the sweeps oscillate). @default true when converged
   */
  readonly stable?: boolean;
  readonly iterations: number;
  readonly residual: number;
  /**
   * When it did not converge: the services whose s swung most over the last sweeps (at most
   * three, widest first), with the range it swung over — where the iteration found no rest.
   */
  readonly swings?: readonly Swing[];
}

/** A service's attempt rejection swinging between two values over the last sweeps. */
export interface Swing {
  readonly service: number;
  readonly low: number;
  readonly high: number;
}

/** Sweeps over which the plain sweeps' contraction is judged before mixing starts. */
const WINDOW = 4;

/** A change this small between sweeps is rounding: s is a probability, near 1 at most. */
const NOISE_FLOOR = 8 * Number.EPSILON;

/** Sweeps over which a non-converging run's swings are measured. */
const SWING_WINDOW = 50;

/** How long and from where a relaxation runs (see {@link settleCalls}). */
export interface SettleOptions {
  /** Absolute tolerance on every s_j (and τ). @default 1e-12 */
  readonly tolerance?: number;
  /** Most sweeps. @default 1000 */
  readonly maxIterations?: number;
  /** Start from saturation (every attempt failing) instead of the sweep's current state. */
  readonly saturated?: boolean;
}

/**
 * Sweeps `sweep` from its current state (or from saturation) until no s_j (or τ) changes by more
 * than `tolerance`, Anderson-accelerated (see {@link CallSweep.readState} for the coordinates).
 */
export function relaxCalls(
  sweep: CallSweep,
  scale: number,
  options: SettleOptions & {
    /** Mix past sweeps (default true); false runs plain sweeps, which settle only on stable states. */
    readonly accelerate?: boolean;
    /** Stop after this many sweeps without a new smallest residual. @default maxIterations */
    readonly patience?: number;
    /**
     * Move each step only this share of the way to the sweep's image (in the mixing
     * coordinates): damps sweeps that cycle. @default 1
     */
    readonly relaxation?: number;
  } = {},
): Relaxation {
  const tolerance = options.tolerance ?? FIXED_POINT_TOLERANCE;
  const maxIterations = options.maxIterations ?? 1000;
  const patience = options.patience ?? maxIterations;
  const relaxation = options.relaxation ?? 1;
  const accelerate = options.accelerate ?? true;
  const n = sweep.plan.serviceCount;
  let residual = sweep.sweep(scale, options.saturated === true);
  let iterations = 1;
  const x = new Float64Array(n);
  const g = new Float64Array(n);
  const next = new Float64Array(n);
  const mixer = accelerate ? new AndersonMixer(n, 5) : undefined;
  // Mixing pays only where the sweeps contract steadily; near a fold (a state about to vanish)
  // the plain sweeps drift slowly through its ghost, and extrapolating that drift sends the mix
  // astray. So: plain sweeps until the residual has fallen by a fifth over the last three, then
  // mix until a mixed step more than doubles the smallest residual mixing reached, then plain
  // again from that step's image.
  let mixing = false;
  let bestMixed = Number.POSITIVE_INFINITY;
  const recent = new Float64Array(WINDOW).fill(Number.POSITIVE_INFINITY);
  let previous = residual;
  const low = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  const high = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
  let best = residual;
  let sinceBest = 0;
  // How many sweeps in a row started from the plain image of the sweep before (two give a rate).
  let plainRun = 0;
  let previousRate = 1;
  while (iterations < maxIterations) {
    sweep.readState(x);
    residual = sweep.sweep(scale);
    iterations++;
    // The change between two sweeps understates the distance to the fixed point by 1/(1 − r) at
    // a contraction rate r. So once the change is within the tolerance, the sweeps go on plain
    // (a mixed step says nothing of r) until the change, and the distance it implies at the rate
    // of the last two plain sweeps, are both within it.
    let polish = false;
    if (residual <= tolerance) {
      // At the rounding floor the rate is noise: the state is as exact as doubles allow.
      if (residual <= NOISE_FLOOR) return { converged: true, iterations, residual };
      // The rate is the larger of the last two ratios of changes (one ratio can be lucky), and
      // the implied distance must stay within half the tolerance. Damped steps contract at their
      // own (damped) rate, which the same ratios measure.
      const rate = Math.max(residual / previous, previousRate);
      if (
        (plainRun >= 3 || (relaxation < 1 && !mixing)) &&
        rate < 1 &&
        residual / (1 - rate) <= tolerance / 2
      )
        return { converged: true, iterations, residual };
      polish = true;
    }
    if (Number.isNaN(residual)) break;
    if (iterations > maxIterations - SWING_WINDOW) {
      for (let j = 0; j < n; j++) {
        const s = sweep.s[j] as number;
        if (s < (low[j] as number)) low[j] = s;
        if (s > (high[j] as number)) high[j] = s;
      }
    }
    if (residual < best) {
      best = residual;
      sinceBest = 0;
    } else if (++sinceBest >= patience) break;
    if (mixer !== undefined) {
      recent[iterations % WINDOW] = residual;
      if (mixing && !(residual < 2 * bestMixed)) {
        mixing = false;
        mixer.reset();
      } else if (mixing) {
        bestMixed = Math.min(bestMixed, residual);
      } else {
        // Contraction over the last few sweeps, so a residual that falls with a wobble (a wave
        // running up and down the graph) counts too.
        const back = recent[(iterations + 1) % WINDOW] as number;
        if (iterations > WINDOW && residual < 0.8 * back) {
          mixing = true;
          bestMixed = residual;
        }
      }
    }
    if (polish && mixing && mixer !== undefined) {
      mixing = false;
      mixer.reset();
    }
    plainRun = mixing || relaxation < 1 ? 0 : plainRun + 1;
    if (relaxation < 1 || mixing) {
      sweep.readState(g);
      if (relaxation < 1)
        for (let i = 0; i < n; i++)
          g[i] = (x[i] as number) + relaxation * ((g[i] as number) - (x[i] as number));
      if (mixing && mixer !== undefined) mixer.step(x, g, next);
      else next.set(g);
      sweep.writeState(next);
    }
    previousRate = residual / previous;
    previous = residual;
  }
  const swings: Swing[] = [];
  for (let j = 0; j < n; j++) {
    if ((high[j] as number) > (low[j] as number))
      swings.push({ service: j, low: low[j] as number, high: high[j] as number });
  }
  swings.sort((a, b) => b.high - b.low - (a.high - a.low));
  return { converged: false, iterations, residual, swings: swings.slice(0, 3) };
}

/** The damped shares tried, in turn, when the plain sweeps cycle. */
const DAMPING = [0.5, 0.25] as const;

/** Sweeps without a new smallest residual before one way of relaxing gives way to the next. */
const PATIENCE = 100;

/**
 * Lets the state in `sweep` settle at `scale`: {@link relaxCalls} with plain (mixed) sweeps, and
 * where they make no progress for 100 sweeps, damped by ½ and then by ¼, each from where the
 * last stopped, within `maxIterations` sweeps in all. The one relaxation every solve and every
 * continuation step of the call-graph analysis uses.
 */
export function settleCalls(
  sweep: CallSweep,
  scale: number,
  options: SettleOptions = {},
): Relaxation {
  const maxIterations = options.maxIterations ?? 1000;
  let relaxed = relaxCalls(sweep, scale, { ...options, maxIterations, patience: PATIENCE });
  let iterations = relaxed.iterations;
  for (const relaxation of DAMPING) {
    if (relaxed.converged || iterations >= maxIterations) break;
    relaxed = relaxCalls(sweep, scale, {
      tolerance: options.tolerance,
      maxIterations: maxIterations - iterations,
      patience: PATIENCE,
      relaxation,
    });
    iterations += relaxed.iterations;
  }
  return { ...relaxed, iterations };
}
