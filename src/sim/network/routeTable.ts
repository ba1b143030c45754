import type { NetworkModel } from '../../model/network/NetworkModel.js';

/**
 * The external arrivals and the routes of a network, flat, per cell (service × classCount +
 * class): the mean time between arrivals (0 for none), and the cell's routes as the slice
 * [routeStart, routeEnd) of cumulative probabilities and targets (routes for every class and
 * those of the cell's class, in file order). The network has passed `checkNetworkModel`.
 */
export interface RouteTable {
  readonly meanInterarrival: Float64Array;
  readonly routeStart: Int32Array;
  readonly routeEnd: Int32Array;
  readonly routeCumulative: Float64Array;
  readonly routeTarget: Int32Array;
}

/** The {@link RouteTable} of a network. */
export function routeTable(network: NetworkModel): RouteTable {
  const classCount = network.classes.length;
  const cells = network.services.length * classCount;
  const meanInterarrival = new Float64Array(cells);
  const routeStart = new Int32Array(cells);
  const routeEnd = new Int32Array(cells);
  const cumulative: number[] = [];
  const targets: number[] = [];
  network.services.forEach((service, i) => {
    for (let p = 0; p < classCount; p++) {
      const cell = i * classCount + p;
      const rate = service.arrivals[p] ?? 0;
      meanInterarrival[cell] = rate > 0 ? 1 / rate : 0;
      routeStart[cell] = targets.length;
      let total = 0;
      for (const route of service.routes) {
        if (route.classIndex !== undefined && route.classIndex !== p) continue;
        total += route.p;
        cumulative.push(total);
        targets.push(route.to);
      }
      routeEnd[cell] = targets.length;
    }
  });
  return {
    meanInterarrival,
    routeStart,
    routeEnd,
    routeCumulative: new Float64Array(cumulative),
    routeTarget: new Int32Array(targets),
  };
}
