/**
 * Networks for the uniqueness tests: configurations drawn on generated cyclic graphs, as
 * `difftry verify-uniqueness` draws them.
 */

import { generateCyclic } from '../../../src/config/generators/generateCyclic.js';
import { toNetworkModel } from '../../../src/config/toNetworkModel.js';
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';
import { seededRandom } from '../../../src/model/random.js';
import { drawConfiguration } from '../../../src/model/uniqueness/index.js';

/** A one-class cyclic graph of `services` services from `generateCyclic`. */
export function cyclicBase(services: number, seed: number, backEdges = 2): NetworkModel {
  return toNetworkModel(generateCyclic({ services, classes: 1, seed, backEdges }));
}

/** Configuration `seed` drawn on `base`, with the random source it was drawn from. */
export function drawn(base: NetworkModel, seed: number, maxClasses = 9) {
  const random = seededRandom(seed);
  return { network: drawConfiguration(base, random, { maxClasses }), random };
}
