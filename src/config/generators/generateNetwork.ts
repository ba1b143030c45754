import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { NetworkSpec } from '../schema.js';
import { type CyclicOptions, generateCyclic } from './generateCyclic.js';
import { generateDgg } from './generateDgg.js';
import { generateMuBench, type MuBenchOptions } from './generateMuBench.js';

/** The kinds of network {@link generateNetwork} builds. */
export const NETWORK_KINDS = ['mubench', 'dgg', 'cyclic'] as const;

/** `mubench` (µBench-like DAG), `dgg` (small DGG-like call graph) or `cyclic` (routes with cycles). */
export type NetworkKind = (typeof NETWORK_KINDS)[number];

/** Options of {@link generateNetwork}: those of every kind; `form` and `backEdges` where they apply. */
export interface GenerateNetworkOptions extends MuBenchOptions, Pick<CyclicOptions, 'backEdges'> {}

/** Whether `kind` names a kind of network {@link generateNetwork} builds. */
export function isNetworkKind(kind: unknown): kind is NetworkKind {
  return (NETWORK_KINDS as readonly unknown[]).includes(kind);
}

/**
 * Generates a network of the given kind: `generateMuBench`, `generateDgg` or `generateCyclic`
 * with the same options.
 *
 * @throws {RangeError} on an unknown kind, on `form: 'calls'` for `cyclic` (calls must stay
 *   acyclic), on `backEdges` for a kind other than `cyclic`, and as the generator throws.
 * @example
 * ```ts
 * const network = generateNetwork('dgg', { services: 6, classes: 2, seed: 9 });
 * ```
 */
export function generateNetwork(kind: NetworkKind, options: GenerateNetworkOptions): NetworkSpec {
  if (!isNetworkKind(kind)) {
    throw new InvalidArgumentError(
      `kind should be one of ${NETWORK_KINDS.join(', ')}, got ${String(kind)}`,
    );
  }
  const { backEdges, form, ...common } = options;
  if (kind !== 'cyclic' && backEdges !== undefined) {
    throw new InvalidArgumentError(
      `backEdges applies only to cyclic networks, got ${backEdges} for ${kind}`,
    );
  }
  switch (kind) {
    case 'mubench':
      return generateMuBench({ ...common, form });
    case 'dgg':
      return generateDgg({ ...common, form });
    case 'cyclic':
      if (form !== undefined && form !== 'routes') {
        throw new InvalidArgumentError(
          `form should be routes for a cyclic network (calls must stay acyclic), got ${form}`,
        );
      }
      return generateCyclic({ ...common, backEdges });
  }
}
