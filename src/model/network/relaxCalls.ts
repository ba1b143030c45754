import { AndersonMixer } from '../numeric/anderson.js';
import { newtonKrylov } from '../numeric/newtonKrylov.js';
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

/**
 * Sweeps in a row within the tolerance after which a run whose state no longer moves on the
 * whole (see {@link relaxCalls}) has stagnated at rounding and counts as converged.
 */
const STAGNATION = 10;

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
    /**
     * Count `patience` only once some attempt success q is more than `distance` from these (and
     * from the residual there on): for a crossing, whose stall in the ghost of the state it
     * leaves is no reason to stop, while once across plain sweeps may cycle around a storm for
     * good.
     */
    readonly patienceFrom?: {
      readonly attemptSuccess: ArrayLike<number>;
      readonly distance: number;
    };
    /**
     * A way out of a slow relaxation, tried once: where the sweeps have not settled after
     * `after` sweeps but their change is within `below`, `attempt` is called (a Newton solve from
     * the state reached). It returns the relaxation to report where it found a state, or else the
     * sweeps it used, with the state it found restored — the sweeps then go on exactly as if it
     * had not been called (its sweeps are counted in the result, not in `maxIterations`).
     */
    readonly handoff?: {
      readonly after: number;
      readonly below: number;
      readonly attempt: () => Relaxation | number;
    };
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
  let departed = options.patienceFrom === undefined;
  // How many sweeps in a row started from the plain image of the sweep before (two give a rate).
  let plainRun = 0;
  let previousRate = 1;
  // Sweeps in a row within the tolerance, the state at the first of them, and the largest change
  // since: where the local solves' rounding (1e-14 relative in ρ, amplified by a steep φ and by the
  // graph) keeps the change near 1e-13, the ratio of changes is noise and says nothing of r.
  let within = 0;
  let largestWithin = 0;
  const anchor = new Float64Array(n);
  const now = new Float64Array(n);
  // Sweeps a failed handoff used (counted in the result).
  let handedOff = 0;
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
      if (residual <= NOISE_FLOOR)
        return { converged: true, iterations: iterations + handedOff, residual };
      // Stagnation at rounding: ten sweeps in a row within the tolerance that, taken together,
      // moved the state by no more than three times the largest single change (and within the
      // tolerance). A slow drift at a rate near 1 adds up over the sweeps and fails this; rounding
      // noise around a fixed point does not add up.
      if (within === 0) {
        sweep.readState(anchor);
        largestWithin = 0;
      }
      within++;
      largestWithin = Math.max(largestWithin, residual);
      if (within > STAGNATION) {
        sweep.readState(now);
        const moved = largestDifference(now, anchor);
        if (moved <= Math.min(tolerance, 3 * largestWithin))
          return { converged: true, iterations: iterations + handedOff, residual };
        within = 0;
      }
      // The rate is the larger of the last two ratios of changes (one ratio can be lucky), and
      // the implied distance must stay within half the tolerance. Damped steps contract at their
      // own (damped) rate, which the same ratios measure.
      const rate = Math.max(residual / previous, previousRate);
      if (
        (plainRun >= 3 || (relaxation < 1 && !mixing)) &&
        rate < 1 &&
        residual / (1 - rate) <= tolerance / 2
      )
        return { converged: true, iterations: iterations + handedOff, residual };
      polish = true;
    } else within = 0;
    if (Number.isNaN(residual)) break;
    if (iterations > maxIterations - SWING_WINDOW) {
      for (let j = 0; j < n; j++) {
        const s = sweep.s[j] as number;
        if (s < (low[j] as number)) low[j] = s;
        if (s > (high[j] as number)) high[j] = s;
      }
    }
    if (!departed && options.patienceFrom !== undefined) {
      departed =
        sweep.distanceTo(options.patienceFrom.attemptSuccess) > options.patienceFrom.distance;
      if (departed) best = Number.POSITIVE_INFINITY;
    }
    if (residual < best) {
      best = residual;
      sinceBest = 0;
    } else if (departed && ++sinceBest >= patience) break;
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
    const handoff = options.handoff;
    if (handoff !== undefined && iterations === handoff.after && residual <= handoff.below) {
      const found = handoff.attempt();
      if (typeof found === 'number') handedOff += found;
      else return { ...found, iterations: iterations + handedOff + found.iterations };
    }
  }
  const swings: Swing[] = [];
  for (let j = 0; j < n; j++) {
    if ((high[j] as number) > (low[j] as number))
      swings.push({ service: j, low: low[j] as number, high: high[j] as number });
  }
  swings.sort((a, b) => b.high - b.low - (a.high - a.low));
  return {
    converged: false,
    iterations: iterations + handedOff,
    residual,
    swings: swings.slice(0, 3),
  };
}

/** The largest |a_i − b_i| (NaN counts as infinitely far). */
function largestDifference(a: Float64Array, b: Float64Array): number {
  let most = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs((a[i] as number) - (b[i] as number));
    if (!(d <= most)) most = Number.isNaN(d) ? Number.POSITIVE_INFINITY : d;
  }
  return most;
}

/**
 * Mixed sweeps that have not settled after this many, their change within
 * {@link HANDOFF_CHANGE}, hand over to Newton from where they are, once, with at most
 * {@link HANDOFF_EVALUATIONS} evaluations (see {@link settleCalls}).
 */
const HANDOFF_SWEEPS = 150;
const HANDOFF_CHANGE = 1e-3;
const HANDOFF_EVALUATIONS = 100;

/** The damped shares tried, in turn, when the plain sweeps cycle. */
const DAMPING = [0.5, 0.25] as const;

/** Sweeps without a new smallest residual before one way of relaxing gives way to the next. */
const PATIENCE = 100;
/** The same for the plain sweeps that follow a transient (see {@link settleCalls}). */
const PLAIN_PATIENCE = 300;

/**
 * How a settle may shorten its sequence of relaxations (see {@link settleCalls}): hints from the
 * settles before it, which a caller stepping the load carries from step to step.
 */
export interface SettleHints {
  /**
   * Try Newton from the start first (before the mixed sweeps): where the last settle's mixed
   * sweeps stalled (the sweeps oscillate around a storm state Newton finds in a few dozen
   * evaluations) the next one's will too, and the 100 sweeps they take before giving up are
   * wasted. When Newton does not find a stable state the usual sequence follows.
   */
  readonly newtonFirst?: boolean;
  /**
   * Give up once neither the mixed sweeps nor Newton from the start settled: no long plain or
   * damped transient towards a distant state, and Newton held to what is left of the sweeps
   * (at least 60). For a probe whose only question is whether a state lies near the start (a
   * load step that will be halved if not).
   */
  readonly local?: boolean;
}

/** What {@link settleCalls} reached, and how. */
export interface Settled extends Relaxation {
  /**
   * Whether the mixed sweeps from the start did not settle, or were skipped because Newton from
   * the start did (a hint for the next settle: {@link SettleHints.newtonFirst}).
   */
  readonly relaxationStalled: boolean;
}

/**
 * Lets the state in `sweep` settle at `scale`: {@link relaxCalls} with mixed sweeps — where they
 * have not settled after 150 but change by 1e-3 at most, Newton from where they are (once; a
 * stable state it finds ends the settle, else they go on: near a fold the mixed sweeps crawl for
 * a thousand sweeps where Newton finishes in a few dozen); where they make no progress for 100
 * sweeps, Newton from the same start; then plain sweeps from the same
 * start (for 300); then sweeps damped by ½ and by ¼, each from where the last stopped, within
 * `maxIterations` sweeps in all; where none of them settles, Newton–Krylov on the fixed-point
 * equation from where they stopped ({@link newtonCalls}). The one relaxation every solve and
 * every continuation step of the call-graph analysis uses. `hints` may put Newton first or stop
 * after the first two stages ({@link SettleHints}).
 */
export function settleCalls(
  sweep: CallSweep,
  scale: number,
  options: SettleOptions & SettleHints = {},
): Settled {
  const maxIterations = options.maxIterations ?? 1000;
  const tolerance = options.tolerance ?? FIXED_POINT_TOLERANCE;
  const startS = Float64Array.from(sweep.s);
  const startRho = Float64Array.from(sweep.rho);
  const restart = () => {
    sweep.s.set(startS);
    sweep.rho.set(startRho);
  };
  // Newton from where slow mixed sweeps have got to: a stable state it finds ends the settle;
  // else the state is put back and the sweeps go on.
  const polish = (): Relaxation | number => {
    const atS = Float64Array.from(sweep.s);
    const atRho = Float64Array.from(sweep.rho);
    const atQ = Float64Array.from(sweep.attemptSuccess);
    const newton = newtonCalls(sweep, scale, { tolerance, maxEvaluations: HANDOFF_EVALUATIONS });
    if (newton.converged && newton.stable !== false) return newton;
    sweep.s.set(atS);
    sweep.rho.set(atRho);
    sweep.attemptSuccess.set(atQ);
    return newton.iterations;
  };
  let iterations = 0;
  let newtonTried = false;
  if (options.newtonFirst === true && options.saturated !== true) {
    // The same Newton the sequence below runs from the same start once the mixed sweeps stall.
    const newton = newtonOnward(sweep, scale, { tolerance, maxEvaluations: NEWTON_EVALUATIONS });
    iterations += newton.iterations;
    if (newton.converged && newton.stable !== false)
      return { ...newton, iterations, relaxationStalled: true };
    newtonTried = true;
    restart();
  }
  const budget = maxIterations - iterations;
  let relaxed: Relaxation = relaxCalls(sweep, scale, {
    ...options,
    maxIterations: budget,
    patience: PATIENCE,
    handoff: { after: HANDOFF_SWEEPS, below: HANDOFF_CHANGE, attempt: () => polish() },
  });
  iterations += relaxed.iterations;
  const relaxationStalled = !relaxed.converged;
  if (
    !relaxed.converged &&
    !newtonTried &&
    // From saturation the start is no state Newton can start at (every attempt failing, ρ = ∞):
    // the sweep holds whatever it held before, idle for a new one, and Newton from there would
    // look for the state nearest that instead of the storm (it failed, 100–200 sweeps each, on
    // every such settle of the µBench-like graphs). Newton from where the sweeps end, below, stays.
    options.saturated !== true &&
    iterations < maxIterations &&
    !Number.isNaN(relaxed.residual)
  ) {
    // Near the start (a continuation step), Newton from it converges in a few dozen sweeps where
    // the relaxation crawls (near a fold) or cycles; far from it Newton fails quickly.
    restart();
    const newton =
      options.local === true
        ? newtonCalls(sweep, scale, {
            tolerance,
            maxEvaluations: Math.max(LOCAL_NEWTON_EVALUATIONS, maxIterations - iterations),
          })
        : newtonOnward(sweep, scale, { tolerance, maxEvaluations: NEWTON_EVALUATIONS });
    iterations += newton.iterations;
    if (newton.converged && newton.stable !== false)
      return { ...newton, iterations, relaxationStalled };
  }
  if (!relaxed.converged && options.local === true) {
    restart();
    return { ...relaxed, iterations, relaxationStalled };
  }
  if (!relaxed.converged && iterations < maxIterations) {
    // Mixing extrapolates the sweeps' drift; through a long transient (a storm building up in one
    // subtree while the rest settles) the residual does not fall for many sweeps, and the mix
    // can leave the transient's path altogether. Plain sweeps from the same start follow it.
    restart();
    relaxed = relaxCalls(sweep, scale, {
      ...options,
      maxIterations: maxIterations - iterations,
      patience: PLAIN_PATIENCE,
      accelerate: false,
    });
    iterations += relaxed.iterations;
  }
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
  if (relaxed.converged || Number.isNaN(relaxed.residual))
    return { ...relaxed, iterations, relaxationStalled };
  const newton = newtonCalls(sweep, scale, {
    tolerance,
    maxEvaluations: Math.max(2 * NEWTON_EVALUATIONS, Math.floor(maxIterations / 2)),
  });
  iterations += newton.iterations;
  if (!newton.converged) return { ...relaxed, iterations, relaxationStalled };
  return { ...newton, iterations, relaxationStalled };
}

/**
 * Residual evaluations of the Newton stage of {@link settleCalls} from the start (twice that, at
 * least, from where the relaxations stopped).
 */
const NEWTON_EVALUATIONS = 200;
/** How far a Newton stage solves (the largest |F|) and the residual evaluations it may use. */
export interface NewtonStage {
  readonly tolerance: number;
  readonly maxEvaluations: number;
}

/**
 * A Newton stage from the start that ends this close to a fixed point (the largest |F|) was
 * converging, not lost: it goes on from where it got to (see {@link newtonOnward}).
 */
const NEWTON_NEAR = 1e-4;

/**
 * {@link newtonCalls}, and where it stops unconverged within {@link NEWTON_NEAR}, once more from
 * the point it reached with as many evaluations again (the Newton stages of {@link settleCalls}
 * from the start; a probe's keeps to its budget). On the 10,000-service DGG-like graph of seed 0
 * the settles once tipped ended their first 200 evaluations at |F| between 2e-12 and 4e-6 (GMRES
 * cut its residual by only ~0.54 a cycle there, so Newton converged linearly), and the mixed,
 * plain and damped sweeps that followed took ~800 sweeps before Newton, run again, finished:
 * with this, 18,709 → 13,412 sweeps for the whole rising load.
 */
export function newtonOnward(sweep: CallSweep, scale: number, options: NewtonStage): Relaxation {
  const first = newtonCalls(sweep, scale, options);
  if (first.converged || !(first.residual <= NEWTON_NEAR)) return first;
  const more = newtonCalls(sweep, scale, options);
  return { ...more, iterations: first.iterations + more.iterations };
}

/** The least a local settle's Newton stage may use (else what is left of its sweeps). */
const LOCAL_NEWTON_EVALUATIONS = 60;

/** Damped sweeps from a Newton solution that tell whether the relaxation settles there. */
const STABILITY_SWEEPS = 200;

/** A Newton solution the damped sweeps leave by more than this is not a state they settle on. */
const STABILITY_DISTANCE = 1e-6;

/**
 * Krylov vectors a Newton step of {@link newtonCalls} may build before it steps (GMRES stops
 * sooner once it has cut the residual enough). Each sub-graph poised near its own fold adds a
 * direction in which F barely moves, and in the tipped cascade of a large graph many are at once:
 * at the 10,000-service DGG-like seed 1 at 0.687 of its load, from where 30 vectors stalled at
 * |F| = 1.7e-5, Newton converged to 1e-12 with 100 in 420 evaluations (50: 1,119, 70: 756, 150:
 * 392; 30: unconverged after 1,500), and the rising load, left without a state from 0.69 up with
 * 30, reached the full load. Where 30 sufficed nothing changes: GMRES stops at the same vector.
 */
const NEWTON_KRYLOV_VECTORS = 100;

/**
 * Solves the fixed point of the sweep at `scale` by Jacobian-free Newton–Krylov on
 * F(x) = sweep(x) − x in the mixing coordinates (see {@link CallSweep.readState}), from the
 * sweep's current state: where the sweeps cycle or crawl near a fixed point (the map is not
 * monotone), Newton converges on it quadratically. The solution is then checked by sweeps damped
 * by ¼ started there: if they settle back on it (within 1e-6) it is `stable` — the state a
 * gradual relaxation stays in — otherwise it is reported with `stable: false`. Leaves the
 * solution (or, when Newton fails, the best point it found) in `sweep`.
 */
export function newtonCalls(sweep: CallSweep, scale: number, options: NewtonStage): Relaxation {
  const n = sweep.plan.serviceCount;
  const logCoordinate = sweep.logCoordinate;
  const x = new Float64Array(n);
  sweep.readState(x);
  for (let i = 0; i < n; i++)
    if (!Number.isFinite(x[i] as number)) x[i] = logCoordinate[i] ? -700 : 0;
  const solved = newtonKrylov(
    x,
    (at, out) => {
      sweep.writeState(at);
      sweep.sweep(scale);
      sweep.readState(out);
      for (let i = 0; i < n; i++) out[i] = (out[i] as number) - (at[i] as number);
    },
    {
      tolerance: options.tolerance,
      maxEvaluations: options.maxEvaluations,
      restart: NEWTON_KRYLOV_VECTORS,
      project: (v) => {
        for (let i = 0; i < n; i++)
          if (!logCoordinate[i]) v[i] = Math.min(Math.max(v[i] as number, 0), 1 - Number.EPSILON);
      },
    },
  );
  sweep.writeState(x);
  let iterations = solved.evaluations;
  if (!solved.converged) {
    return { converged: false, iterations, residual: solved.residual };
  }
  // The tables at the solution, then the stability check from there.
  const residual = sweep.sweep(scale);
  iterations++;
  const check = relaxCalls(sweep, scale, {
    tolerance: options.tolerance,
    maxIterations: STABILITY_SWEEPS,
    accelerate: false,
    relaxation: 0.25,
  });
  iterations += check.iterations;
  const after = new Float64Array(n);
  sweep.readState(after);
  const stable = check.converged && largestDifference(after, x) <= STABILITY_DISTANCE;
  if (!stable) {
    sweep.writeState(x);
    sweep.sweep(scale);
    iterations++;
  }
  return { converged: true, stable, iterations, residual: stable ? check.residual : residual };
}
