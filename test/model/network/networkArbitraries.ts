/**
 * fast-check generators of small random routing networks for the network tests.
 */
import fc from 'fast-check';
import type { ModelName, NetworkModel, NetworkRoute } from '../../../src/model/index.js';

/** What kind of random network to draw. */
export interface NetworkShape {
  /** `dag`: routes only go forward in a random order; `cyclic`: any routes, with a 2-cycle forced. */
  readonly topology: 'dag' | 'cyclic';
  readonly minServices?: number;
  readonly maxServices?: number;
  readonly minClasses?: number;
  readonly maxClasses?: number;
  /** The same routing for every class (`true`), per-class routing (`false`) or either. */
  readonly classIndependent?: boolean | 'any';
  /** Largest total routing probability out of a service; default 0.9. */
  readonly maxRowSum?: number;
  readonly models?: readonly ModelName[];
  /** Largest external arrival rate per class and service, as a multiple of its capacity. */
  readonly maxLoad?: number;
  readonly maxRetries?: number;
  /** Draws a retry limit; default uniform on 0..maxRetries. */
  readonly retries?: fc.Arbitrary<number>;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * Random networks of `minServices..maxServices` services and `minClasses..maxClasses` classes.
 * Every class has external arrivals at one entry service (the first in the DAG's order), so its
 * end-to-end figures are defined.
 */
export function networkArbitrary(shape: NetworkShape): fc.Arbitrary<NetworkModel> {
  const {
    topology,
    minServices = 2,
    maxServices = 6,
    minClasses = 1,
    maxClasses = 3,
    classIndependent = 'any',
    maxRowSum = 0.9,
    models = ['fluid', 'mm1m', 'mixed'],
    maxLoad = 1.5,
    maxRetries = 5,
    retries = fc.integer({ min: 0, max: maxRetries }),
  } = shape;
  const sizes = fc.record({
    n: fc.integer({ min: minServices, max: maxServices }),
    classCount: fc.integer({ min: minClasses, max: maxClasses }),
  });
  return sizes.chain(({ n, classCount }) => {
    const exactly = (length: number) => ({ minLength: length, maxLength: length });
    const routing = fc.record({
      weights: fc.array(
        fc.array(fc.option(fc.double({ min: 0.05, max: 1, noNaN: true }), { freq: 2 }), exactly(n)),
        exactly(n),
      ),
      rowSums: fc.array(fc.double({ min: 0, max: maxRowSum, noNaN: true }), exactly(n)),
    });
    return fc
      .record({
        order:
          topology === 'dag' ? fc.shuffledSubarray(range(n), exactly(n)) : fc.constant(range(n)),
        independent: classIndependent === 'any' ? fc.boolean() : fc.constant(classIndependent),
        routing: fc.array(routing, exactly(classCount)),
        classLimits: fc.array(retries, exactly(classCount)),
        entryLoads: fc.array(
          fc.double({ min: 0.05, max: maxLoad, noNaN: true }),
          exactly(classCount),
        ),
        services: fc.array(
          fc.record({
            model: fc.constantFrom(...models),
            capacity: fc.double({ min: 1, max: 100, noNaN: true }),
            queue: fc.integer({ min: 1, max: 50 }),
            loads: fc.array(
              fc.oneof(fc.constant(0), fc.double({ min: 0, max: maxLoad, noNaN: true })),
              exactly(classCount),
            ),
            limits: fc.array(retries, exactly(classCount)),
          }),
          exactly(n),
        ),
      })
      .map(({ order, independent, routing: classRouting, classLimits, entryLoads, services }) => {
        // Position a in the abstract network is service order[a]; a DAG routes only a → b, a < b.
        const matrices = classRouting.map(({ weights, rowSums }) =>
          range(n).map((a) => {
            const allowed = (b: number) => (topology === 'dag' ? b > a : true);
            const raw = range(n).map((b) => (allowed(b) ? (weights[a]?.[b] ?? 0) : 0));
            let rowSum = rowSums[a] as number;
            if (topology === 'cyclic' && (a === 0 || a === 1)) {
              // Force the 2-cycle 0 ⇄ 1 so the network is never a DAG.
              raw[1 - a] = Math.max(raw[1 - a] as number, 0.05);
              rowSum = Math.max(rowSum, 0.1);
            }
            const total = raw.reduce((x, y) => x + y, 0);
            return raw.map((w) => (total > 0 ? (w / total) * rowSum : 0));
          }),
        );
        const used = independent ? [matrices[0] as number[][]] : matrices;
        const index = (a: number) => order[a] as number;
        const model: NetworkModel = {
          classes: range(classCount).map((p) => ({
            name: `c${p}`,
            retryLimit: classLimits[p] as number,
          })),
          services: range(n).map((i) => {
            const a = order.indexOf(i);
            const drawn = services[a];
            if (drawn === undefined) throw new Error('unreachable');
            const routes: NetworkRoute[] = [];
            used.forEach((matrix, p) => {
              (matrix[a] as number[]).forEach((prob, b) => {
                if (prob > 0)
                  routes.push(
                    independent
                      ? { to: index(b), p: prob }
                      : { to: index(b), p: prob, classIndex: p },
                  );
              });
            });
            return {
              name: `s${i}`,
              capacity: drawn.capacity,
              queue: drawn.queue,
              model: drawn.model,
              arrivals: range(classCount).map(
                (p) =>
                  (a === 0 ? (entryLoads[p] as number) : (drawn.loads[p] as number)) *
                  drawn.capacity,
              ),
              retryLimits: [...drawn.limits],
              routes,
            };
          }),
        };
        return model;
      });
  });
}

/** The same network with class p's retry limit raised by `by` at every hop. */
export function withMoreRetries(network: NetworkModel, p: number, by = 1): NetworkModel {
  return {
    ...network,
    classes: network.classes.map((c, q) => (q === p ? { ...c, retryLimit: c.retryLimit + by } : c)),
    services: network.services.map((s) => ({
      ...s,
      retryLimits: s.retryLimits.map((k, q) => (q === p ? k + by : k)),
    })),
  };
}
