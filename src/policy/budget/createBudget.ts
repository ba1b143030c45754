import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import type { RandomSource } from '../../model/random.js';
import { type ClassAwareBudgetOptions, classAwareBudget } from './classAwareBudget.js';
import { type EnvoyBudgetOptions, envoyBudget } from './envoyBudget.js';
import { type FinagleBudgetOptions, finagleBudget } from './finagleBudget.js';
import { type GrpcThrottleOptions, grpcThrottle } from './grpcThrottle.js';
import type { RetryBudget } from './RetryBudget.js';
import { type SreThrottleOptions, sreThrottle } from './sreThrottle.js';

/**
 * A retry budget as plain data (a network file, a CLI `--strategy`): the kind and the options of
 * its factory. The SRE throttle's random source is not data: {@link createBudget} takes it apart.
 */
export type BudgetDescription =
  | ({ readonly kind: 'finagle' } & FinagleBudgetOptions)
  | ({ readonly kind: 'grpc' } & GrpcThrottleOptions)
  | ({ readonly kind: 'envoy' } & EnvoyBudgetOptions)
  | ({ readonly kind: 'sre' } & Omit<SreThrottleOptions, 'random'>)
  | ({ readonly kind: 'class-aware' } & ClassAwareBudgetOptions);

/** The kinds of {@link BudgetDescription}, each with the options its description may carry. */
const OPTION_NAMES: Readonly<Record<BudgetDescription['kind'], readonly string[]>> = {
  finagle: ['ttlMs', 'minRetriesPerSec', 'percentCanRetry', 'slices'],
  grpc: ['maxTokens', 'tokenRatio'],
  envoy: ['budgetPercent', 'minRetryConcurrency'],
  sre: ['k', 'windowMs', 'slices'],
  'class-aware': [
    'ttlMs',
    'minRetriesPerSec',
    'percentCanRetry',
    'slices',
    'classes',
    'reserveShare',
  ],
};

/**
 * Builds a retry budget from its description, checking it: an unknown kind or an option the kind
 * does not have (a misspelt `ttl`) is a TypeError naming it; bad values throw as the factory does.
 * `random` is required for `sre` (and ignored otherwise).
 * @example
 * ```ts
 * createBudget({ kind: 'finagle', percentCanRetry: 0.1 });
 * createBudget({ kind: 'sre', k: 2 }, seededRandom(7));
 * createBudget({ kind: 'class-aware', classes: ['high', 'low'], reserveShare: 0.5 });
 * ```
 */
export function createBudget(
  description: Readonly<BudgetDescription>,
  random?: RandomSource,
): RetryBudget {
  if (description === null || typeof description !== 'object') {
    throw new InvalidArgumentTypeError(
      `a budget description should be an object with a kind, got ${String(description)}`,
    );
  }
  const kind = description.kind;
  if (!Object.hasOwn(OPTION_NAMES, kind)) {
    throw new InvalidArgumentTypeError(
      `budget kind should be one of ${Object.keys(OPTION_NAMES).join(', ')}, got ${JSON.stringify(kind)}`,
    );
  }
  const allowed = OPTION_NAMES[kind];
  for (const key of Object.keys(description)) {
    if (key !== 'kind' && !allowed.includes(key)) {
      throw new InvalidArgumentTypeError(
        `a ${kind} budget has no option ${JSON.stringify(key)} (expected ${allowed.join(', ')})`,
      );
    }
  }
  switch (description.kind) {
    case 'finagle':
      return finagleBudget(description);
    case 'grpc':
      return grpcThrottle(description);
    case 'envoy':
      return envoyBudget(description);
    case 'sre':
      if (typeof random !== 'function') {
        throw new InvalidArgumentTypeError(
          'an sre budget needs a random source: createBudget(description, random)',
        );
      }
      return sreThrottle({ ...description, random });
    case 'class-aware':
      return classAwareBudget(description);
  }
}
