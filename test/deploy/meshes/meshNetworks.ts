import { builtinExample } from '../../../src/config/examples.js';
import {
  generateNetwork,
  type NetworkKind,
} from '../../../src/config/generators/generateNetwork.js';
import { parseNetwork } from '../../../src/config/parseNetwork.js';
import type { NetworkSpec } from '../../../src/config/schema.js';

// The networks every mesh generator's tests run over, the same for every mesh.

/** A built-in hotelReservation example, parsed. */
export const example = (name: 'hotel' | 'hotel-calls'): NetworkSpec => {
  const { text, fileName } = builtinExample(name);
  return parseNetwork(text, fileName);
};

/** hotelReservation in both forms, and 20 generated networks of every kind and both forms. */
export const NETWORKS: readonly [string, NetworkSpec][] = [
  ['hotel', example('hotel')],
  ['hotel-calls', example('hotel-calls')],
  ...Array.from({ length: 20 }, (_, i): [string, NetworkSpec] => {
    const kind = (['mubench', 'dgg', 'cyclic'] as const)[i % 3] as NetworkKind;
    const form = kind === 'cyclic' || i % 2 === 0 ? 'routes' : 'calls';
    const services = kind === 'dgg' ? 5 : 6 + (i % 5);
    return [
      `${kind}-${form}-${i}`,
      generateNetwork(kind, { services, classes: 2 + (i % 3), seed: 100 + i, form }),
    ];
  }),
];
