import type { NetworkSpec } from '../schema.js';
import { assembleNetwork } from './assembleNetwork.js';
import { countOf, randomSourceName } from './describeGenerated.js';
import { weighGraph } from './edgeWeights.js';
import {
  type FormOptions,
  MAX_GENERATED_SERVICES,
  type NetworkGeneratorOptions,
  resolveForm,
  resolveGeneratorOptions,
} from './GeneratorOptions.js';
import { databaseCount, muBenchTopology } from './muBenchTopology.js';

/** Options of {@link generateMuBench}. */
export interface MuBenchOptions extends NetworkGeneratorOptions, FormOptions {}

/**
 * A µBench-like microservice network: a service tree grown by preferential attachment from the
 * entry `frontend` (each new service `svcN` is called by one existing service, chosen with
 * probability proportional to its number of callees + 1), plus shared database leaves `dbN`
 * (about 10 % of the services, at least 1 when there are 2 or more) that several services call.
 * The graph is a DAG; all external arrivals enter at `frontend`.
 *
 * In `routes` form (default) each service with callees routes onwards with probabilities that sum
 * to a value drawn in [0.3, 0.95]; in `calls` form each call is made once, or sometimes twice, per
 * request. Classes, arrivals, capacities and queues are as described on the generators' module:
 * `high`/`low` or `c1` … `cP`, retry limits 5, 3, 1, 0, …, and capacities drawn for target
 * utilisations in [0.3, 1.6].
 *
 * Pure: the same options (and seed) always give the same network.
 *
 * @param options - `services` 1 to 10 000; `classes` 1 to 20 (default 2); `seed` (default 0) or
 *   `random`; `form` (default `routes`); `arrivalRate` in requests/s (default 300).
 * @throws {RangeError} naming the option and the bad value.
 * @example
 * ```ts
 * const network = generateMuBench({ services: 20, classes: 2, seed: 3 });
 * network.services[0]?.name; // 'frontend'
 * ```
 */
export function generateMuBench(options: MuBenchOptions): NetworkSpec {
  const form = resolveForm(options.form);
  const resolved = resolveGeneratorOptions(options, 1, MAX_GENERATED_SERVICES, 'µBench');
  const { services, random } = resolved;
  const databases = databaseCount(services, 1);
  const topology = muBenchTopology(services, databases, random);
  return assembleNetwork(weighGraph(topology.names, topology.children, form, random), {
    name: 'mubench',
    description: `µBench-like service graph: ${countOf(services, 'service')} (${countOf(databases, 'shared database')}), ${countOf(resolved.classes, 'class')}, ${randomSourceName(resolved.seed)}, ${form}`,
    form,
    classes: resolved.classes,
    arrivalRate: resolved.arrivalRate,
    random,
  });
}
