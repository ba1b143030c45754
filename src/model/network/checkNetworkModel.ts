import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { NetworkModel, NetworkService } from './NetworkModel.js';
import { ROUTE_SUM_TOLERANCE } from './routeSumTolerance.js';
import { successorLists, topologicalOrder } from './topology.js';

/** The largest per-class retry limit a network may give (as the spec's `MAX_RETRIES`). */
const MAX_RETRY_LIMIT = 1000;

/**
 * Checks a network model's structure and numbers, the one check the analysis and the simulator
 * both run before they start: at least one class and one service; one mode (routing networks
 * have no calls, call-graph networks no routes); positive finite capacities; finite arrival rates
 * ≥ 0; integer retry limits in [0, 1000]; every route and call naming a service; call counts
 * that are integers ≥ 1; calls that form a DAG; positive per-try timeouts; route and branch
 * probabilities in [0, 1], summing to at most 1 per class (up to `ROUTE_SUM_TOLERANCE`). A network file's own checks (spec/networkRules.ts) come first and
 * speak in its names and lines; this one guards the model API. The mode is the network's
 * ({@link networkMode}).
 * @throws RangeError naming the service (`services[2] (geo)`) and the bad value.
 */
export function checkNetworkModel(network: NetworkModel): void {
  const mode = networkMode(network);
  const classCount = network.classes.length;
  const serviceCount = network.services.length;
  if (classCount === 0) throw new InvalidArgumentError('a network needs at least one class');
  if (serviceCount === 0) throw new InvalidArgumentError('a network needs at least one service');
  network.services.forEach((service, i) => {
    const where = `services[${i}] (${service.name})`;
    checkMode(service, mode, where);
    if (!(Number.isFinite(service.capacity) && service.capacity > 0)) {
      throw new InvalidArgumentError(
        `${where}.capacity should be a positive finite number, got ${service.capacity}`,
      );
    }
    for (let p = 0; p < classCount; p++) {
      const rate = service.arrivals[p] ?? 0;
      if (!(Number.isFinite(rate) && rate >= 0)) {
        throw new InvalidArgumentError(
          `${where}.arrivals[${p}] should be a finite number ≥ 0, got ${rate}`,
        );
      }
      const k = service.retryLimits[p] ?? network.classes[p]?.retryLimit ?? 0;
      if (!(Number.isInteger(k) && k >= 0 && k <= MAX_RETRY_LIMIT)) {
        throw new InvalidArgumentError(
          `${where}.retryLimits[${p}] should be an integer in [0, ${MAX_RETRY_LIMIT}], got ${k}`,
        );
      }
    }
    const edges = [
      ...service.routes,
      ...(service.calls ?? []),
      ...(service.branches ?? []).flatMap((b) => b.calls),
    ];
    for (const edge of edges) {
      if (!(Number.isInteger(edge.to) && edge.to >= 0 && edge.to < serviceCount)) {
        throw new InvalidArgumentError(`${where} names an unknown service index ${edge.to}`);
      }
      if ('n' in edge && !(Number.isInteger(edge.n) && edge.n >= 1)) {
        throw new InvalidArgumentError(
          `${where} has a call count n ${edge.n}, expected an integer ≥ 1`,
        );
      }
    }
    for (let p = 0; p < (service.timeouts?.length ?? 0); p++) {
      const seconds = service.timeouts?.[p];
      if (seconds !== undefined && !(seconds > 0)) {
        throw new InvalidArgumentError(
          `${where}.timeouts[${p}] should be a positive number of seconds, got ${seconds}`,
        );
      }
    }
    checkProbabilities(service, network, where);
  });
  if (
    mode === 'calls' &&
    topologicalOrder(successorLists(network.services, { routes: false, calls: true })) === undefined
  ) {
    throw new InvalidArgumentError('calls must form a DAG (no service may call itself back)');
  }
}

/**
 * How a network passes requests on: its `mode`, else `calls` when a service has calls or
 * branches, else `routing`. The analysis and the simulator read a network the same way.
 */
export function networkMode(network: NetworkModel): 'routing' | 'calls' {
  if (network.mode !== undefined) return network.mode;
  return network.services.some((s) => (s.calls?.length ?? 0) > 0 || (s.branches?.length ?? 0) > 0)
    ? 'calls'
    : 'routing';
}

function checkMode(service: NetworkService, mode: 'routing' | 'calls', where: string): void {
  if (mode === 'routing') {
    if ((service.calls?.length ?? 0) > 0 || (service.branches?.length ?? 0) > 0) {
      throw new InvalidArgumentError(
        `${where} has calls in a routing-mode network; set mode: 'calls'`,
      );
    }
  } else if (service.routes.length > 0) {
    throw new InvalidArgumentError(`${where} has routes in a call-graph network`);
  }
}

/** Route and branch probabilities in [0, 1], and per class at most 1 in all. */
function checkProbabilities(service: NetworkService, network: NetworkModel, where: string): void {
  for (const route of service.routes) {
    if (!(route.p >= 0 && route.p <= 1)) {
      throw new InvalidArgumentError(
        `${where} has a route probability ${route.p}, expected one in [0, 1]`,
      );
    }
  }
  network.classes.forEach((c, p) => {
    let total = 0;
    for (const route of service.routes) {
      if (route.classIndex === undefined || route.classIndex === p) total += route.p;
    }
    if (total > 1 + ROUTE_SUM_TOLERANCE) {
      throw new InvalidArgumentError(
        `${where} routes of class ${c.name} should sum to at most 1, got ${total}`,
      );
    }
  });
  const branches = service.branches ?? [];
  let branchTotal = 0;
  for (const branch of branches) {
    if (!(branch.p >= 0 && branch.p <= 1)) {
      throw new InvalidArgumentError(
        `${where} has a branch probability ${branch.p}, expected one in [0, 1]`,
      );
    }
    branchTotal += branch.p;
  }
  if (branchTotal > 1 + ROUTE_SUM_TOLERANCE) {
    throw new InvalidArgumentError(`${where} branches should sum to at most 1, got ${branchTotal}`);
  }
}
