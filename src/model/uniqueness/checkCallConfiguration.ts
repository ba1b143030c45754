import type { NetworkModel } from '../network/NetworkModel.js';
import { type CallSolution, solveCalls } from '../network/solveCalls.js';
import type { RandomSource } from '../random.js';
import { checkStarts, type StartRun } from './checkStarts.js';
import { DISTINCT_TOLERANCE, largestRelativeDifference } from './compareFixedPoints.js';

/**
 * Start 1 has every s at this: the network congested everywhere at once, the corner where a
 * retry storm lives, which uniform starts reach with probability ~ 2^−N in N services.
 */
export const CONGESTED_START = 0.999;

/** A solver of the call-graph model from a starting s: {@link solveCalls} unless a test injects one. */
export type CallSolver = (
  network: NetworkModel,
  initialS: readonly number[] | undefined,
) => Pick<CallSolution, 's' | 'attempts' | 'callSuccess' | 'converged' | 'iterations'>;

/** Options of {@link checkCallConfiguration}. */
export interface CallCheckOptions {
  /** K, the number of solves (initial points), at least 1. */
  readonly inits: number;
  /** Draws the initial points. */
  readonly random: RandomSource;
  /**
   * Absolute difference of some s_i above which two converged runs are distinct; default 1e-6.
   * @default 1e-6
   */
  readonly tolerance?: number;
  /**
   * The solver; default {@link solveCalls} with its defaults.
   * @default solveCalls with its defaults
   */
  readonly solve?: CallSolver;
}

/** One solve of a call graph from one start, and the state it reached. */
export interface CallFixedPointRun {
  /** Which initial point (0 … K − 1). */
  readonly init: number;
  /** The starting s per service; undefined for the solver's own (the network idle, s = 0). */
  readonly initialS: readonly number[] | undefined;
  /** The s per service the run ended at. */
  readonly s: readonly number[];
  /** Attempts per second over every service and class, per external request per second. */
  readonly attemptsPerRequest: number;
  /** Σ_i γ_i S_i / Σ γ over every class: the share of external requests that succeed. */
  readonly completion: number;
  readonly converged: boolean;
  readonly iterations: number;
}

/**
 * Two converged runs of a call graph at different fixed points: the one in which more external
 * requests complete (or, completing alike, with fewer attempts per request) is `healthy`, the
 * other the `storm` (nested retries re-running failing subtrees).
 */
export interface DistinctCallFixedPoints {
  readonly healthy: CallFixedPointRun;
  readonly storm: CallFixedPointRun;
  /** Their largest difference of s over services (absolute: s is a probability). */
  readonly difference: number;
}

/** What K solves of one call-graph configuration found. */
export interface CallConfigurationCheck {
  readonly classes: number;
  readonly services: number;
  /** Always `none`: no theorem makes a call graph's fixed point unique. */
  readonly guarantee: 'none';
  /** Solves run (cases): K. */
  readonly runs: number;
  readonly converged: number;
  /** Runs that hit the sweep limit: counted, never a finding. */
  readonly nonConverged: number;
  /** Most sweeps any run needed. */
  readonly maxIterations: number;
  /**
   * Two converged runs at different fixed points, if any. Not a solver failure: with nested
   * retries a call graph can be bistable, a healthy state and a retry storm both self-consistent.
   */
  readonly distinct?: DistinctCallFixedPoints;
}

/**
 * Solves a call-graph network K times from different initial s and checks whether every
 * converged run reaches the same fixed point. Run 0 starts where `difftry analyze` does, from
 * the network idle (s = 0); run 1 from it congested (every s_i = {@link CONGESTED_START}); runs
 * 2 … K − 1 at s_i uniform in [0, 1), drawn in order from `random`. Two converged runs are distinct when some s_i differs by more than `tolerance`.
 *
 * Uniqueness is not proven for call graphs, and it can fail for real: in a deep graph with big
 * retry limits at heavy load, a storm — children rejecting, callers retrying whole subtrees,
 * which keeps the children overloaded — can be a fixed point beside the healthy one. A distinct
 * pair is reported as such, `healthy` and `storm` told apart by their completion (then attempts).
 *
 * Pure: the result depends only on the network and the draws of `random`.
 * @throws {RangeError} when `inits` is not a positive integer, and as the solver throws.
 * @example
 * ```ts
 * const check = checkCallConfiguration(network, { inits: 10, random: seededRandom(3) });
 * if (check.distinct) console.log('bistable:', check.distinct.storm.attemptsPerRequest);
 * ```
 */
export function checkCallConfiguration(
  network: NetworkModel,
  options: CallCheckOptions,
): CallConfigurationCheck {
  const { random } = options;
  const solve: CallSolver =
    options.solve ??
    ((net, initialS) => solveCalls(net, initialS === undefined ? {} : { initialS }));
  const n = network.services.length;
  const check = checkStarts({
    inits: options.inits,
    size: n,
    drawStart: (start, init) => {
      for (let i = 0; i < n; i++) start[i] = init === 1 ? CONGESTED_START : random();
    },
    solve: (start) => {
      const solution = solve(network, start === undefined ? undefined : Array.from(start));
      return {
        fixedPoint: solution.s,
        converged: solution.converged,
        iterations: solution.iterations,
      };
    },
    // s is a probability: a floor of 1 makes the relative difference the absolute one.
    difference: (a, b) => largestRelativeDifference(a, b, 1),
    tolerance: options.tolerance ?? DISTINCT_TOLERANCE,
  });
  const pair = check.distinct;
  let distinct: DistinctCallFixedPoints | undefined;
  if (pair !== undefined) {
    // Solving again from the same start reaches the same state: describe the two for the report.
    const [a, b] = [
      describeRun(network, pair.first, solve),
      describeRun(network, pair.second, solve),
    ];
    const [healthy, storm] = healthier(a, b) ? [a, b] : [b, a];
    distinct = { healthy, storm, difference: pair.difference };
  }
  return {
    classes: network.classes.length,
    services: n,
    guarantee: 'none',
    runs: options.inits,
    converged: check.converged,
    nonConverged: check.nonConverged,
    maxIterations: check.maxIterations,
    ...(distinct === undefined ? {} : { distinct }),
  };
}

/** Completions closer than this count as equal when telling the healthy state from the storm. */
const SAME_COMPLETION = 1e-9;

/**
 * Whether `a` is the healthier of two states: more of the external requests complete, or, when
 * they complete alike (a saturated entry can fix the completion of both), fewer attempts.
 */
function healthier(a: CallFixedPointRun, b: CallFixedPointRun): boolean {
  if (Math.abs(a.completion - b.completion) > SAME_COMPLETION) return a.completion > b.completion;
  return a.attemptsPerRequest <= b.attemptsPerRequest;
}

/** A run with its attempts per request and completion, from a solve at its start. */
function describeRun(network: NetworkModel, run: StartRun, solve: CallSolver): CallFixedPointRun {
  const initialS = run.start === undefined ? undefined : Array.from(run.start);
  const solution = solve(network, initialS);
  let external = 0;
  let attempts = 0;
  let completed = 0;
  network.services.forEach((service, i) => {
    network.classes.forEach((_, p) => {
      const gamma = service.arrivals[p] ?? 0;
      external += gamma;
      completed += gamma * (solution.callSuccess[i]?.[p] ?? 0);
      attempts += solution.attempts[i]?.[p] ?? 0;
    });
  });
  return {
    init: run.init,
    initialS,
    s: Array.from(run.fixedPoint),
    attemptsPerRequest: external > 0 ? attempts / external : Number.NaN,
    completion: external > 0 ? completed / external : Number.NaN,
    converged: run.converged,
    iterations: run.iterations,
  };
}
