import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { NetworkCall, NetworkModel } from './NetworkModel.js';
import { prepareServices } from './prepare.js';
import { successorLists, topologicalOrder } from './topology.js';

/**
 * A call-graph network compiled once into flat typed arrays, so that every sweep of the
 * call-graph solver is O(calls) with no allocation.
 *
 * Cells are (service j, class p) pairs, numbered `j * classCount + p`. Each cell's program is a
 * list of segments: segment 0 holds the service's own calls (every accepted attempt makes them),
 * the others are its branches (one is chosen per attempt with probability `segmentProbability`).
 * A segment is a run of calls in order; `callParallel` marks calls issued together with their
 * adjacent parallel neighbours.
 */
export interface CallPlan {
  readonly serviceCount: number;
  readonly classCount: number;
  /** Services, parents before children. */
  readonly topDown: Int32Array;
  /** μ_j, requests per second. */
  readonly capacity: Float64Array;
  /** m_j, the most requests in the system. */
  readonly queue: Int32Array;
  /** φ_j. */
  readonly phi: readonly ((rho: number) => number)[];
  /** Per cell: k_j^p. */
  readonly retryLimit: Int32Array;
  /** Per cell: γ_j^p, external requests per second. */
  readonly external: Float64Array;
  /** Per cell: the per-try timeout of a call into j, in mean service times μ_j·T (0: none). */
  readonly timeout: Float64Array;
  /** Per cell: its segments are `cellSegment[cell] … cellSegment[cell + 1] − 1`. */
  readonly cellSegment: Int32Array;
  /** Per segment: its calls are `segmentCall[seg] … segmentCall[seg + 1] − 1`. */
  readonly segmentCall: Int32Array;
  /** Per segment: 1 for the service's own calls, else the branch probability. */
  readonly segmentProbability: Float64Array;
  /** Per segment: whether it is a branch (one of several alternatives). */
  readonly segmentIsBranch: Uint8Array;
  readonly callTo: Int32Array;
  readonly callCount: Int32Array;
  readonly callParallel: Uint8Array;
  /** Whether follow-up calls are read as such (`NetworkModel.followUps`). */
  readonly followUps: boolean;
}

/**
 * Compiles a call-graph network: checks its numbers (see `prepareServices`) and that its calls
 * form a DAG, and lays out every class's program in typed arrays.
 * @throws RangeError when the calls have a cycle or a number is out of range.
 */
export function compileCallPlan(network: NetworkModel): CallPlan {
  const services = prepareServices(network);
  const serviceCount = services.length;
  const classCount = network.classes.length;
  const topo = topologicalOrder(successorLists(network.services, { routes: false, calls: true }));
  if (topo === undefined)
    throw new InvalidArgumentError('calls must form a DAG (no service may call itself back)');
  const cells = serviceCount * classCount;
  const retryLimit = new Int32Array(cells);
  const external = new Float64Array(cells);
  const timeout = new Float64Array(cells);
  const cellSegment = new Int32Array(cells + 1);
  const segmentCall: number[] = [];
  const segmentProbability: number[] = [];
  const segmentIsBranch: number[] = [];
  const callTo: number[] = [];
  const callCount: number[] = [];
  const callParallel: number[] = [];
  const addSegment = (
    calls: readonly NetworkCall[],
    p: number,
    probability: number,
    branch: boolean,
  ) => {
    segmentCall.push(callTo.length);
    segmentProbability.push(probability);
    segmentIsBranch.push(branch ? 1 : 0);
    for (const c of calls) {
      if (c.classIndex !== undefined && c.classIndex !== p) continue;
      callTo.push(c.to);
      callCount.push(c.n);
      callParallel.push(c.parallel ? 1 : 0);
    }
  };
  network.services.forEach((service, j) => {
    const prepared = services[j];
    for (let p = 0; p < classCount; p++) {
      const cell = j * classCount + p;
      retryLimit[cell] = prepared?.loads[p]?.retryLimit ?? 0;
      external[cell] = service.arrivals[p] ?? 0;
      const seconds = service.timeouts?.[p];
      // prepareServices has checked it: undefined or a positive number of seconds.
      if (seconds !== undefined) timeout[cell] = seconds * service.capacity;
      cellSegment[cell] = segmentCall.length;
      addSegment(service.calls ?? [], p, 1, false);
      for (const b of service.branches ?? []) addSegment(b.calls, p, b.p, true);
    }
  });
  cellSegment[cells] = segmentCall.length;
  segmentCall.push(callTo.length);
  return {
    serviceCount,
    classCount,
    topDown: Int32Array.from(topo),
    capacity: Float64Array.from(services, (s) => s.capacity),
    queue: Int32Array.from(network.services, (s) => s.queue),
    phi: services.map((s) => s.phi),
    retryLimit,
    external,
    timeout,
    cellSegment,
    segmentCall: Int32Array.from(segmentCall),
    segmentProbability: Float64Array.from(segmentProbability),
    segmentIsBranch: Uint8Array.from(segmentIsBranch),
    callTo: Int32Array.from(callTo),
    callCount: Int32Array.from(callCount),
    callParallel: Uint8Array.from(callParallel),
    followUps: network.followUps === true,
  };
}
