/**
 * Replications of the network simulator kept run by run, for the validation scripts that must say
 * which state each run settled in (scripts/validate-calls.ts, scripts/validate-timeouts-model.ts):
 * `replicateNetwork` gives only the means. Which state a run settled in is read by
 * equilibriumMatch.ts.
 */
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';

import type { NetworkModel } from '../../model/network/NetworkModel.js';
import type { NetworkSimulationResult } from '../../sim/network/NetworkSimulationResult.js';
import { type SimulateNetworkOptions, simulateNetwork } from '../../sim/network/simulateNetwork.js';
import { meanWithCi95 } from '../../stats/confidence.js';

/** A figure over replications: the mean and its 95 % half-width (NaN for one run). */
export interface Estimate {
  readonly mean: number;
  readonly ci95: number;
}

/** What {@link simulateRuns} returns. */
export interface RunSet {
  /** Every replication's result, in stream order. */
  readonly runs: readonly NetworkSimulationResult[];
  /** Per class name: end-to-end rejection over the runs. */
  readonly rejection: Readonly<Record<string, Estimate>>;
  /** Per service name: attempt rejection s and offered load ρ (attempts / μ) over the runs. */
  readonly services: Readonly<Record<string, { readonly s: Estimate; readonly rho: Estimate }>>;
  /** Attempts at every service per external request, over the runs. */
  readonly attemptsPerRequest: Estimate;
  /** Events processed by all runs. */
  readonly events: number;
}

/**
 * Runs `replications` independent replications of `simulateNetwork` (run r on substream
 * `firstStream + r` of `options.seed`) and estimates the figures the validations compare.
 * @throws RangeError for `replications` below 1, and whatever `simulateNetwork` refuses.
 */
export function simulateRuns(
  network: NetworkModel,
  options: Readonly<Omit<SimulateNetworkOptions, 'stream'>>,
  replications: number,
  firstStream: number,
): RunSet {
  if (!(Number.isInteger(replications) && replications >= 1)) {
    throw new InvalidArgumentError(`replications should be an integer ≥ 1, got ${replications}`);
  }
  const runs: NetworkSimulationResult[] = [];
  for (let r = 0; r < replications; r++) {
    runs.push(simulateNetwork(network, { ...options, stream: firstStream + r }));
  }
  const estimate = (values: number[]): Estimate => meanWithCi95(values);
  const rejection: Record<string, Estimate> = {};
  for (const { name } of network.classes) {
    rejection[name] = estimate(runs.map((run) => run.endToEnd[name]?.rejection ?? Number.NaN));
  }
  const services: Record<string, { s: Estimate; rho: Estimate }> = {};
  for (const { name } of network.services) {
    services[name] = {
      s: estimate(runs.map((run) => run.services[name]?.s ?? Number.NaN)),
      rho: estimate(runs.map((run) => run.services[name]?.rho ?? Number.NaN)),
    };
  }
  let events = 0;
  for (const run of runs) events += run.events;
  return {
    runs,
    rejection,
    services,
    attemptsPerRequest: estimate(runs.map((run) => run.load.attemptsPerRequest)),
    events,
  };
}
