import {
  type BackoffDescription,
  DEFAULT_BACKOFF,
} from '../../model/backoff/BackoffDescription.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { uniformLimits } from '../../model/network/uniformLimits.js';
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
 * `retryPolicy` factory) with the service's per-class limits (`uniformLimits` for the uniform
 * strategies), the classes' backoffs, the strategy's budget, the virtual `clock` and the run's
 * `random` source; and resolves each cell's per-try timeout once: the options' `timeouts` for the
 * hop, else the model's T for the class there (`NetworkService.timeouts`, as `toNetworkModel`
 * resolved it), else the policy's `timeoutMs` for the class.
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
  const limits = usesUniformLimits(strategy) ? uniformLimits(network) : network;
  const makePolicy = options.retryPolicy ?? ((_index, policyOptions) => retryPolicy(policyOptions));
  const policies = limits.services.map((service, i) => {
    const classes: Record<string, ClassOptions> = {};
    classNames.forEach((name, p) => {
      classes[name] = {
        retries: service.retryLimits[p] ?? limits.classes[p]?.retryLimit ?? 0,
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
    const modelTimeouts = network.services[i]?.timeouts;
    classNames.forEach((name, p) => {
      // Resolved once per cell (the tracker would look the class's `timeoutMs` up per call).
      const seconds = modelTimeouts?.[p];
      // Back to ms as the file gave it (1.001 s × 1000 is 1000.9999999999999 in doubles).
      const ms =
        seconds === undefined ? policy.timeoutMs(name) : Number((seconds * 1000).toPrecision(15));
      const timeout = hop ?? (ms === undefined ? null : fixedTimeout(ms));
      cellCalls.push(Object.freeze({ timeout, ...(events !== undefined && { events }) }));
    });
  });
  return { policies, cellCalls };
}
