import { FIXED_POINT_TOLERANCE, solveService } from '../service.js';
import type { NetworkModel } from './NetworkModel.js';
import type { EndToEndAnalysis, NetworkReport, ServiceAnalysis } from './NetworkReport.js';

/**
 * Analyses a network: per-service, per-class and end-to-end rejection.
 *
 * This release solves networks of one service with no routing (the single-service model);
 * multi-service networks throw a RangeError saying so.
 * @example
 * ```ts
 * const report = analyzeNetwork({
 *   classes: [{ name: 'high', retryLimit: 5 }, { name: 'low', retryLimit: 1 }],
 *   services: [{ name: 'frontend', capacity: 143, queue: 50, model: 'mixed',
 *     arrivals: [50, 250], retryLimits: [5, 1], routes: [] }],
 * });
 * report.endToEnd.high.rejection;
 * ```
 */
export function analyzeNetwork(
  network: NetworkModel,
  tolerance = FIXED_POINT_TOLERANCE,
): NetworkReport {
  const [service, ...others] = network.services;
  if (service === undefined) throw new RangeError('a network needs at least one service');
  if (others.length > 0 || service.routes.length > 0) {
    throw new RangeError(
      `networks of more than one service are not analysed yet (got ${network.services.length} services)`,
    );
  }
  const solved = solveService(
    {
      capacity: service.capacity,
      queue: service.queue,
      model: service.model,
      classes: network.classes.map((_, p) => ({
        arrivalRate: service.arrivals[p] ?? 0,
        retryLimit: service.retryLimits[p] ?? 0,
        residualAlphas: service.residualAlphas?.[p],
      })),
    },
    tolerance,
  );
  const classes: Record<string, ServiceAnalysis['classes'][string]> = {};
  const endToEnd: Record<string, EndToEndAnalysis> = {};
  network.classes.forEach((c, p) => {
    const r = solved.classes[p];
    if (r === undefined) return;
    classes[c.name] = {
      in: r.arrivalRate,
      out: r.goodput,
      attempts: r.attempts,
      rejection: r.rejection,
    };
    endToEnd[c.name] = { rejection: r.rejection, completion: 1 - r.rejection };
  });
  return {
    classes: network.classes.map((c) => ({ name: c.name, retries: c.retryLimit })),
    services: { [service.name]: { model: service.model, s: solved.s, rho: solved.rho, classes } },
    endToEnd,
    converged: true,
    iterations: 1,
  };
}
