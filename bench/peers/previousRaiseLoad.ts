/**
 * The benchmark's peer for the whole call-graph analysis: the rising-load search as it was before
 * the hinted settles (`raiseLoad` and `settleCalls` of commit 8ab0e2b, kept verbatim but for
 * their names and imports): every load step ran the full sequence of relaxations, the long plain
 * and damped transients into a distant state included, even on a step that would be halved
 * whatever state it reached, and every settle in a storm (where the mixed sweeps stall) spent
 * 100 sweeps on them before Newton. The search from saturation and the report are today's.
 */
import {
  type CallEquilibria,
  type CallEquilibrium,
  sameEquilibrium,
} from '../../src/model/network/callEquilibria.js';
import { compileCallPlan } from '../../src/model/network/callPlan.js';
import { CallSweep } from '../../src/model/network/callSweep.js';
import type { NetworkModel } from '../../src/model/network/NetworkModel.js';
import {
  newtonCalls,
  type Relaxation,
  relaxCalls,
  type SettleOptions,
} from '../../src/model/network/relaxCalls.js';
import { callSolution, solveCalls } from '../../src/model/network/solveCalls.js';
import { FIXED_POINT_TOLERANCE } from '../../src/model/service.js';

/** The damped shares tried, in turn, when the plain sweeps cycle. */
const DAMPING = [0.5, 0.25] as const;
/** Sweeps without a new smallest residual before one way of relaxing gives way to the next. */
const PATIENCE = 100;
/** The same for the plain sweeps that follow a transient. */
const PLAIN_PATIENCE = 300;
/** Residual evaluations of the Newton stage from the start. */
const NEWTON_EVALUATIONS = 200;
const STORM_EVALUATIONS = 1000;
const STORM_SWEEPS = 400;

/**
 * `callEquilibria` with the previous rising-load search: the same result (equilibria, tips),
 * reached with more sweeps.
 */
export function previousCallEquilibria(network: NetworkModel): CallEquilibria {
  const sweep = new CallSweep(compileCallPlan(network));
  const raised = previousRaiseLoad(sweep, 1);
  const tips = raised.tips;
  const kind = tips.length > 0 ? 'storm' : 'healthy';
  let rising: CallEquilibrium;
  if (raised.settled) {
    rising = {
      kind,
      solution: callSolution(sweep, 1, {
        converged: true,
        stable: raised.stable !== false,
        iterations: raised.iterations,
        residual: raised.residual,
      }),
    };
  } else {
    const relaxed = settleCalls(sweep, 1, {});
    rising = {
      kind,
      solution: callSolution(sweep, 1, {
        ...relaxed,
        iterations: raised.iterations + relaxed.iterations,
      }),
    };
  }
  const storm = solveCalls(network, {
    saturated: true,
    maxIterations: STORM_SWEEPS,
    maxEvaluations: STORM_EVALUATIONS,
  });
  if (!storm.converged) return { equilibria: [rising], tips, stormUnsettled: true };
  if (!rising.solution.converged) return { equilibria: [{ kind: 'storm', solution: storm }], tips };
  if (sameEquilibrium(rising.solution, storm)) return { equilibria: [rising], tips };
  return { equilibria: [rising, { kind: 'storm', solution: storm }], tips };
}

function settleCalls(sweep: CallSweep, scale: number, options: SettleOptions = {}): Relaxation {
  const maxIterations = options.maxIterations ?? 1000;
  const startS = Float64Array.from(sweep.s);
  const startRho = Float64Array.from(sweep.rho);
  let relaxed = relaxCalls(sweep, scale, { ...options, maxIterations, patience: PATIENCE });
  let iterations = relaxed.iterations;
  if (!relaxed.converged && iterations < maxIterations && !Number.isNaN(relaxed.residual)) {
    // Near the start (a continuation step), Newton from it converges in a few dozen sweeps where
    // the relaxation crawls (near a fold) or cycles; far from it Newton fails quickly.
    sweep.s.set(startS);
    sweep.rho.set(startRho);
    const newton = newtonCalls(sweep, scale, {
      tolerance: options.tolerance ?? FIXED_POINT_TOLERANCE,
      maxEvaluations: NEWTON_EVALUATIONS,
    });
    iterations += newton.iterations;
    if (newton.converged && newton.stable !== false) return { ...newton, iterations };
  }
  if (!relaxed.converged && iterations < maxIterations) {
    // Mixing extrapolates the sweeps' drift; through a long transient (a storm building up in one
    // subtree while the rest settles) the residual does not fall for many sweeps, and the mix
    // can leave the transient's path altogether. Plain sweeps from the same start follow it.
    sweep.s.set(startS);
    sweep.rho.set(startRho);
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
  if (relaxed.converged || Number.isNaN(relaxed.residual)) return { ...relaxed, iterations };
  const newton = newtonCalls(sweep, scale, {
    tolerance: options.tolerance ?? FIXED_POINT_TOLERANCE,
    maxEvaluations: Math.max(2 * NEWTON_EVALUATIONS, Math.floor(maxIterations / 2)),
  });
  iterations += newton.iterations;
  if (!newton.converged) return { ...relaxed, iterations };
  return { ...newton, iterations };
}

/**
 * A jump of some attempt success q (s, timeouts and calls together) larger than this between two
 * nearby loads is a fold, not a slope.
 */
const JUMP = 0.05;
/** Load steps, as shares of the target scale: the first and largest, and the smallest. */
const FIRST_STEP = 1 / 4;
const SMALLEST_STEP = 1 / 4096;
/**
 * Where even the smallest step finds no rest (the relaxation crawls through the ghost of a state
 * that has just ceased to exist), the load is taken this far past it at once (the first of these
 * shares of the scale at which the state settles), where the passage is quicker, with this many
 * times the sweeps.
 */
const PAST_FOLD_STEPS = [1 / 256, 1 / 64, 1 / 16] as const;
const PAST_FOLD_SWEEPS = 4;
/** Steps at most this long (share of the scale) are checked for hysteresis before halving. */
const CHECK_STEP = 1 / 64;

/**
 * Whether the jump just taken from `before` (the state at `theta`) is a fold: from the new state,
 * lowering the load back to `theta` keeps it away from `before` (hysteresis). Restores the new
 * state in `sweep` either way.
 */
function isFold(
  sweep: CallSweep,
  theta: number,
  before: Float64Array,
  options: { readonly tolerance?: number; readonly maxIterations?: number },
): boolean {
  const afterS = Float64Array.from(sweep.s);
  const afterRho = Float64Array.from(sweep.rho);
  const afterQ = Float64Array.from(sweep.attemptSuccess);
  const back = settleCalls(sweep, theta, options);
  const distance = sweep.distanceTo(before);
  sweep.s.set(afterS);
  sweep.rho.set(afterRho);
  sweep.attemptSuccess.set(afterQ);
  return !back.converged || distance > JUMP / 2;
}

/** What {@link raiseLoad} found. */
interface RaisedLoad {
  /** Whether every step settled (the state at `scale` is in the sweep). */
  readonly settled: boolean;
  /** Sweeps used. */
  readonly iterations: number;
  /** The residual of the last relaxation. */
  readonly residual: number;
  /**
   * The scales at which the state jumped (the branch it was on ended — a fold — and the
   * network tipped into another state), each the last scale before the jump.
   */
  readonly tips: readonly number[];
  /** The largest scale at which a state settled (`scale` when `settled`). */
  readonly reached?: number;
  /**
   * Whether the sweeps settle on the last state (false: Newton found it, and sweeps started
   * there leave it; see `newtonCalls`).
   */
  readonly stable?: boolean;
}

/**
 * Raises every external rate from zero to × `scale` in steps, letting the network settle at each
 * (warm-started relaxation): the state an idle network reaches as its load rises, and where on
 * the way it tips. A step that moves some attempt success q by more than 0.05 is checked by
 * lowering the load back: if that returns the old state it was a steep slope; if not, a fold lies
 * inside the step — the state the network was in has ceased to exist — and the step is halved
 * down to 1/4096 of the scale to pin it down, recorded, and followed into the state the network
 * tips into. A load at which the relaxation finds no rest is approached by halved steps too; where
 * even the smallest finds none (the relaxation crawls through the ghost of a state that has just
 * vanished), the load is taken 1/256, 1/64 or 1/16 further at once, a tip where the state
 * moved away.
 * Leaves the state at `scale` in `sweep`.
 */
function previousRaiseLoad(
  sweep: CallSweep,
  scale: number,
  options: { readonly tolerance?: number; readonly maxIterations?: number } = {},
): RaisedLoad {
  const n = sweep.plan.serviceCount;
  const savedS = new Float64Array(n);
  const savedRho = new Float64Array(n);
  const savedQ = new Float64Array(sweep.attemptSuccess.length);
  sweep.s.fill(0);
  sweep.rho.fill(0);
  let theta = 0;
  let step = FIRST_STEP * scale;
  let iterations = 0;
  let residual = 0;
  let stable = true;
  const tips: number[] = [];
  const restore = () => {
    sweep.s.set(savedS);
    sweep.rho.set(savedRho);
    sweep.attemptSuccess.set(savedQ);
  };
  while (theta < scale) {
    const next = Math.min(scale, theta + step);
    savedS.set(sweep.s);
    savedRho.set(sweep.rho);
    savedQ.set(sweep.attemptSuccess);
    const relaxed = settleCalls(sweep, next, options);
    iterations += relaxed.iterations;
    residual = relaxed.residual;
    stable = relaxed.stable !== false;
    if (!relaxed.converged) {
      // No rest at the next load: the relaxation is slow near a fold (or cycles). A shorter step
      // first; at the smallest, the state at theta has ceased to exist just past it — a fold —
      // and the load is taken a little further at once, where the network tips quickly.
      restore();
      if (step > SMALLEST_STEP * scale * 1.5) {
        step /= 2;
        continue;
      }
      let reachedPast: number | undefined;
      for (const share of PAST_FOLD_STEPS) {
        const past = Math.min(scale, theta + share * scale);
        restore();
        // Plain sweeps, with no patience: through the ghost the residual stalls for a long while
        // before the state falls away, and mixing would extrapolate the stall.
        let tipped = relaxCalls(sweep, past, {
          tolerance: options.tolerance,
          maxIterations: PAST_FOLD_SWEEPS * (options.maxIterations ?? 1000),
          accelerate: false,
        });
        iterations += tipped.iterations;
        if (!tipped.converged && !Number.isNaN(tipped.residual)) {
          tipped = settleCalls(sweep, past, options);
          iterations += tipped.iterations;
        }
        residual = tipped.residual;
        stable = tipped.stable !== false;
        if (tipped.converged) {
          reachedPast = past;
          break;
        }
        if (past >= scale) break;
      }
      if (reachedPast === undefined) {
        restore();
        return { settled: false, iterations, residual, tips, reached: theta };
      }
      // A tip only where the state moved away and lowering the load does not bring it back
      // (else the relaxation was merely slow there, on a steep slope).
      if (theta > 0 && sweep.distanceTo(savedQ) > JUMP && isFold(sweep, theta, savedQ, options))
        tips.push(theta);
      step = reachedPast - theta;
      theta = reachedPast;
      continue;
    }
    const jump = sweep.distanceTo(savedQ);
    // A large move is first narrowed to a short step (over a long one the branch it jumped to
    // may not reach back to where it came from). Then: if lowering the load undoes it, it is a
    // steep slope, taken; if not, a fold lies inside the step, halved until it is pinned down.
    if (jump > JUMP && step > CHECK_STEP * scale * 1.5) {
      restore();
      step /= 2;
      continue;
    }
    const fold = jump > JUMP && theta > 0 && isFold(sweep, theta, savedQ, options);
    if (fold && step > SMALLEST_STEP * scale * 1.5) {
      restore();
      step /= 2;
      continue;
    }
    if (fold) tips.push(theta);
    theta = next;
    if (jump < JUMP / 4) step = Math.min(2 * step, FIRST_STEP * scale);
  }
  return { settled: true, iterations, residual, tips, reached: scale, stable };
}
