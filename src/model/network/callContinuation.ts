import { continueByArclength } from '../numeric/arclength.js';
import type { CallSweep } from './callSweep.js';
import { settleCalls } from './relaxCalls.js';

/** What {@link followCallBranch} reached. */
export interface BranchFollowing {
  /** Whether a fixed point at the requested scale was found (it is left in the sweep). */
  readonly reached: boolean;
  /** Sweeps used. */
  readonly evaluations: number;
  readonly residual: number;
  /** Scales at which the branch turned back (folds). */
  readonly folds: readonly number[];
}

/** The light loads the healthy branch starts from: these shares of the requested scale. */
const LIGHT_SHARES = [0.02, 0.04] as const;
/** The heavy loads tried for the storm branch: these multiples of the requested scale. */
const HEAVY_MULTIPLES = [4, 16, 64] as const;
/** Most sweeps of each settle that finds a starting point. */
const START_SWEEPS = 600;

/**
 * Follows a branch of call-graph fixed points up (or down) to every external rate × `scale`, by
 * pseudo-arclength continuation with Newton–Krylov corrections (`continueByArclength`):
 * - `idle`: the branch that starts at light load, where the sweeps settle at once from idle —
 *   the state a network reaches as its load rises from zero;
 * - `saturated`: the branch that starts at heavy load from saturation (every attempt failing)
 *   — the retry storm, followed down as the load falls.
 * It finds the fixed point at `scale` on that branch even where the sweeps oscillate around it,
 * and goes round folds. Leaves the state in `sweep`.
 */
export function followCallBranch(
  sweep: CallSweep,
  scale: number,
  options: {
    readonly tolerance: number;
    readonly from?: 'idle' | 'saturated';
    /**
     * Most sweeps asked for in all, the settles of the starting points included (each is given
     * what is left; `settleCalls` may go past its share by its last Newton stage). @default
     * unbounded
     */
    readonly maxEvaluations?: number;
  },
): BranchFollowing {
  const n = sweep.plan.serviceCount;
  const from = options.from ?? 'idle';
  let evaluations = 0;
  const starts: { x: Float64Array; theta: number }[] = [];
  // The budget covers the settles that find the two starting points too.
  const budget = options.maxEvaluations ?? Number.POSITIVE_INFINITY;
  const settle = (theta: number, saturated: boolean): boolean => {
    const allowed = Math.min(START_SWEEPS, budget - evaluations);
    if (!(allowed >= 1)) return false;
    const relaxed = settleCalls(sweep, theta, {
      tolerance: options.tolerance,
      maxIterations: allowed,
      saturated,
    });
    evaluations += relaxed.iterations;
    if (!relaxed.converged) return false;
    const x = new Float64Array(n);
    sweep.readState(x);
    starts.push({ x, theta });
    return true;
  };
  if (from === 'idle') {
    sweep.rho.fill(0);
    sweep.s.fill(0);
    for (const share of LIGHT_SHARES) {
      if (!settle(share * scale, false))
        return { reached: false, evaluations, residual: Number.POSITIVE_INFINITY, folds: [] };
    }
  } else {
    for (const multiple of HEAVY_MULTIPLES) {
      starts.length = 0;
      if (settle(multiple * scale, true) && settle(0.98 * multiple * scale, false)) break;
    }
    if (starts.length < 2)
      return { reached: false, evaluations, residual: Number.POSITIVE_INFINITY, folds: [] };
  }
  const logCoordinate = sweep.logCoordinate;
  const x = new Float64Array(n);
  const result = continueByArclength(
    x,
    starts[0] as { x: Float64Array; theta: number },
    starts[1] as { x: Float64Array; theta: number },
    (at, theta, out) => {
      sweep.writeState(at);
      sweep.sweep(theta);
      sweep.readState(out);
      for (let i = 0; i < n; i++) out[i] = (out[i] as number) - (at[i] as number);
    },
    {
      tolerance: options.tolerance,
      end: scale,
      maxEvaluations: Number.isFinite(budget) ? Math.max(1, budget - evaluations) : undefined,
      project: (v) => {
        for (let i = 0; i < n; i++)
          if (!logCoordinate[i]) v[i] = Math.min(Math.max(v[i] as number, 0), 1 - Number.EPSILON);
      },
    },
  );
  sweep.writeState(x);
  return {
    reached: result.reached,
    evaluations: evaluations + result.evaluations,
    residual: result.residual,
    folds: result.folds,
  };
}
