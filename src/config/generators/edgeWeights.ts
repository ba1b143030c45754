import type { RandomSource } from '../../model/random.js';
import type { EdgeForm } from './GeneratorOptions.js';
import type { ServiceGraph } from './ServiceGraph.js';

/** Least and greatest total probability that a request goes on from a service with children. */
export const ROUTE_SUM_RANGE = [0.3, 0.95] as const;

/** Probability that a call is made twice per request rather than once. */
const DOUBLE_CALL_PROBABILITY = 0.15;

/**
 * Probabilities of routing to each of `count` children: their sum is drawn uniformly in
 * [0.3, 0.95] (the rest of the requests leave the network here) and split in proportion to
 * weights drawn uniformly in [0.25, 1], so no child is starved.
 */
export function drawRouteProbabilities(count: number, random: RandomSource): number[] {
  if (count === 0) return [];
  const [least, greatest] = ROUTE_SUM_RANGE;
  const sum = least + (greatest - least) * random();
  const shares = Array.from({ length: count }, () => 0.25 + 0.75 * random());
  const total = shares.reduce((a, b) => a + b, 0);
  return shares.map((share) => (sum * share) / total);
}

/** Calls per request to one child: mostly 1, sometimes (15 %) 2. */
export function drawCallCount(random: RandomSource): number {
  return random() < DOUBLE_CALL_PROBABILITY ? 2 : 1;
}

/** Weights of `count` edges in the given form: route probabilities or calls per request. */
export function drawEdgeWeights(count: number, form: EdgeForm, random: RandomSource): number[] {
  return form === 'routes'
    ? drawRouteProbabilities(count, random)
    : Array.from({ length: count }, () => drawCallCount(random));
}

/**
 * A service graph with the given children, each edge weighted in the given form: route
 * probabilities drawn per service by {@link drawRouteProbabilities}, or calls per request.
 */
export function weighGraph(
  names: readonly string[],
  children: readonly (readonly number[])[],
  form: EdgeForm,
  random: RandomSource,
): ServiceGraph {
  return {
    names,
    edges: children.map((targets) => {
      const weights = drawEdgeWeights(targets.length, form, random);
      return targets.map((to, i) => ({ to, weight: weights[i] ?? 0 }));
    }),
  };
}
