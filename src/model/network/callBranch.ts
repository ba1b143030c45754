import type { CallSweep } from './callSweep.js';
import { relaxCalls } from './relaxCalls.js';

/**
 * A jump of some attempt success q (s, timeouts and calls together) larger than this between two
 * nearby loads is a fold, not a slope.
 */
const JUMP = 0.05;
/** Load steps, as shares of the target scale: the first and largest, and the smallest. */
const FIRST_STEP = 1 / 4;
const SMALLEST_STEP = 1 / 65_536;

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
  const n = sweep.plan.serviceCount;
  const afterS = Float64Array.from(sweep.s);
  const afterRho = Float64Array.from(sweep.rho);
  const back = relaxCalls(sweep, theta, { ...options, patience: 100 });
  let distance = 0;
  for (let j = 0; j < n; j++)
    distance = Math.max(distance, Math.abs((sweep.s[j] as number) - (before[j] as number)));
  sweep.s.set(afterS);
  sweep.rho.set(afterRho);
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
}

/**
 * Raises every external rate from zero to × `scale` in steps, letting the network settle at each
 * (warm-started relaxation): the state an idle network reaches as its load rises, and where on
 * the way it tips. A step that moves some attempt success q by more than 0.05 is halved down to 1/1024 of the
 * scale; a jump that persists at the smallest step is a fold — the state the network was in has
 * ceased to exist — and is recorded (when lowering the load again by that step does not bring
 * the old state back: a fold, not a steep slope), then followed into the state the network tips
 * into.
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
  const tips: number[] = [];
  while (theta < scale) {
    const next = Math.min(scale, theta + step);
    savedS.set(sweep.s);
    savedRho.set(sweep.rho);
    savedQ.set(sweep.attemptSuccess);
    const relaxed = relaxCalls(sweep, next, {
      tolerance: options.tolerance,
      maxIterations: options.maxIterations,
      patience: 100,
    });
    iterations += relaxed.iterations;
    residual = relaxed.residual;
    if (!relaxed.converged) return { settled: false, iterations, residual, tips };
    let jump = 0;
    for (let j = 0; j < n; j++)
      jump = Math.max(jump, Math.abs((sweep.s[j] as number) - (savedS[j] as number)));
    if (jump > JUMP && step > SMALLEST_STEP * scale * 1.5) {
      sweep.s.set(savedS);
      sweep.rho.set(savedRho);
      step /= 2;
      continue;
    }
    if (jump > JUMP && theta > 0 && isFold(sweep, theta, savedQ, options)) tips.push(theta);
    theta = next;
    if (jump < JUMP / 4) step = Math.min(2 * step, FIRST_STEP * scale);
  }
  return { settled: true, iterations, residual, tips };
}
