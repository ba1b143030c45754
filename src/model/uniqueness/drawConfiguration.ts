import type { NetworkModel, NetworkRoute, NetworkService } from '../network/NetworkModel.js';
import { routingGuarantee, routingRows, type UniquenessGuarantee } from '../network/structure.js';
import { MODEL_NAMES } from '../phi/Phi.js';
import type { RandomSource } from '../random.js';
import {
  type ConfigurationOptions,
  DRAWN_QUEUES,
  MAX_DRAWN_RETRIES,
  startConfiguration,
} from './configurationDraw.js';

/** A service's capacity is the base graph's times 2^u, u uniform in [−2, 2]. */
const CAPACITY_OCTAVES = 2;

/** Most that a service routes onward when its row is not made to sum to exactly 1. */
const ROW_CAP = 0.95;

/**
 * A random configuration of a routing network on the graph of `base` (its services, their
 * routes, which must not depend on the class, and their capacities as a scale), for checking
 * numerically that its fixed point is unique:
 *
 * - P classes, P uniform in 1 … `maxClasses`, named `c1` … `cP`, each with a retry limit uniform
 *   in 0 … 8, overridden at a service with probability 0.15 by another such draw;
 * - external arrivals: every class at the entry (service 0), (arrivalRate / P) × U[0.2, 1.8];
 *   with probability 0.15 a service also gets arrivals, each class with probability 0.5,
 *   (arrivalRate / P) × U[0, 0.5];
 * - capacities: the base's times 2^U[−2, 2] (base capacities put utilisation in [0.3, 1.6]
 *   without retries, so many services are overloaded); queues from {1, 2, 5, 10, 20, 50, 100};
 * - a φ law for the network, overridden at a service with probability 0.2;
 * - routing: with P ≥ 2, three configurations in four are class-dependent: at each service with
 *   probability 0.5 every class gets its own row (each route's probability times U[0.3, 1.7],
 *   with probability 0.3 an extra route to another service chosen uniformly, which can close new
 *   cycles); otherwise every class routes alike. A row is made to sum to exactly 1 with
 *   probability 0.15 (shared) or 0.2 (a class's own), else capped at 0.95 — so ‖F‖∞ reaches 1 and
 *   neither ‖F‖∞ < 1/(P − 1) nor class-independence guarantees uniqueness (the `none` case), P = 2
 *   included. Services from which a class could never leave (rows of 1 around a cycle) get their
 *   rows for that class capped at 0.95 again, so ρ(F) < 1 always holds.
 *
 * Pure: the result depends only on `base`, the draws of `random` and the options.
 * @throws {RangeError} on `maxClasses` outside 1 … 20 or a non-positive `arrivalRate`.
 * @example
 * ```ts
 * const network = drawConfiguration(toNetworkModel(generateCyclic({ services: 12, classes: 1 })),
 *   seededRandom(7));
 * ```
 */
export function drawConfiguration(
  base: NetworkModel,
  random: RandomSource,
  options: ConfigurationOptions = {},
): NetworkModel {
  return drawConfigurationWithGuarantee(base, random, options).network;
}

/**
 * {@link drawConfiguration}, with the drawn network's uniqueness guarantee (what
 * `routingGuarantee(network).uniqueness` gives), which the draw has already derived to find the
 * rows that need capping: the uniqueness check hands it on, so it is not derived twice.
 */
export function drawConfigurationWithGuarantee(
  base: NetworkModel,
  random: RandomSource,
  options: ConfigurationOptions = {},
): { readonly network: NetworkModel; readonly guarantee: UniquenessGuarantee } {
  const n = base.services.length;
  const { arrivalRate, classes, networkModel, uniform, integer, pick } = startConfiguration(
    random,
    options,
  );
  const classCount = classes.length;
  const classDependent = classCount >= 2 && random() < 0.75;

  // rows[p][i]: the class-p routing row of service i, as (to, probability) pairs.
  const baseRows = routingRows(base, 0);
  const rows: Row[][] = Array.from({ length: classCount }, () => []);
  for (let i = 0; i < n; i++) {
    const baseRow = baseRows[i] ?? [];
    const saturate = baseRow.length > 0 && random() < 0.15;
    const shared = scaleRow(baseRow, saturate ? 1 : Math.min(rowSum(baseRow), ROW_CAP));
    const perturbed = classDependent && random() < 0.5;
    for (let p = 0; p < classCount; p++) {
      if (!perturbed) {
        (rows[p] as Row[])[i] = shared;
        continue;
      }
      const own = new Map<number, number>();
      for (const e of baseRow) own.set(e.to, e.p * uniform(0.3, 1.7));
      if (random() < 0.3) {
        const to = (i + integer(1, n - 1)) % n;
        own.set(to, (own.get(to) ?? 0) + uniform(0.05, 0.5));
      }
      const row = [...own].map(([to, probability]) => ({ to, p: probability }));
      const target = random() < 0.2 ? 1 : Math.min(rowSum(row), ROW_CAP);
      (rows[p] as Row[])[i] = row.length > 0 ? scaleRow(row, target) : [];
    }
  }

  const services = base.services.map((service, i): NetworkService => {
    const arrivals = classes.map(() => 0);
    const share = arrivalRate / classCount;
    if (i === 0) for (let p = 0; p < classCount; p++) arrivals[p] = share * uniform(0.2, 1.8);
    else if (random() < 0.15) {
      for (let p = 0; p < classCount; p++) {
        if (random() < 0.5) arrivals[p] = share * uniform(0, 0.5);
      }
    }
    const retryLimits = classes.map((c) =>
      random() < 0.15 ? integer(0, MAX_DRAWN_RETRIES) : c.retryLimit,
    );
    return {
      name: service.name,
      capacity: service.capacity * 2 ** uniform(-CAPACITY_OCTAVES, CAPACITY_OCTAVES),
      queue: pick(DRAWN_QUEUES),
      model: random() < 0.2 ? pick(MODEL_NAMES) : networkModel,
      arrivals,
      retryLimits,
      routes: [],
    };
  });

  const build = (): NetworkModel => ({
    classes,
    services: services.map((service, i) => ({ ...service, routes: routesOf(rows, i) })),
    mode: 'routing',
  });
  const drawn = build();
  const guarantee = routingGuarantee(drawn);
  const closedSets = guarantee.closedSets;
  if (closedSets.length === 0) return { network: drawn, guarantee: guarantee.uniqueness };
  for (const closed of closedSets) {
    const classRows = rows[closed.classIndex] as Row[];
    for (const i of closed.services) {
      const row = classRows[i] ?? [];
      classRows[i] = scaleRow(row, Math.min(rowSum(row), ROW_CAP));
    }
  }
  const capped = build();
  return { network: capped, guarantee: routingGuarantee(capped).uniqueness };
}

type Row = readonly { readonly to: number; readonly p: number }[];

function rowSum(row: Row): number {
  return row.reduce((sum, e) => sum + e.p, 0);
}

/** The row scaled so that its probabilities sum to `target` (the empty row stays empty). */
function scaleRow(row: Row, target: number): Row {
  const sum = rowSum(row);
  if (sum === 0 || sum === target) return row;
  return row.map((e) => ({ to: e.to, p: (e.p * target) / sum }));
}

function sameRow(a: Row, b: Row): boolean {
  return (
    a === b || (a.length === b.length && a.every((e, k) => e.to === b[k]?.to && e.p === b[k]?.p))
  );
}

/**
 * Service i's routes: one route per edge for every class when all classes share the row,
 * else one per class and edge, marked with the class.
 */
function routesOf(rows: readonly (readonly Row[])[], i: number): NetworkRoute[] {
  const first = rows[0]?.[i] ?? [];
  const shared = rows.every((classRows) => sameRow(classRows[i] ?? [], first));
  if (shared) return first.filter((e) => e.p > 0).map((e) => ({ to: e.to, p: e.p }));
  return rows.flatMap((classRows, p) =>
    (classRows[i] ?? []).filter((e) => e.p > 0).map((e) => ({ to: e.to, p: e.p, classIndex: p })),
  );
}
