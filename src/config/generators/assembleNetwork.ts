import type { RandomSource } from '../../model/random.js';
import type { NetworkSpec, ServiceSpec } from '../schema.js';
import { expectedVisits } from './expectedVisits.js';
import type { EdgeForm } from './GeneratorOptions.js';
import { generatedClasses, splitArrivals } from './generatedClasses.js';
import { floorSignificant, roundSignificant } from './roundSignificant.js';
import type { ServiceGraph } from './ServiceGraph.js';

/** Least and greatest target utilisation of a service: some services are overloaded. */
export const UTILISATION_RANGE = [0.3, 1.6] as const;

/** The system capacities (m) a generated service may have. */
export const QUEUE_SIZES: readonly number[] = [10, 20, 50, 100];

/** What {@link assembleNetwork} needs besides the graph. */
export interface AssembleOptions {
  readonly name: string;
  readonly description: string;
  readonly form: EdgeForm;
  readonly classes: number;
  /** Total external arrival rate at the entry, requests/s. */
  readonly arrivalRate: number;
  readonly random: RandomSource;
}

/**
 * Turns a service graph into a network file's value. Route probabilities are rounded down to 4
 * significant digits (so their sums never grow); the entry, service 0, receives every external
 * arrival; each service i gets a queue drawn from {10, 20, 50, 100} and the capacity
 * μ_i = visits_i × arrivalRate / u_i with a target utilisation u_i drawn uniformly in
 * [0.3, 1.6], where visits_i is the expected number of visits per external request of the rounded
 * graph. Capacities are rounded to 4 significant digits. Defaults are written out, so the value
 * equals what parsing it back gives.
 */
export function assembleNetwork(graph: ServiceGraph, options: AssembleOptions): NetworkSpec {
  const { form, random } = options;
  const rounded: ServiceGraph = {
    names: graph.names,
    edges: graph.edges.map((edges) =>
      edges.map((edge) =>
        form === 'routes' ? { to: edge.to, weight: floorSignificant(edge.weight) } : edge,
      ),
    ),
  };
  const classes = generatedClasses(options.classes);
  const arrivals = splitArrivals(classes, options.arrivalRate);
  const totalArrival = Object.values(arrivals).reduce((a, b) => a + b, 0);
  const visits = expectedVisits(rounded);
  const [leastUtilisation, greatestUtilisation] = UTILISATION_RANGE;

  const services = rounded.names.map((name, i): ServiceSpec => {
    const utilisation = leastUtilisation + (greatestUtilisation - leastUtilisation) * random();
    const queue = QUEUE_SIZES[Math.floor(random() * QUEUE_SIZES.length)] ?? 50;
    const service: ServiceSpec = {
      name,
      capacity: roundSignificant(((visits[i] ?? 0) * totalArrival) / utilisation),
      queue,
      arrivals: i === 0 ? { ...arrivals } : {},
      serviceTime: { dist: 'exponential' },
      residual: false,
    };
    const edges = rounded.edges[i] ?? [];
    if (edges.length === 0) return service;
    const target = (edge: { to: number }) => rounded.names[edge.to] ?? '';
    if (form === 'routes') {
      service.routes = edges.map((edge) => ({ to: target(edge), p: edge.weight }));
    } else {
      service.calls = edges.map((edge) => ({
        to: target(edge),
        n: edge.weight,
        mode: 'sequential' as const,
      }));
    }
    return service;
  });

  return {
    name: options.name,
    description: options.description,
    model: 'mixed',
    classes,
    services,
  };
}
