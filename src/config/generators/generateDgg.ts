import type { NetworkSpec } from '../schema.js';
import { assembleNetwork } from './assembleNetwork.js';
import { countOf, randomSourceName } from './describeGenerated.js';
import { dggTopology } from './dggTopology.js';
import { weighGraph } from './edgeWeights.js';
import {
  type FormOptions,
  type NetworkGeneratorOptions,
  resolveForm,
  resolveGeneratorOptions,
} from './GeneratorOptions.js';

/** The fewest and the most services of a DGG-like network. */
export const DGG_SERVICE_RANGE = [2, 7] as const;

/** Options of {@link generateDgg}: `services` from 2 to 7. */
export interface DggOptions extends NetworkGeneratorOptions, FormOptions {}

/**
 * A small call graph like those of DGG, the service dependency graph generator fitted to the
 * Alibaba traces: 2 to 7 services (`frontend`, `svc1` …), call depth at most 5, fan-out at most
 * 5, a DAG in which some services are shared by two callers. All external arrivals enter at
 * `frontend`. Forms, classes, capacities and queues are as for `generateMuBench`.
 *
 * Pure: the same options (and seed) always give the same network.
 *
 * @see F. Du, J. Shi, Q. Chen, L. Li, M. Guo, "A Microservice Graph Generator with Production
 *   Characteristics", arXiv:2412.19083 (2024).
 * @throws {RangeError} naming the option and the bad value (`services` outside 2..7, …).
 * @example
 * ```ts
 * const network = generateDgg({ services: 5, classes: 2, seed: 1, form: 'calls' });
 * ```
 */
export function generateDgg(options: DggOptions): NetworkSpec {
  const form = resolveForm(options.form);
  const [fewest, most] = DGG_SERVICE_RANGE;
  const resolved = resolveGeneratorOptions(options, fewest, most, 'DGG');
  const { services, random } = resolved;
  const names = Array.from({ length: services }, (_, i) => (i === 0 ? 'frontend' : `svc${i}`));
  const children = dggTopology(services, random);
  return assembleNetwork(weighGraph(names, children, form, random), {
    name: 'dgg',
    description: `DGG-like call graph: ${countOf(services, 'service')}, ${countOf(resolved.classes, 'class')}, ${randomSourceName(resolved.seed)}, ${form}`,
    form,
    classes: resolved.classes,
    arrivalRate: resolved.arrivalRate,
    random,
  });
}
