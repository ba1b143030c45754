import {
  type IndependentRejectionSolver,
  independentRejectionSolver,
} from '../independentAttemptRejection.js';
import type { NetworkModel } from './NetworkModel.js';
import { type PreparedService, prepareServices } from './prepare.js';
import { routingRowsByClass } from './structure.js';
import { stronglyConnectedComponents, successorLists, topologicalOrder } from './topology.js';

/**
 * Tolerance of each service's own fixed point inside a network solve: tighter than the network's,
 * so a service's answer is not what stops the sweeps from settling to 1e-12.
 */
export const INNER_TOLERANCE = 1e-14;

/**
 * A routing network compiled for its fixed point: everything `solveRouting` needs that does not
 * depend on where the sweeps start, resolved once and laid out in typed arrays, so one network
 * can be solved from many initial points (the uniqueness check) without re-deriving it. Per
 * service i and class p, flat tables are indexed `i × classCount + p`.
 */
export interface RoutingPlan {
  readonly serviceCount: number;
  readonly classCount: number;
  /** The checked services (φ, capacity, per-class loads), for the general single-service path. */
  readonly services: readonly PreparedService[];
  /**
   * Per service, its solver when no class has the residual-time correction (or anything else
   * beyond a retry limit); undefined where `attemptRejection` itself must be used.
   */
  readonly independent: readonly (IndependentRejectionSolver | undefined)[];
  /** k_i^p, flat. */
  readonly retryLimits: Int32Array;
  /** max_p k_i^p per service. */
  readonly maxRetryLimit: Int32Array;
  /** γ_i^p, requests/s, flat. */
  readonly gamma: Float64Array;
  /** Σ γ, summed service by service and class by class. */
  readonly totalExternal: number;
  /** Flows under this (1e-9 Γ) count absolutely in the relative change between sweeps. */
  readonly floor: number;
  /**
   * Incoming routes of (i, p) as compressed rows: for k in [incomingStart[i × P + p],
   * incomingStart[i × P + p + 1]), class-p flow arrives from `incomingFrom[k]` with probability
   * `incomingProbability[k]`, in increasing order of the sender.
   */
  readonly incomingStart: Int32Array;
  readonly incomingFrom: Int32Array;
  readonly incomingProbability: Float64Array;
  /** A topological order of the services when the routes form a DAG. */
  readonly topologicalOrder: Int32Array | undefined;
  /**
   * The strongly connected components in topological order (when the routes have a cycle):
   * component c is `componentNodes[componentStart[c] … componentStart[c + 1])`.
   */
  readonly componentStart: Int32Array;
  readonly componentNodes: Int32Array;
  readonly componentCyclic: Uint8Array;
  /** The class-p routing rows F^p as sparse (to, probability) lists, for completion. */
  readonly rows: readonly { to: number; p: number }[][][];
  /**
   * Per-try timeouts (absent when no service has one): per cell the timeout in mean service
   * times μ_i T_i^p (0: none), per service m_i and whether any class is timed there. A timed
   * service's local load is solved by `timedServiceLoad` (docs/model.md, "Per-try timeouts").
   */
  readonly timed?: TimedRouting | undefined;
  /** Scratch for one service's attempts per request and rejection by retry limit. */
  readonly attemptsByLimit: Float64Array;
  readonly rejectionByLimit: Float64Array;
}

/** The per-try timeouts of a routing network, flat per cell (`i × classCount + p`). */
export interface TimedRouting {
  /** μ_i T_i^p, the timeout in mean service times; 0 where the class has none at i. */
  readonly timeout: Float64Array;
  /** m_i. */
  readonly queue: Int32Array;
  /** 1 where some class has a timeout at service i. */
  readonly timedService: Uint8Array;
}

/** The per-class load fields the independent solver reproduces exactly. */
const INDEPENDENT_FIELDS = new Set(['arrivalRate', 'retryLimit', 'residualAlphas']);

/**
 * Compiles a routing network (checked as `prepareServices` checks it) into a {@link RoutingPlan}.
 * @throws {RangeError} naming the service and the bad value.
 * @example
 * ```ts
 * const plan = compileRouting(network);
 * const state = routingState(plan);
 * settleRouting(plan, state); // from λin = γ
 * ```
 */
export function compileRouting(network: NetworkModel): RoutingPlan {
  const services = prepareServices(network);
  const n = services.length;
  const classCount = network.classes.length;
  const rows = routingRowsByClass(network);

  const retryLimits = new Int32Array(n * classCount);
  const maxRetryLimit = new Int32Array(n);
  const gamma = new Float64Array(n * classCount);
  let totalExternal = 0;
  network.services.forEach((service, i) => {
    for (let p = 0; p < classCount; p++) {
      const g = service.arrivals[p] ?? 0;
      gamma[i * classCount + p] = g;
      totalExternal += g;
    }
  });
  const independent = services.map((service, i) => {
    const limits = service.loads.map((load) => load.retryLimit);
    limits.forEach((k, p) => {
      retryLimits[i * classCount + p] = k;
      if (k > (maxRetryLimit[i] as number)) maxRetryLimit[i] = k;
    });
    return service.loads.every(isIndependentLoad)
      ? independentRejectionSolver(service.phi, service.capacity, limits, INNER_TOLERANCE)
      : undefined;
  });

  // incoming[(i, p)]: senders in increasing order, as the rows are walked sender by sender.
  const incomingStart = new Int32Array(n * classCount + 1);
  rows.forEach((classRows, p) => {
    for (const row of classRows) {
      for (const e of row) if (e.p > 0) incomingStart[e.to * classCount + p + 1]++;
    }
  });
  for (let k = 0; k < n * classCount; k++) {
    incomingStart[k + 1] = (incomingStart[k + 1] as number) + (incomingStart[k] as number);
  }
  const edges = incomingStart[n * classCount] as number;
  const incomingFrom = new Int32Array(edges);
  const incomingProbability = new Float64Array(edges);
  const filled = incomingStart.slice(0, n * classCount);
  rows.forEach((classRows, p) => {
    classRows.forEach((row, from) => {
      for (const e of row) {
        if (!(e.p > 0)) continue;
        const at = filled[e.to * classCount + p] as number;
        filled[e.to * classCount + p] = at + 1;
        incomingFrom[at] = from;
        incomingProbability[at] = e.p;
      }
    });
  });

  const successors = successorLists(network.services, { routes: true, calls: false });
  const topo = topologicalOrder(successors);
  const components = topo === undefined ? stronglyConnectedComponents(successors) : [];
  const componentStart = new Int32Array(components.length + 1);
  const componentNodes = new Int32Array(topo === undefined ? n : 0);
  const componentCyclic = new Uint8Array(components.length);
  let placed = 0;
  components.forEach((component, c) => {
    componentStart[c] = placed;
    componentCyclic[c] = component.cyclic ? 1 : 0;
    for (const i of component.nodes) componentNodes[placed++] = i;
  });
  componentStart[components.length] = placed;

  const mostLimit = maxRetryLimit.reduce((most, k) => Math.max(most, k), 0);
  const timed = timedRouting(network);
  return {
    ...(timed === undefined ? {} : { timed }),
    serviceCount: n,
    classCount,
    services,
    independent,
    retryLimits,
    maxRetryLimit,
    gamma,
    totalExternal,
    floor: 1e-9 * Math.max(totalExternal, Number.MIN_VALUE),
    incomingStart,
    incomingFrom,
    incomingProbability,
    topologicalOrder: topo === undefined ? undefined : Int32Array.from(topo),
    componentStart,
    componentNodes,
    componentCyclic,
    rows,
    attemptsByLimit: new Float64Array(mostLimit + 1),
    rejectionByLimit: new Float64Array(mostLimit + 1),
  };
}

/**
 * Whether a class's load is a retry limit and a rate only (no α, and nothing a later law might
 * add): then the independent solver reproduces `attemptRejection` exactly.
 */
function isIndependentLoad(load: PreparedService['loads'][number]): boolean {
  // An α list only matters where the class retries (the list covers every class's retries).
  if (load.retryLimit > 0 && (load.residualAlphas?.length ?? 0) > 0) return false;
  for (const field in load) {
    if (!INDEPENDENT_FIELDS.has(field) && load[field as keyof typeof load] !== undefined) {
      return false;
    }
  }
  return true;
}

/** The network's per-try timeouts as a {@link TimedRouting}, or undefined where it has none. */
function timedRouting(network: NetworkModel): TimedRouting | undefined {
  const classCount = network.classes.length;
  const n = network.services.length;
  const timeout = new Float64Array(n * classCount);
  const timedService = new Uint8Array(n);
  let any = false;
  network.services.forEach((service, i) => {
    for (let p = 0; p < classCount; p++) {
      const seconds = service.timeouts?.[p];
      // prepareServices has checked it: undefined or a positive number of seconds.
      if (seconds === undefined) continue;
      timeout[i * classCount + p] = seconds * service.capacity;
      timedService[i] = 1;
      any = true;
    }
  });
  if (!any) return undefined;
  return { timeout, queue: Int32Array.from(network.services, (s) => s.queue), timedService };
}
