import type { RandomSource } from '../../model/random.js';
import {
  type BudgetDescription,
  createBudget,
  type RetryBudget,
} from '../../policy/budget/index.js';

/**
 * How the clients of a simulated network retry (docs/design.md, the comparison of strategies):
 * - `difftry`: each class its own limit at each hop, no budget (the default);
 * - `uniform`: every class the highest class's limit at each hop, no budget;
 * - `budget-finagle`, `budget-grpc`, `budget-envoy`, `sre-throttle`: uniform limits plus one
 *   budget of that kind per hop (per service's clients), with the budget's default options;
 * - `class-budget`: uniform limits plus one class-aware budget per hop, classes in priority order.
 */
export type NetworkStrategy =
  | 'difftry'
  | 'uniform'
  | 'budget-finagle'
  | 'budget-grpc'
  | 'budget-envoy'
  | 'sre-throttle'
  | 'class-budget';

/** Every {@link NetworkStrategy}, in the order reports list them. */
export const NETWORK_STRATEGIES: readonly NetworkStrategy[] = [
  'difftry',
  'uniform',
  'budget-finagle',
  'budget-grpc',
  'budget-envoy',
  'sre-throttle',
  'class-budget',
];

/** Whether `name` is a {@link NetworkStrategy}. */
export function isNetworkStrategy(name: unknown): name is NetworkStrategy {
  return typeof name === 'string' && (NETWORK_STRATEGIES as readonly string[]).includes(name);
}

/** Whether the strategy gives every class the highest class's limit (all but `difftry`). */
export function usesUniformLimits(strategy: NetworkStrategy): boolean {
  return strategy !== 'difftry';
}

/** The budget description of a strategy, undefined for `difftry` and `uniform`. */
export function strategyBudget(
  strategy: NetworkStrategy,
  classNames: readonly string[],
): BudgetDescription | undefined {
  switch (strategy) {
    case 'difftry':
    case 'uniform':
      return undefined;
    case 'budget-finagle':
      return { kind: 'finagle' };
    case 'budget-grpc':
      return { kind: 'grpc' };
    case 'budget-envoy':
      return { kind: 'envoy' };
    case 'sre-throttle':
      return { kind: 'sre' };
    case 'class-budget':
      return { kind: 'class-aware', classes: [...classNames] };
  }
}

/**
 * A fresh budget of the strategy for one hop, built by `createBudget` (the SRE throttle draws
 * from `random`, the run's seeded source); undefined when the strategy has none.
 */
export function createStrategyBudget(
  strategy: NetworkStrategy,
  classNames: readonly string[],
  random: RandomSource,
): RetryBudget | undefined {
  const description = strategyBudget(strategy, classNames);
  return description === undefined ? undefined : createBudget(description, random);
}
