import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import { linearCost } from '../../model/timeouts/index.js';
import type { Clock } from '../Clock.js';
import { checkOptionsObject } from './checkOption.js';
import { type CombinedTimeoutsOptions, combinedTimeouts } from './combinedTimeouts.js';
import { type ControllerTimeoutsOptions, controllerTimeouts } from './controllerTimeouts.js';
import {
  type ExponentialBackoffTimeoutsOptions,
  exponentialBackoffTimeouts,
} from './exponentialBackoffTimeouts.js';
import {
  type OptimizerTimeoutsOptions,
  optimizerTimeouts,
  type TimeoutOptimizer,
} from './optimizerTimeouts.js';
import { type RtoTimeoutsOptions, rtoTimeouts } from './rtoTimeouts.js';
import { fixedTimeout, type TimeoutStrategy } from './TimeoutStrategy.js';

/** The linear attempt cost g(t) = c0 + c1·t as data (seconds); see the model's `linearCost`. */
export interface LinearCostDescription {
  readonly c0?: number;
  readonly c1?: number;
}

/** The Optimizer's options as data: no functions, the cost as {@link LinearCostDescription}. */
export type OptimizerDescription = Omit<OptimizerTimeoutsOptions, 'clock' | 'optimize' | 'cost'> & {
  readonly cost?: LinearCostDescription;
};

/**
 * A timeout strategy as plain data (a CLI flag, a scenario file): the kind and the options of its
 * factory, without functions (see {@link TimeoutEnvironment}).
 */
export type TimeoutStrategyDescription =
  | { readonly kind: 'fixed'; readonly timeoutMs: number }
  | ({ readonly kind: 'exponential-backoff' } & ExponentialBackoffTimeoutsOptions)
  | ({ readonly kind: 'optimizer' } & OptimizerDescription)
  | ({ readonly kind: 'controller' } & ControllerTimeoutsOptions)
  | ({ readonly kind: 'combined' } & Omit<CombinedTimeoutsOptions, 'optimizer'> & {
        readonly optimizer?: Omit<OptimizerDescription, 'tzMs'>;
      })
  | ({ readonly kind: 'rto' } & RtoTimeoutsOptions);

/** What a description cannot carry: functions, given to {@link createTimeoutStrategy} apart. */
export interface TimeoutEnvironment {
  /** Times the Optimizer's recomputes (optimizer, combined); see `optimizerTimeouts`. */
  readonly clock?: Clock;
  /** Replaces the model's Optimizer (optimizer, combined), e.g. in tests. */
  readonly optimize?: TimeoutOptimizer;
}

/** The adaptive kinds of {@link TimeoutStrategyDescription} (all but `fixed`), in report order. */
export const ADAPTIVE_TIMEOUT_KINDS = [
  'exponential-backoff',
  'optimizer',
  'controller',
  'combined',
  'rto',
] as const satisfies readonly TimeoutStrategyDescription['kind'][];

/** Every kind of {@link TimeoutStrategyDescription}. */
export const TIMEOUT_KINDS = ['fixed', ...ADAPTIVE_TIMEOUT_KINDS] as const;

/** The kinds of {@link TimeoutStrategyDescription}, each with the options it may carry. */
const OPTION_NAMES: Readonly<Record<TimeoutStrategyDescription['kind'], readonly string[]>> = {
  fixed: ['timeoutMs'],
  'exponential-backoff': [
    'startMs',
    'startingLatencyMs',
    'factor',
    'elements',
    'headroom',
    'learnFrom',
    'initialMs',
  ],
  optimizer: [
    'depth',
    'bufferSize',
    'recomputeEvery',
    'tzMs',
    'cost',
    'weights',
    'initialMs',
    'maxMs',
  ],
  controller: ['initialMs', 'minMs', 'maxMs', 'alpha', 'k', 'beta', 'gamma'],
  combined: ['optimizer', 'controller', 'diagnosticEvery', 'diagnosticTimeoutMs'],
  rto: ['initialMs', 'minMs', 'maxMs', 'k', 'alpha', 'beta', 'clockGranularityMs'],
};

const COST_OPTION_NAMES = ['c0', 'c1'];

/**
 * Builds a timeout strategy from its description, checking it: an unknown kind or an option the
 * kind does not have (a misspelt `intialMs`, also inside a combined description's `optimizer`,
 * `controller` and a `cost`) is a TypeError naming it; bad values throw as the factory does.
 * @example
 * ```ts
 * createTimeoutStrategy({ kind: 'rto', minMs: 10 });
 * createTimeoutStrategy({ kind: 'optimizer', weights: 'recency', cost: { c1: 0.1 } });
 * createTimeoutStrategy({ kind: 'combined', diagnosticEvery: 20 }, { clock: performance.now });
 * ```
 */
export function createTimeoutStrategy(
  description: Readonly<TimeoutStrategyDescription>,
  environment: Readonly<TimeoutEnvironment> = {},
): TimeoutStrategy {
  if (description === null || typeof description !== 'object') {
    throw new InvalidArgumentTypeError(
      `a timeout strategy description should be an object with a kind, got ${String(description)}`,
    );
  }
  const kind = description.kind;
  if (!Object.hasOwn(OPTION_NAMES, kind)) {
    throw new InvalidArgumentTypeError(
      `timeout strategy kind should be one of ${Object.keys(OPTION_NAMES).join(', ')}, got ${JSON.stringify(kind)}`,
    );
  }
  checkKeys(`a timeout strategy of kind ${kind}`, description, ['kind', ...OPTION_NAMES[kind]]);
  const { clock, optimize } = environment;
  switch (description.kind) {
    case 'fixed':
      return fixedTimeout(description.timeoutMs);
    case 'exponential-backoff':
      return exponentialBackoffTimeouts(withoutKind(description));
    case 'optimizer':
      return optimizerTimeouts({
        ...optimizerOptions('a timeout strategy of kind optimizer', withoutKind(description)),
        ...(clock && { clock }),
        ...(optimize && { optimize }),
      });
    case 'controller':
      return controllerTimeouts(withoutKind(description));
    case 'combined': {
      const { optimizer = {}, controller, ...rest } = withoutKind(description);
      checkOptionsObject('controller', controller);
      const controllerNames = OPTION_NAMES.controller.filter((name) => name !== 'gamma');
      if (controller) checkKeys('a combined controller', controller, controllerNames);
      checkOptionsObject('optimizer', optimizer);
      const optimizerNames = OPTION_NAMES.optimizer.filter((name) => name !== 'tzMs');
      checkKeys('a combined optimizer', optimizer, optimizerNames);
      return combinedTimeouts({
        ...rest,
        ...(controller && { controller }),
        optimizer: {
          ...optimizerOptions('a combined optimizer', optimizer),
          ...(clock && { clock }),
          ...(optimize && { optimize }),
        },
      });
    }
    case 'rto':
      return rtoTimeouts(withoutKind(description));
  }
}

function withoutKind<T extends { readonly kind: string }>(description: T): Omit<T, 'kind'> {
  const { kind: _kind, ...options } = description;
  return options;
}

/** The Optimizer's options from data: the cost description becomes the model's linear cost. */
function optimizerOptions(
  where: string,
  description: Readonly<OptimizerDescription>,
): OptimizerTimeoutsOptions {
  const { cost, ...options } = description;
  if (cost === undefined) return options;
  checkOptionsObject(`${where}'s cost`, cost);
  checkKeys(`${where}'s cost`, cost, COST_OPTION_NAMES);
  return { ...options, cost: linearCost(cost) };
}

function checkKeys(what: string, options: object, allowed: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      const expected = allowed.filter((name) => name !== 'kind').join(', ');
      throw new InvalidArgumentTypeError(
        `${what} has no option ${JSON.stringify(key)} (expected ${expected})`,
      );
    }
  }
}
