/**
 * A solver's state seen by the load-following loops ({@link followRisingLoad}, and the sweep of
 * `sweepRoutingEquilibria`): settle at a share of the external rates from the current state, save
 * and restore it, and measure how far it moved. `State` is the solver's own snapshot.
 */
export interface LoadFollower<State> {
  /** A snapshot of the current state. */
  save(): State;
  /** Makes `state` current again. */
  restore(state: State): void;
  /**
   * Lets the current state settle with every external rate × `scale` (warm-started from it).
   */
  settle(scale: number): {
    readonly converged: boolean;
    readonly iterations: number;
    readonly residual: number;
  };
  /** The largest |Δq| (attempt success, which carries s and the timeouts) to a saved state. */
  distanceTo(state: State): number;
}

/**
 * A jump of some attempt success q larger than this between two nearby loads is a fold, not a
 * slope (the call-graph solver's `raiseLoad` uses the same figures: 0.05, first step 1/4,
 * smallest 1/4096, checked below 1/64).
 */
export const FOLD_JUMP = 0.05;
/** Load steps, as shares of the target scale: the first and largest, and the smallest. */
const FIRST_STEP = 1 / 4;
const SMALLEST_STEP = 1 / 4096;
/** Steps at most this long (share of the scale) are checked for hysteresis before halving. */
const CHECK_STEP = 1 / 64;

/** What {@link followRisingLoad} found. */
export interface RisingLoad {
  /**
   * Whether every step settled (the state at `scale` is current). When not, the state at
   * `reached` is current: the last load at which it settled.
   */
  readonly settled: boolean;
  /** The largest scale at which a state settled (`scale` when `settled`). */
  readonly reached: number;
  /** Sweeps used. */
  readonly iterations: number;
  /** The residual of the last settle. */
  readonly residual: number;
  /** The scales at which the state jumped past a fold (each the last scale before the jump). */
  readonly tips: readonly number[];
}

/**
 * Raises every external rate from zero (the follower's current state must be the idle one) to
 * × `scale` in steps, settling at each from the last: the state an idle network reaches as its
 * load rises, and where on the way it tips. A step that moves some attempt success q by more than
 * 0.05 is first narrowed to 1/64 of the scale; then, if lowering the load back returns the old
 * state it was a steep slope, taken; if not, a fold lies inside the step — the state the network
 * was in has ceased to exist — and the step is halved down to 1/4096 of the scale to pin it
 * down, recorded, and followed into the state the network tips into. A step whose settle finds no
 * rest is halved too, from the state before it; where even the smallest finds none, the loop
 * stops there (`settled` false) with the last settled state current.
 * @example
 * ```ts
 * const raised = followRisingLoad(follower, 1);
 * raised.tips; // [0.67]: above 67 % of the load the healthy state is gone
 * ```
 */
export function followRisingLoad<State>(follower: LoadFollower<State>, scale: number): RisingLoad {
  let theta = 0;
  let step = FIRST_STEP * scale;
  let iterations = 0;
  let residual = 0;
  const tips: number[] = [];
  while (theta < scale) {
    const next = Math.min(scale, theta + step);
    const before = follower.save();
    const relaxed = follower.settle(next);
    iterations += relaxed.iterations;
    residual = relaxed.residual;
    if (!relaxed.converged) {
      follower.restore(before);
      if (step > SMALLEST_STEP * scale * 1.5) {
        step /= 2;
        continue;
      }
      return { settled: false, reached: theta, iterations, residual, tips };
    }
    const jump = follower.distanceTo(before);
    if (jump > FOLD_JUMP && step > CHECK_STEP * scale * 1.5) {
      follower.restore(before);
      step /= 2;
      continue;
    }
    const fold = jump > FOLD_JUMP && theta > 0 && isFold(follower, theta, before);
    if (fold && step > SMALLEST_STEP * scale * 1.5) {
      follower.restore(before);
      step /= 2;
      continue;
    }
    if (fold) tips.push(theta);
    theta = next;
    if (jump < FOLD_JUMP / 4) step = Math.min(2 * step, FIRST_STEP * scale);
  }
  return { settled: true, reached: scale, iterations, residual, tips };
}

/**
 * Whether the jump just taken from `before` (the state at `theta`) is a fold: from the new state,
 * lowering the load back to `theta` keeps it away from `before` (hysteresis). Leaves the new
 * state current either way.
 */
function isFold<State>(follower: LoadFollower<State>, theta: number, before: State): boolean {
  const after = follower.save();
  const back = follower.settle(theta);
  const distance = follower.distanceTo(before);
  follower.restore(after);
  return !back.converged || distance > FOLD_JUMP / 2;
}
