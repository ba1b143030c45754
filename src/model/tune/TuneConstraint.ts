import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { TuneMetrics } from './TuneMetrics.js';

/** Metrics of one class (a constraint on them names the class). */
export const CLASS_METRICS = ['rejection', 'completion'] as const;

/** Metrics of a class, or of the whole network when no class is named. */
export const CLASS_OR_TOTAL_METRICS = ['goodput'] as const;

/** Metrics of the whole network (a constraint on them names no class). */
export const NETWORK_METRICS = [
  'attemptsPerRequest',
  'attemptsPerSuccess',
  'internalPerRequest',
  'maxRho',
  'storms',
] as const;

/**
 * What a constraint bounds (docs/design.md definitions; see {@link TuneMetrics}):
 * - `rejection`, `completion`: end-to-end probabilities of one class;
 * - `goodput`: completed requests per second of one class, or of all classes together;
 * - `attemptsPerRequest`, `attemptsPerSuccess`, `internalPerRequest`: the report's `load`
 *   figures (attempts per external request, per completed request, and the internal share);
 * - `maxRho`: the largest offered load ρ = ΣΛ/μ of any service;
 * - `storms`: how many retry-storm equilibria the analysis finds at the load (0 or 1; 1 when
 *   the configuration is bistable or tips into a storm). `monostable` is `storms <= 0`.
 */
export type TuneMetric =
  | (typeof CLASS_METRICS)[number]
  | (typeof CLASS_OR_TOTAL_METRICS)[number]
  | (typeof NETWORK_METRICS)[number];

/** Every metric a constraint may bound. */
export const TUNE_METRICS: readonly TuneMetric[] = Object.freeze([
  ...CLASS_METRICS,
  ...CLASS_OR_TOTAL_METRICS,
  ...NETWORK_METRICS,
]);

/**
 * A bound on one metric of the solved network: `high.rejection <= 0.05` is
 * `{ metric: 'rejection', class: 'high', op: '<=', bound: 0.05 }`.
 */
export interface TuneConstraint {
  readonly metric: TuneMetric;
  /** The class the metric belongs to; required for `rejection` and `completion`. */
  readonly class?: string;
  readonly op: '<=' | '>=';
  readonly bound: number;
}

/** Whether `metric` is a metric of one class that needs a class name. */
export function needsClass(metric: TuneMetric): boolean {
  return (CLASS_METRICS as readonly string[]).includes(metric);
}

/** Whether `metric` may name a class. */
export function takesClass(metric: TuneMetric): boolean {
  return needsClass(metric) || (CLASS_OR_TOTAL_METRICS as readonly string[]).includes(metric);
}

/** The constraint as the CLI writes it: `high.rejection<=0.05`, `monostable`. */
export function describeConstraint(constraint: TuneConstraint): string {
  if (constraint.metric === 'storms' && constraint.op === '<=' && constraint.bound === 0)
    return 'monostable';
  const prefix = constraint.class === undefined ? '' : `${constraint.class}.`;
  return `${prefix}${constraint.metric}${constraint.op}${constraint.bound}`;
}

/**
 * The value a constraint reads from a point's metrics. `classIndex` is the index of the
 * constraint's class (undefined for a network metric or total goodput).
 */
export function constraintValue(
  metric: TuneMetric,
  classIndex: number | undefined,
  metrics: TuneMetrics,
): number {
  switch (metric) {
    case 'rejection':
      return metrics.rejection[classIndex ?? -1] ?? Number.NaN;
    case 'completion':
      return 1 - (metrics.rejection[classIndex ?? -1] ?? Number.NaN);
    case 'goodput':
      return classIndex === undefined
        ? metrics.totalGoodput
        : (metrics.goodput[classIndex] ?? Number.NaN);
    case 'attemptsPerRequest':
      return metrics.attemptsPerRequest;
    case 'attemptsPerSuccess':
      return metrics.attemptsPerSuccess;
    case 'internalPerRequest':
      return metrics.internalPerRequest;
    case 'maxRho':
      return metrics.maxRho;
    case 'storms':
      return metrics.storms;
  }
}

/**
 * By how much `value` breaks the constraint, in the metric's own unit: 0 when it holds,
 * +∞ when the value is not a number (an unsolved point).
 */
export function constraintExcess(constraint: TuneConstraint, value: number): number {
  if (Number.isNaN(value)) return Number.POSITIVE_INFINITY;
  const excess = constraint.op === '<=' ? value - constraint.bound : constraint.bound - value;
  return Math.max(excess, 0);
}

/**
 * The excess made comparable across metrics: divided by |bound|, or by 1 when the bound is 0
 * (rejection ≤ 0.05 missed by 0.01 weighs 0.2, attempts ≤ 4 missed by 1 weighs 0.25).
 */
export function relativeExcess(constraint: TuneConstraint, excess: number): number {
  return excess / (constraint.bound === 0 ? 1 : Math.abs(constraint.bound));
}

/** A checked constraint with its class resolved to an index. */
export interface ResolvedConstraint {
  readonly constraint: TuneConstraint;
  /** Index of the constraint's class; undefined for a network metric or total goodput. */
  readonly classIndex: number | undefined;
}

/**
 * Checks constraints against a network's classes and resolves class names to indices.
 * @param external - external requests per second per class: a class metric of a class with no
 *   traffic means nothing, so it is refused.
 * @throws RangeError naming the constraint and what is wrong with it.
 */
export function resolveConstraints(
  constraints: readonly TuneConstraint[],
  classNames: readonly string[],
  external: readonly number[],
): ResolvedConstraint[] {
  return constraints.map((constraint, i) => {
    const where = `constraints[${i}]`;
    const { metric, op, bound } = constraint;
    if (!TUNE_METRICS.includes(metric)) {
      throw new InvalidArgumentError(
        `${where}.metric should be one of ${TUNE_METRICS.join(', ')}, got ${String(metric)}`,
      );
    }
    if (op !== '<=' && op !== '>=') {
      throw new InvalidArgumentError(`${where}.op should be '<=' or '>=', got ${String(op)}`);
    }
    if (!Number.isFinite(bound)) {
      throw new InvalidArgumentError(`${where}.bound should be a finite number, got ${bound}`);
    }
    if (constraint.class === undefined) {
      if (needsClass(metric)) {
        throw new InvalidArgumentError(
          `${where}: ${metric} is a metric of one class, expected a class (${classNames.join(', ')})`,
        );
      }
      return { constraint, classIndex: undefined };
    }
    if (!takesClass(metric)) {
      throw new InvalidArgumentError(
        `${where}: ${metric} is a metric of the whole network, expected no class, got ${constraint.class}`,
      );
    }
    const classIndex = classNames.indexOf(constraint.class);
    if (classIndex < 0) {
      throw new InvalidArgumentError(
        `${where}.class should be one of the network's classes (${classNames.join(', ')}), got ${constraint.class}`,
      );
    }
    if (!((external[classIndex] ?? 0) > 0)) {
      throw new InvalidArgumentError(
        `${where}: class ${constraint.class} has no external arrivals, so its ${metric} is undefined`,
      );
    }
    return { constraint, classIndex };
  });
}
