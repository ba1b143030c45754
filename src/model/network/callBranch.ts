import type { CallSweep } from './callSweep.js';
import { relaxCalls, type SettleHints, settleCalls } from './relaxCalls.js';

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
 * Where the mixed sweeps stalled, this many settles in a row less one try Newton first; the
 * next tries the sweeps again (the state may have left the oscillating regime).
 */
const NEWTON_FIRST_RUN = 4;

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
  // The full settle, the sweeps first: the question is where the relaxation goes from the new
  // state, and Newton first would find the nearest state instead (the new branch's, which the
  // hysteresis keeps alive at theta too).
  const back = settleCalls(sweep, theta, options);
  const distance = sweep.distanceTo(before);
  sweep.s.set(afterS);
  sweep.rho.set(afterRho);
  sweep.attemptSuccess.set(afterQ);
  return !back.converged || distance > JUMP / 2;
}

/** What {@link raiseLoad} found. */
export interface RaisedLoad {
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
export function raiseLoad(
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
  // Whether the mixed sweeps stalled at the last load taken (the sweeps oscillate there, as
  // around a storm): the next settles try Newton first, and every fourth the sweeps again.
  let stalled = false;
  let newtonRun = 0;
  const hints = (local: boolean): SettleHints => ({
    newtonFirst: stalled && newtonRun % NEWTON_FIRST_RUN !== NEWTON_FIRST_RUN - 1,
    local,
  });
  const taken = (settled: { readonly relaxationStalled: boolean }, hinted: SettleHints) => {
    stalled = settled.relaxationStalled;
    newtonRun = hinted.newtonFirst === true ? newtonRun + 1 : 0;
  };
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
    // A step longer than CHECK_STEP is halved unless a state near the one at theta settles (a
    // large move is never taken at once), so its settle asks only that: the long transient into
    // a distant state is left to shorter steps, where the state it reaches is checked.
    const hinted = hints(step > CHECK_STEP * scale * 1.5);
    const relaxed = settleCalls(sweep, next, { ...options, ...hinted });
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
      let pastSettled: { readonly relaxationStalled: boolean } = { relaxationStalled: false };
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
          const settled = settleCalls(sweep, past, options);
          pastSettled = settled;
          tipped = settled;
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
      taken(pastSettled, {});
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
    taken(relaxed, hinted);
    theta = next;
    if (jump < JUMP / 4) step = Math.min(2 * step, FIRST_STEP * scale);
  }
  return { settled: true, iterations, residual, tips, reached: scale, stable };
}
