import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { latencyPercentileSeconds } from '../../stats/latencyHistogram.js';
import type { NetworkCounters } from './NetworkCounters.js';
import type {
  NetworkSimulationResult,
  SimulatedEndToEnd,
  SimulatedService,
  SimulatedServiceClass,
} from './NetworkSimulationResult.js';
import type { NetworkStrategy } from './strategy.js';

/** What a run knows besides its counters, for its result. */
export interface RunFacts {
  readonly mode: 'routing' | 'calls';
  readonly strategy: NetworkStrategy;
  readonly duration: number;
  readonly warmup: number;
  readonly events: number;
  readonly endTime: number;
  readonly windows?: NetworkSimulationResult['windows'];
}

/**
 * The result of a network run from what it counted: rates per second of the measured window,
 * fractions (NaN where nothing was observed), latency percentiles. Reads the counters only, so it
 * may be called again.
 */
export function networkResult(
  network: NetworkModel,
  counters: NetworkCounters,
  facts: RunFacts,
): NetworkSimulationResult {
  const { duration } = facts;
  const classCount = network.classes.length;
  const classNames = network.classes.map((c) => c.name);
  const services: Record<string, SimulatedService> = {};
  network.services.forEach((service, i) => {
    const classes: Record<string, SimulatedServiceClass> = {};
    let attempts = 0;
    let attemptRejections = 0;
    classNames.forEach((name, p) => {
      const cell = i * classCount + p;
      attempts += counters.attempts[cell] as number;
      attemptRejections += counters.attemptRejections[cell] as number;
      classes[name] = {
        in: (counters.arrived[cell] as number) / duration,
        out: (counters.passed[cell] as number) / duration,
        attempts: (counters.attempts[cell] as number) / duration,
        timeouts: (counters.timeouts[cell] as number) / duration,
        rejection: ratio(counters.hopRejections[cell] as number, counters.arrived[cell] as number),
      };
    });
    services[service.name] = {
      s: ratio(attemptRejections, attempts),
      rho: attempts / duration / service.capacity,
      classes,
    };
  });
  const endToEnd: Record<string, SimulatedEndToEnd> = {};
  let totalAttempts = 0;
  let totalOriginals = 0;
  let totalCompleted = 0;
  classNames.forEach((name, p) => {
    const originals = counters.originals[p] as number;
    const completed = counters.completed[p] as number;
    const rejected = counters.rejected[p] as number;
    let attempts = 0;
    for (let i = 0; i < network.services.length; i++) {
      attempts += counters.attempts[i * classCount + p] as number;
    }
    totalAttempts += attempts;
    totalOriginals += originals;
    totalCompleted += completed;
    const histogram = counters.latency[p];
    endToEnd[name] = {
      originals,
      completed,
      rejected,
      rejection: ratio(rejected, originals),
      completion: ratio(completed, originals),
      attemptsPerRequest: ratio(attempts, originals),
      latencyMean: ratio(counters.latencySum[p] as number, completed),
      latencyP50: histogram === undefined ? Number.NaN : latencyPercentileSeconds(histogram, 50),
      latencyP99: histogram === undefined ? Number.NaN : latencyPercentileSeconds(histogram, 99),
    };
  });
  return {
    mode: facts.mode,
    classes: network.classes.map((c) => ({ name: c.name, retries: c.retryLimit })),
    services,
    endToEnd,
    load: {
      external: totalOriginals / duration,
      attempts: totalAttempts / duration,
      attemptsPerRequest: ratio(totalAttempts, totalOriginals),
      attemptsPerSuccess: ratio(totalAttempts, totalCompleted),
      internalPerRequest: ratio(counters.internalAttempts, totalOriginals),
      internalPerSuccess: ratio(counters.internalAttempts, totalCompleted),
    },
    strategy: facts.strategy,
    duration,
    warmup: facts.warmup,
    events: facts.events,
    endTime: facts.endTime,
    ...(facts.windows === undefined ? {} : { windows: facts.windows }),
  };
}

/** numerator / denominator, NaN when the denominator is 0 (no observations). */
function ratio(numerator: number, denominator: number): number {
  return denominator > 0 ? numerator / denominator : Number.NaN;
}
