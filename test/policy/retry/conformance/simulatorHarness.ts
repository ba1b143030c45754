/**
 * The network simulator: one service whose every attempt is rejected (queue limit 0, status 503)
 * or outlasts its per-try timeout (a server busy for an hour). Its hop's events come through
 * `retryEvents`; the first measured call's are compared.
 */
import { deterministicDistribution } from '../../../../src/model/distributions/deterministic.js';
import type { NetworkModel } from '../../../../src/model/network/NetworkModel.js';
import { retryPolicy } from '../../../../src/policy/retry/RetryPolicy.js';
import { simulateNetwork } from '../../../../src/sim/network/simulateNetwork.js';
import { budgetOf, collect, type Harness } from './harness.js';
import type { NormalizedEvent, Scenario } from './scripts.js';

/** How the one service plays a scenario's steps, or why it cannot. */
function serviceFor(scenario: Scenario): 'reject' | 'hang' {
  const kinds = new Set(scenario.steps.map((step) => step.kind));
  if (scenario.deadlineMs !== undefined || scenario.abortAfterFirstFailureMs !== undefined) {
    throw new Error(`simulator: scenario ${scenario.id} has a deadline or an abort`);
  }
  const first = scenario.steps[0];
  if (first?.kind === 'unavailable' && first.pushbackMs === undefined) {
    // Every attempt is rejected; a later success is never reached when the call stops first.
    return 'reject';
  }
  if (kinds.size === 1 && first?.kind === 'hang') return 'hang';
  throw new Error(`simulator: scenario ${scenario.id} needs outcomes it cannot produce`);
}

/** Calls arrive this often (per s): rare enough that the first call ends before the next. */
const ARRIVALS_PER_SECOND = 0.1;

export async function run(scenario: Scenario): Promise<NormalizedEvent[]> {
  const service = serviceFor(scenario);
  const classes = Object.entries(scenario.policy.classes);
  const model: NetworkModel = {
    classes: classes.map(([name, options]) => ({ name, retryLimit: options.retries })),
    services: [
      {
        name: 'scripted',
        capacity: service === 'reject' ? 100 : 1 / 3600,
        queue: service === 'reject' ? 0 : 1000,
        model: 'mixed',
        arrivals: classes.map(() => ARRIVALS_PER_SECOND),
        retryLimits: classes.map(([, options]) => options.retries),
        routes: [],
      },
    ],
  };
  const { events, add } = collect();
  const budget = budgetOf(scenario);
  simulateNetwork(model, {
    duration: 60,
    warmup: 0,
    seed: 11,
    serviceTimes: [deterministicDistribution(service === 'reject' ? 0.01 : 3600)],
    // The scenario's own policy on the simulator's clock and random, with a fresh budget.
    retryPolicy: (_index, options) =>
      retryPolicy({
        ...options,
        ...scenario.policy,
        clock: options.clock,
        random: options.random,
        ...(budget !== undefined && { budget }),
      }),
    retryEvents: () => ({
      wants: () => true,
      emit: (kind, event) => add(kind)(event),
    }),
  });
  return firstCall(events);
}

/**
 * The events of the first call: up to its first give-up or success. A second call's first
 * failure before then would interleave two calls; the harness refuses to guess.
 */
function firstCall(events: readonly NormalizedEvent[]): NormalizedEvent[] {
  const end = events.findIndex((e) => e.kind === 'giveUp' || e.kind === 'success');
  if (end < 0) throw new Error('simulator: the first call did not end');
  const call = events.slice(0, end + 1);
  if (call.filter((e) => e.kind === 'failure' && e.attempts === 1).length > 1) {
    throw new Error('simulator: two calls interleave; change the seed or the arrival rate');
  }
  return call;
}

export const simulatorHarness: Harness = {
  name: 'simulateNetwork',
  transport: 'sim',
  setup: async () => {},
  teardown: async () => {},
  run,
};
