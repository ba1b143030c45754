import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { type AnalyzeOptions, analyzeNetwork } from '../network/analyzeNetwork.js';
import type { NetworkModel } from '../network/NetworkModel.js';
import {
  constraintExcess,
  constraintValue,
  type ResolvedConstraint,
  relativeExcess,
  resolveConstraints,
  type TuneConstraint,
} from './TuneConstraint.js';
import {
  externalRates,
  objectiveValue,
  type TuneMetrics,
  type TuneObjective,
  tuneMetrics,
} from './TuneMetrics.js';
import type { TunePoint } from './TunePoint.js';

/** How a setting of retry limits is judged: shared by {@link assessNetwork} and the tuner. */
export interface AssessOptions {
  /**
   * Default `weighted-goodput` (which, with every weight 1, is plain goodput).
   * @default 'weighted-goodput'
   */
  readonly objective?: TuneObjective;
  /**
   * w_p per class, finite and ≥ 0, indexed like the classes; default 1 each.
   * @default 1 for every class
   */
  readonly weights?: readonly number[];
  /**
   * Bounds every acceptable point meets; default none.
   * @default none
   */
  readonly constraints?: readonly TuneConstraint[];
  /**
   * Passed on to `analyzeNetwork`.
   * @default analyzeNetwork's own defaults
   */
  readonly analysis?: AnalyzeOptions;
}

/** {@link AssessOptions} checked against a network, ready for many points. */
export interface AssessContext {
  readonly classNames: readonly string[];
  /** Σ_i γ_i^p per class, requests per second. */
  readonly external: readonly number[];
  readonly objective: TuneObjective;
  readonly weights: readonly number[];
  readonly constraints: readonly ResolvedConstraint[];
  readonly analysis: AnalyzeOptions;
}

/**
 * Checks the options against a network once.
 * @throws RangeError for weights of the wrong length or sign, a bad constraint, or a network
 *   without external arrivals (nothing to tune).
 */
export function assessContext(network: NetworkModel, options: AssessOptions = {}): AssessContext {
  const classNames = network.classes.map((c) => c.name);
  const external = externalRates(network);
  if (!external.some((rate) => rate > 0)) {
    throw new InvalidArgumentError(
      'the network has no external arrivals, so there is nothing to tune',
    );
  }
  const objective = options.objective ?? 'weighted-goodput';
  if (objective !== 'goodput' && objective !== 'weighted-goodput') {
    throw new InvalidArgumentError(
      `objective should be 'goodput' or 'weighted-goodput', got ${String(objective)}`,
    );
  }
  const weights = options.weights ?? classNames.map(() => 1);
  if (weights.length !== classNames.length) {
    throw new InvalidArgumentError(
      `weights should have one entry per class (${classNames.length}), got ${weights.length}`,
    );
  }
  weights.forEach((w, p) => {
    if (!(Number.isFinite(w) && w >= 0)) {
      throw new InvalidArgumentError(
        `weights[${p}] (class ${classNames[p]}) should be a finite number ≥ 0, got ${w}`,
      );
    }
  });
  return {
    classNames,
    external,
    objective,
    weights,
    constraints: resolveConstraints(options.constraints ?? [], classNames, external),
    analysis: options.analysis ?? {},
  };
}

/** Judges already computed metrics: objective, excess per constraint, feasibility. */
export function assessMetrics(
  context: AssessContext,
  limits: readonly number[],
  metrics: TuneMetrics,
): TunePoint {
  let violation = 0;
  const excess = context.constraints.map(({ constraint, classIndex }) => {
    const amount = constraintExcess(
      constraint,
      constraintValue(constraint.metric, classIndex, metrics),
    );
    violation += relativeExcess(constraint, amount);
    return amount;
  });
  return {
    limits,
    metrics,
    objective: objectiveValue(context.objective, context.weights, metrics),
    excess,
    violation,
    feasible: violation === 0 && metrics.converged,
  };
}

/**
 * Analyses a network as it is and judges it as the tuner would: objective, metrics, and by how
 * much each constraint is broken. `limits` in the result are the classes' default retry limits
 * (a file's per-service overrides are analysed but not shown there).
 * @example
 * ```ts
 * const current = assessNetwork(model, {
 *   weights: [10, 1],
 *   constraints: [{ metric: 'rejection', class: 'high', op: '<=', bound: 0.05 }],
 * });
 * current.feasible; // does the file's own setting meet the bound?
 * ```
 */
export function assessNetwork(network: NetworkModel, options: AssessOptions = {}): TunePoint {
  const context = assessContext(network, options);
  const report = analyzeNetwork(network, context.analysis);
  return assessMetrics(
    context,
    network.classes.map((c) => c.retryLimit),
    tuneMetrics(report, context.classNames, context.external),
  );
}
