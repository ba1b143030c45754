import type { AnalysisProgress } from './AnalysisProgress.js';
import { sweepsPerReport } from './AnalysisProgress.js';
import { raiseLoad } from './callBranch.js';
import type { NetworkModel } from './NetworkModel.js';
import { settleCalls } from './relaxCalls.js';
import {
  type CallSolution,
  type CallSolveOptions,
  callSolution,
  solveCalls,
} from './solveCalls.js';
import { laidOutSweep } from './topDownLayout.js';

/** Two equilibria are the same state when no s or attempt success q differs by more than this. */
export const DISTINCT_STATE = 1e-6;

/** Whether two solutions are one state (within {@link DISTINCT_STATE} in every s and q). */
export function sameEquilibrium(a: CallSolution, b: CallSolution): boolean {
  const close = (x: number, y: number | undefined) =>
    Math.abs(x - (y ?? Number.NaN)) <= DISTINCT_STATE;
  return (
    a.s.every((s, j) => close(s, b.s[j])) &&
    a.attemptSuccess.every((row, j) => row.every((q, p) => close(q, b.attemptSuccess[j]?.[p])))
  );
}

/**
 * Most sweeps the continuation of the storm branch may use (the search from saturation is the
 * analysis's second solve; where the plain relaxation does not settle, it is cut short here).
 * Where it reached a state it took 314 and 334 (2 of 240 generated networks of 8–127 services
 * at bottleneck loads 0.8–2.2); where it did not, a budget of 1,000 was spent in vain (4 of the 20
 * 1,000-service bench runs of each generator and 2 of the 50 call-graph validation networks: the
 * settle at four times the load, which starts it, found no rest or left it too little).
 */
const STORM_EVALUATIONS = 500;
/**
 * The same where the rising load tipped: none. Its state is then a storm already, and there the
 * continuation was never seen to reach a state: of the 240 generated networks above it reached
 * one in two, neither tipped (and both times the state the rising load had reached), and on the
 * tipped 1,000-service bench runs where it ran (µBench-like seed 8, DGG-like seed 7, each as
 * generated and nudged) it spent ~560–640 sweeps in vain, its settles included. Every outcome of
 * those, of the 40 bench runs and of the 50 validation networks is the same without it.
 */
const TIPPED_STORM_EVALUATIONS = 0;
/** Most sweeps of the search from saturation before it gives way to continuation. */
const STORM_SWEEPS = 400;

/** One equilibrium of a call-graph network. */
export interface CallEquilibrium {
  /**
   * `healthy`: the state an idle network reaches as its load rises from zero, where it did not
   * tip on the way; `storm`: the state reached from saturation (every attempt failing), or the
   * one the rising load tipped into.
   */
  readonly kind: 'healthy' | 'storm';
  readonly solution: CallSolution;
}

/** What {@link callEquilibria} found. */
export interface CallEquilibria {
  /**
   * The state the rising load reached first (the one an idle network settles in: `healthy`, or
   * `storm` where it tipped on the way), then the state from saturation where it differs; one
   * entry when both starts reach the same state.
   */
  readonly equilibria: readonly CallEquilibrium[];
  /**
   * Where the rising load first tipped the network out of the healthy state, as a share of the
   * external rates (e.g. 0.59: above 59 % of this load the healthy state no longer exists),
   * pinned to 1/4096 of the load; empty where it did not tip. The later folds of a cascade (one
   * subtree tipping after another) shape the state reached but are not listed.
   */
  readonly tips: readonly number[];
  /**
   * True when the search from saturation did not settle: no storm state was found, but none is
   * ruled out either.
   */
  readonly stormUnsettled?: boolean;
}

/**
 * The equilibria of a call-graph network that an operator can meet: the one an idle network
 * settles in as its load rises from zero to the given rates (`raiseLoad`: the load raised in
 * steps, each settled), and the one a network in a retry storm (every attempt failing) settles
 * in. When they differ the configuration is bistable — a metastable failure: the same load
 * sustains both a healthy state and a storm, and a trigger can move it from one to the other for
 * good. Where the sweeps find no rest, each branch is followed by continuation instead (see
 * {@link solveCalls}).
 *
 * A branch that was not found is left out, except that a healthy entry that did not converge is
 * kept when nothing converged, so the caller can say why.
 */
export function callEquilibria(
  network: NetworkModel,
  options: Omit<
    CallSolveOptions,
    'saturated' | 'initialS' | 'initialRho' | 'scale' | 'onProgress'
  > & {
    /**
     * Called at the start of each branch's search and every so many sweeps within it (about
     * every 500,000 cell updates, at most 250 sweeps apart), with the sweeps made so far.
     */
    readonly onProgress?: (progress: AnalysisProgress) => void;
  } = {},
): CallEquilibria {
  const { onProgress, ...solveOptions } = options;
  const { layout, sweep } = laidOutSweep(network);
  const plan = sweep.plan;
  if (onProgress !== undefined) {
    onProgress({ phase: 'healthy', sweeps: 0 });
    sweep.progress = {
      every: sweepsPerReport(plan.serviceCount * plan.classCount),
      report: (sweeps) => onProgress({ phase: 'healthy', sweeps }),
    };
  }
  const raised = raiseLoad(sweep, 1, solveOptions);
  const tips = raised.tips;
  // The rising load tipped: the state it reached is the storm it tipped into.
  const kind = tips.length > 0 ? 'storm' : 'healthy';
  let rising: CallEquilibrium;
  if (raised.settled) {
    rising = {
      kind,
      solution: callSolution(
        sweep,
        1,
        {
          converged: true,
          stable: raised.stable !== false,
          iterations: raised.iterations,
          residual: raised.residual,
        },
        layout,
      ),
    };
  } else {
    // The rising load found no rest short of the full load: settle at the full load from the
    // last state it reached (not from idle, which would skip the tips on the way), and say
    // whether that converged.
    const relaxed = settleCalls(sweep, 1, {
      tolerance: solveOptions.tolerance,
      maxIterations: solveOptions.maxIterations,
    });
    rising = {
      kind,
      solution: callSolution(
        sweep,
        1,
        { ...relaxed, iterations: raised.iterations + relaxed.iterations },
        layout,
      ),
    };
  }
  // The storm's sweeps count on from the healthy branch's (and the report made from it).
  const healthySweeps = sweep.sweeps;
  onProgress?.({ phase: 'storm', sweeps: healthySweeps });
  const storm = solveCalls(network, {
    ...solveOptions,
    saturated: true,
    maxIterations: Math.min(solveOptions.maxIterations ?? STORM_SWEEPS, STORM_SWEEPS),
    // Where the rising load tipped, its state is a storm already, and the search from saturation
    // is its relaxation alone (see TIPPED_STORM_EVALUATIONS).
    maxEvaluations: tips.length > 0 ? TIPPED_STORM_EVALUATIONS : STORM_EVALUATIONS,
    ...(onProgress === undefined
      ? {}
      : {
          onProgress: (sweeps: number) =>
            onProgress({ phase: 'storm', sweeps: healthySweeps + sweeps }),
        }),
  });
  if (!storm.converged) return { equilibria: [rising], tips, stormUnsettled: true };
  if (!rising.solution.converged) return { equilibria: [{ kind: 'storm', solution: storm }], tips };
  if (sameEquilibrium(rising.solution, storm)) return { equilibria: [rising], tips };
  // The state the rising load reached comes first: it is the one an idle network settles in.
  return { equilibria: [rising, { kind: 'storm', solution: storm }], tips };
}
