import type { RandomSource } from '../../model/random.js';

/**
 * The parent of each node of a tree of `size` nodes grown by preferential attachment
 * (Barabási–Albert with one edge per new node): node t > 0 attaches to an earlier node chosen
 * with probability proportional to its number of children + 1, so a service that already calls
 * many others is the likeliest to gain one more, and a new one can still be chosen. `parents[0]`
 * is −1 (the root). Runs in O(size): each node sits in an urn once per child, plus once.
 *
 * @see A.-L. Barabási and R. Albert, "Emergence of scaling in random networks", Science 286
 *   (1999). µBench (Detti et al., "µBench: an open-source factory of benchmark microservice
 *   applications", IEEE TPDS 2023) grows its service graphs with this model, with a tunable
 *   power and zero appeal; this is power 1, zero appeal 1.
 */
export function preferentialTree(size: number, random: RandomSource): number[] {
  const parents = size > 0 ? [-1] : [];
  const urn = [0];
  for (let node = 1; node < size; node++) {
    const parent = urn[Math.floor(random() * urn.length)] ?? 0;
    parents.push(parent);
    urn.push(parent, node);
  }
  return parents;
}
