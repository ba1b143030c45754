import { FIXED_POINT_TOLERANCE } from '../service.js';
import type { NetworkModel } from './NetworkModel.js';
import type { EndToEndAnalysis, NetworkReport, ServiceAnalysis } from './NetworkReport.js';
import { solveCalls } from './solveCalls.js';
import { solveRouting } from './solveRouting.js';
import { routingStructure } from './structure.js';

/** Options of {@link analyzeNetwork}. */
export interface AnalyzeOptions {
  /** Tolerance of the network fixed point (relative on λin, or absolute on s); default 1e-12. */
  readonly tolerance?: number;
  /** Most passes over the network; default 10,000 (routing) or 1,000 (calls). */
  readonly maxIterations?: number;
}

/**
 * Analyses a network: per-service, per-class and end-to-end rejection (DESIGN.md, "A network").
 *
 * Routing networks are solved by {@link solveRouting}, call graphs by {@link solveCalls}. A
 * routing network in which some class can never leave a set of services (ρ(F) ≥ 1, so the
 * standard flow equations have no solution) is refused with a RangeError naming the services.
 * The report says whether the fixed point converged; it is returned either way.
 * @example
 * ```ts
 * const report = analyzeNetwork({
 *   classes: [{ name: 'high', retryLimit: 5 }, { name: 'low', retryLimit: 1 }],
 *   services: [{ name: 'frontend', capacity: 143, queue: 50, model: 'mixed',
 *     arrivals: [50, 250], retryLimits: [5, 1], routes: [] }],
 * });
 * report.endToEnd.high.rejection; // 0.2027…
 * ```
 */
export function analyzeNetwork(network: NetworkModel, options: AnalyzeOptions = {}): NetworkReport {
  const tolerance = options.tolerance ?? FIXED_POINT_TOLERANCE;
  const structure = routingStructure(network);
  for (const closed of structure.closedSets) {
    const names = closed.services.map((i) => network.services[i]?.name).join(', ');
    throw new RangeError(
      `class ${network.classes[closed.classIndex]?.name}: requests routed into ${names} can never leave ` +
        '(their route probabilities sum to 1 around a cycle), so ρ(F) = 1; the standard equations need ρ(F) < 1',
    );
  }
  const mode =
    network.mode ??
    (network.services.some((s) => (s.calls?.length ?? 0) > 0 || (s.branches?.length ?? 0) > 0)
      ? 'calls'
      : 'routing');
  const classNames = network.classes.map((c) => c.name);
  let perService: {
    in: number[][];
    out: number[][];
    attempts: number[][];
    rejection: number[][];
    s: number[];
  };
  let completionAtEntry: number[][];
  let converged: boolean;
  let iterations: number;
  let residual: number;
  if (mode === 'routing') {
    const solution = solveRouting(network, { tolerance, maxIterations: options.maxIterations });
    perService = {
      in: solution.lambdaIn,
      out: solution.lambdaOut,
      attempts: solution.attempts,
      rejection: solution.rejection,
      s: solution.s,
    };
    completionAtEntry = solution.completion;
    ({ converged, iterations, residual } = solution);
  } else {
    const solution = solveCalls(network, { tolerance, maxIterations: options.maxIterations });
    perService = {
      in: solution.callsIn,
      out: solution.callsIn.map((row, i) =>
        row.map((c, p) => c * ((solution.callSuccess[i] as number[])[p] as number)),
      ),
      attempts: solution.attempts,
      rejection: solution.callSuccess.map((row) => row.map((success) => 1 - success)),
      s: solution.s,
    };
    completionAtEntry = solution.callSuccess;
    ({ converged, iterations, residual } = solution);
  }

  const services: Record<string, ServiceAnalysis> = {};
  let totalAttempts = 0;
  network.services.forEach((service, i) => {
    const classes: Record<string, ServiceAnalysis['classes'][string]> = {};
    let attempts = 0;
    classNames.forEach((name, p) => {
      const at = (table: number[][]) => (table[i] as number[])[p] as number;
      attempts += at(perService.attempts);
      classes[name] = {
        in: at(perService.in),
        out: at(perService.out),
        attempts: at(perService.attempts),
        rejection: at(perService.rejection),
      };
    });
    totalAttempts += attempts;
    services[service.name] = {
      model: service.model,
      s: perService.s[i] as number,
      rho: attempts / service.capacity,
      classes,
    };
  });

  const endToEnd: Record<string, EndToEndAnalysis> = {};
  let external = 0;
  let completed = 0;
  let externalAttempts = 0;
  classNames.forEach((name, p) => {
    let gamma = 0;
    let done = 0;
    network.services.forEach((service, i) => {
      const g = service.arrivals[p] ?? 0;
      if (g <= 0) return;
      gamma += g;
      done += g * ((completionAtEntry[i] as number[])[p] as number);
      // The external clients' attempts: γ times the attempts per request at the entry.
      const arriving = (perService.in[i] as number[])[p] as number;
      externalAttempts += (g * ((perService.attempts[i] as number[])[p] as number)) / arriving;
    });
    external += gamma;
    completed += done;
    // Completion as the γ-weighted mean of C, with weights γ_i/Σγ so a tiny (even subnormal) rate
    // keeps its precision where γ·C would underflow.
    let completion = Number.NaN;
    if (gamma > 0) {
      completion = 0;
      network.services.forEach((service, i) => {
        const g = service.arrivals[p] ?? 0;
        if (g > 0) completion += (g / gamma) * ((completionAtEntry[i] as number[])[p] as number);
      });
    }
    endToEnd[name] = { rejection: 1 - completion, completion };
  });

  return {
    classes: network.classes.map((c) => ({ name: c.name, retries: c.retryLimit })),
    services,
    endToEnd,
    converged,
    iterations,
    residual,
    mode,
    structure: {
      dag: structure.dag,
      spectralRadius: Object.fromEntries(
        classNames.map((name, p) => [name, structure.spectralRadius[p] ?? 0]),
      ),
      normInf: structure.normInf,
      uniqueness: structure.uniqueness,
    },
    load: {
      external,
      attempts: totalAttempts,
      attemptsPerRequest: external > 0 ? totalAttempts / external : Number.NaN,
      attemptsPerSuccess: completed > 0 ? totalAttempts / completed : Number.NaN,
      internalPerRequest: external > 0 ? (totalAttempts - externalAttempts) / external : Number.NaN,
      internalPerSuccess:
        completed > 0 ? (totalAttempts - externalAttempts) / completed : Number.NaN,
    },
  };
}
