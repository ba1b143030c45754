import {
  type BackoffDescription,
  DEFAULT_BACKOFF,
} from '../../model/backoff/BackoffDescription.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import type { RandomSource } from '../../model/random.js';
import type { Clock } from '../../policy/Clock.js';
import type { ClassOptions } from '../../policy/classes/ClassTable.js';
import type { CallSettings } from '../../policy/retry/CallTracker.js';
import { type RetryPolicy, retryPolicy } from '../../policy/retry/RetryPolicy.js';
import { fixedTimeout } from '../../policy/timeouts/TimeoutStrategy.js';
import type { SimulateNetworkOptions } from './SimulateNetworkOptions.js';
import { createStrategyBudget, type NetworkStrategy, usesUniformLimits } from './strategy.js';

/** The clients of every hop: one policy per service, and how a call of each cell runs. */
export interface HopPolicies {
  /** Per service: the policy of the clients calling it. */
  readonly policies: readonly RetryPolicy[];
  /**
   * Per cell (service × classCount + class): the settings of a call there (its per-try timeout
   * strategy, or null for none, and where its events go), handed to the request's tracker.
   */
  readonly cellCalls: readonly CallSettings[];
}

/**
 * Builds each hop's retry policy as the runtime would (`retryPolicy`, or the options'
 * `retryPolicy` factory) with the service's per-class limits (the highest class's for the uniform
 * strategies), the classes' backoffs, the strategy's budget, the virtual `clock` and the run's
 * `random` source; and resolves each cell's per-try timeout once.
 */
export function hopPolicies(
  network: NetworkModel,
  options: Readonly<SimulateNetworkOptions>,
  strategy: NetworkStrategy,
  clock: Clock,
  random: RandomSource,
): HopPolicies {
  const classNames = network.classes.map((c) => c.name);
  const classCount = classNames.length;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const backoffs = network.classes.map((_c, p) => options.classBackoffs?.[p] ?? backoff);
  const uniform = usesUniformLimits(strategy);
  const makePolicy = options.retryPolicy ?? ((_index, policyOptions) => retryPolicy(policyOptions));
  const policies = network.services.map((service, i) => {
    const limit = (p: number): number =>
      service.retryLimits[p] ?? network.classes[p]?.retryLimit ?? 0;
    const classes: Record<string, ClassOptions> = {};
    classNames.forEach((name, p) => {
      classes[name] = {
        retries: limit(uniform ? 0 : p),
        backoff: backoffs[p] as BackoffDescription,
      };
    });
    const budget = createStrategyBudget(strategy, classNames, random);
    return makePolicy(i, {
      classes,
      defaultClass: classNames[classCount - 1],
      backoff,
      clock,
      random,
      ...(budget === undefined ? {} : { budget }),
    });
  });
  const cellCalls: CallSettings[] = [];
  policies.forEach((policy, i) => {
    const hop = options.timeouts?.(i);
    const events = options.retryEvents?.(i);
    for (const name of classNames) {
      // Resolved once per cell (the tracker would look the class's `timeoutMs` up per call).
      const classMs = policy.timeoutMs(name);
      const timeout = hop ?? (classMs === undefined ? null : fixedTimeout(classMs));
      cellCalls.push(Object.freeze({ timeout, ...(events !== undefined && { events }) }));
    }
  });
  return { policies, cellCalls };
}
