import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { analyzeNetwork } from '../network/analyzeNetwork.js';
import type { NetworkModel, NetworkService } from '../network/NetworkModel.js';
import { type AssessOptions, assessContext, assessMetrics } from './assessNetwork.js';
import { paretoFrontier } from './paretoFrontier.js';
import { gridPoint, gridSize, type RetryRange, resolveGrid } from './RetryGrid.js';
import type { TuneConstraint } from './TuneConstraint.js';
import { type TuneMetrics, type TuneObjective, tuneMetrics } from './TuneMetrics.js';
import {
  comparable,
  compareByRetries,
  DEFAULT_SIGNIFICANT_DIGITS,
  type TunePoint,
} from './TunePoint.js';

/** The most grid points {@link tuneRetryLimits} evaluates unless told otherwise. */
export const DEFAULT_MAX_POINTS = 100_000;

/** Options of {@link tuneRetryLimits}; the objective, weights and constraints as in `assessNetwork`. */
export interface TuneOptions extends AssessOptions {
  /**
   * The retry limits to try, one inclusive range per class (indexed like the classes); a class
   * without one gets 0..8 ({@link DEFAULT_RETRY_RANGE}).
   * @default { min: 0, max: 8 } for every class (`DEFAULT_RETRY_RANGE`)
   */
  readonly grid?: readonly (RetryRange | undefined)[];
  /**
   * Refuse grids with more points than this; default {@link DEFAULT_MAX_POINTS}.
   * @default 100_000 (`DEFAULT_MAX_POINTS`)
   */
  readonly maxPoints?: number;
  /**
   * Objectives, attempts per request and violations are compared at this many significant
   * digits (an integer from 1 to 15; default 10, which only absorbs round-off). Fewer digits
   * treat gains below that resolution as ties, which go to fewer retries, and keep the frontier
   * to steps that matter: 4 digits ignore gains under about 0.01 %.
   * @default 10
   */
  readonly significantDigits?: number;
  /** Called with the fraction of the grid done, in (0, 1], about a hundred times. */
  readonly onProgress?: (fraction: number) => void;
}

/** What {@link tuneRetryLimits} found. */
export interface TuneResult {
  readonly classNames: readonly string[];
  readonly grid: readonly RetryRange[];
  readonly objective: TuneObjective;
  readonly weights: readonly number[];
  readonly constraints: readonly TuneConstraint[];
  /** The digits at which points were compared (see {@link TuneOptions.significantDigits}). */
  readonly significantDigits: number;
  /** Every grid point, in lexicographic order of its limits (the first class varies slowest). */
  readonly points: readonly TunePoint[];
  /** Grid points evaluated (the grid's size). */
  readonly evaluated: number;
  /**
   * Network solves run: fewer than `evaluated` when a class has no external arrivals, since its
   * retry limit then changes nothing and one solve serves all its values.
   */
  readonly analyses: number;
  /** Points that meet every constraint. */
  readonly feasibleCount: number;
  /** Points whose fixed point did not converge (never feasible). */
  readonly unconverged: number;
  /**
   * The feasible point with the highest objective; ties (at `significantDigits`) go to fewer
   * attempts per request, then to fewer total retries, then to lexicographically smaller
   * limits. It is always `frontier[0]`. Undefined when none is feasible.
   */
  readonly best: TunePoint | undefined;
  /**
   * The Pareto frontier of the feasible points over (objective ↑, attempts per request ↓),
   * highest objective first (see `paretoFrontier`). Empty when none is feasible.
   */
  readonly frontier: readonly TunePoint[];
  /**
   * When no point is feasible: the one that breaks the constraints least (smallest total
   * relative excess, converged points first; then highest objective, fewest retries). Its
   * `excess` says which constraint blocks and by how much. Undefined when `best` is defined.
   */
  readonly leastViolating: TunePoint | undefined;
}

/**
 * Chooses per-class retry limits for a network: for every point of a small integer grid, sets
 * the retry limit of class p to k_p at every hop (the class's `retryLimit` and every service's
 * `retryLimits[p]`, replacing per-service overrides), analyses the network with `analyzeNetwork`,
 * and judges the result by the objective (default weighted goodput
 * Σ_p w_p · completion_p · Σ_i γ_i^p) and the constraints.
 *
 * The network is prepared once: each point's model shares everything but the limits, and a
 * service's residual-time α lists are cut once per limit (give α for at least the grid's largest
 * limit; a shorter list repeats its last element). A class with no external traffic has its
 * limit collapsed, so its range costs no extra solves.
 * @throws RangeError for a bad grid, weight or constraint, a grid larger than `maxPoints`, or a
 *   network the analysis refuses.
 * @example
 * ```ts
 * const result = tuneRetryLimits(model, {
 *   grid: [{ min: 0, max: 8 }, { min: 0, max: 3 }],
 *   weights: [10, 1],
 *   constraints: [
 *     { metric: 'rejection', class: 'high', op: '<=', bound: 0.05 },
 *     { metric: 'attemptsPerRequest', op: '<=', bound: 4 },
 *   ],
 * });
 * result.best?.limits; // e.g. [8, 0]
 * result.frontier;     // what each extra attempt per request buys
 * ```
 */
export function tuneRetryLimits(network: NetworkModel, options: TuneOptions = {}): TuneResult {
  const context = assessContext(network, options);
  const classCount = context.classNames.length;
  const grid = resolveGrid(options.grid, context.classNames);
  const maxPoints = options.maxPoints ?? DEFAULT_MAX_POINTS;
  if (!(Number.isInteger(maxPoints) && maxPoints >= 1)) {
    throw new InvalidArgumentError(`maxPoints should be an integer ≥ 1, got ${maxPoints}`);
  }
  const digits = options.significantDigits ?? DEFAULT_SIGNIFICANT_DIGITS;
  if (!(Number.isInteger(digits) && digits >= 1 && digits <= 15)) {
    throw new InvalidArgumentError(
      `significantDigits should be an integer from 1 to 15, got ${digits}`,
    );
  }
  const size = gridSize(grid);
  if (size > maxPoints) {
    const lengths = grid.map((r) => r.max - r.min + 1).join(' × ');
    throw new InvalidArgumentError(
      `the grid has ${size} points (${lengths}), more than maxPoints (${maxPoints}); narrow some class's range or raise maxPoints`,
    );
  }

  const prepared = preparedNetwork(network, grid);
  const analyse = (limits: readonly number[]) =>
    tuneMetrics(
      analyzeNetwork(prepared.withLimits(limits), context.analysis),
      context.classNames,
      context.external,
    );
  let analyses = 0;
  // A class without external arrivals sends no attempts anywhere: its limit changes nothing.
  const idle = context.external.map((rate) => !(rate > 0));
  const cache = idle.some(Boolean) ? new Map<string, TuneMetrics>() : undefined;
  const progressStep = Math.max(1, Math.floor(size / 100));
  const points: TunePoint[] = [];
  const scratch = new Array<number>(classCount).fill(0);
  for (let index = 0; index < size; index++) {
    gridPoint(grid, index, scratch);
    const limits = scratch.slice();
    const effective = limits.map((k, p) => (idle[p] ? (grid[p] as RetryRange).min : k));
    const key = cache ? effective.join(',') : '';
    let metrics = cache?.get(key);
    if (metrics === undefined) {
      metrics = analyse(effective);
      analyses++;
      cache?.set(key, metrics);
    }
    points.push(assessMetrics(context, limits, metrics));
    if ((index + 1) % progressStep === 0 || index + 1 === size) {
      options.onProgress?.((index + 1) / size);
    }
  }

  const feasible = points.filter((p) => p.feasible);
  const best = pickBest(feasible, digits);
  return {
    classNames: context.classNames,
    grid,
    objective: context.objective,
    weights: context.weights,
    constraints: context.constraints.map((c) => c.constraint),
    significantDigits: digits,
    points,
    evaluated: size,
    analyses,
    feasibleCount: feasible.length,
    unconverged: points.filter((p) => !p.metrics.converged).length,
    best,
    frontier: paretoFrontier(feasible, digits),
    leastViolating: best === undefined ? pickLeastViolating(points, digits) : undefined,
  };
}

/**
 * The network with given per-class limits at every hop, and the α lists cut to them. Everything
 * but the limits is shared with the input; each service's α list is cut once per limit.
 */
function preparedNetwork(network: NetworkModel, grid: readonly RetryRange[]) {
  const mode =
    network.mode ??
    (network.services.some((s) => (s.calls?.length ?? 0) > 0 || (s.branches?.length ?? 0) > 0)
      ? 'calls'
      : 'routing');
  // cuts[i][p][k − min]: service i's α list for class p cut to k retries.
  const cuts = network.services.map((service) =>
    service.residualAlphas === undefined
      ? undefined
      : grid.map((range, p) => {
          const list = service.residualAlphas?.[p] ?? [];
          return Array.from({ length: range.max - range.min + 1 }, (_, j) => {
            const k = range.min + j;
            return list.length > k ? list.slice(0, k) : list;
          });
        }),
  );
  const alphasFor = (limits: readonly number[]): ((readonly number[])[] | undefined)[] =>
    cuts.map((byClass) =>
      byClass?.map(
        (byLimit, p) =>
          byLimit[(limits[p] as number) - (grid[p] as RetryRange).min] as readonly number[],
      ),
    );
  const withLimits = (limits: readonly number[]): NetworkModel => {
    const alphas = alphasFor(limits);
    return {
      mode,
      classes: network.classes.map((c, p) => ({ name: c.name, retryLimit: limits[p] as number })),
      services: network.services.map(
        (service, i): NetworkService => ({
          ...service,
          retryLimits: limits,
          residualAlphas: alphas[i],
        }),
      ),
    };
  };
  return { alphasFor, withLimits };
}

function pickBest(feasible: readonly TunePoint[], digits: number): TunePoint | undefined {
  let best: TunePoint | undefined;
  for (const point of feasible) {
    if (best === undefined) {
      best = point;
      continue;
    }
    const byObjective = comparable(point.objective, digits) - comparable(best.objective, digits);
    const byAttempts =
      comparable(best.metrics.attemptsPerRequest, digits) -
      comparable(point.metrics.attemptsPerRequest, digits);
    if (
      byObjective > 0 ||
      (byObjective === 0 &&
        (byAttempts > 0 || (byAttempts === 0 && compareByRetries(point, best) < 0)))
    ) {
      best = point;
    }
  }
  return best;
}

function pickLeastViolating(points: readonly TunePoint[], digits: number): TunePoint | undefined {
  let least: TunePoint | undefined;
  for (const point of points) {
    if (least === undefined || violatesLess(point, least, digits)) least = point;
  }
  return least;
}

/** Whether `a` is closer to feasible than `b`. */
function violatesLess(a: TunePoint, b: TunePoint, digits: number): boolean {
  if (a.metrics.converged !== b.metrics.converged) return a.metrics.converged;
  const [violationA, violationB] = [
    comparable(a.violation, digits),
    comparable(b.violation, digits),
  ];
  if (violationA !== violationB) return violationA < violationB;
  const [objectiveA, objectiveB] = [
    comparable(a.objective, digits),
    comparable(b.objective, digits),
  ];
  if (objectiveA !== objectiveB) return objectiveA > objectiveB;
  return compareByRetries(a, b) < 0;
}
