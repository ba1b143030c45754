import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import { FIXED_POINT_TOLERANCE } from '../service.js';
import type { AnalysisProgress } from './AnalysisProgress.js';
import { type CallEquilibria, callEquilibria } from './callEquilibria.js';
import { checkNetworkModel, networkMode } from './checkNetworkModel.js';
import { chooseLaw, type LawChoice } from './lawChoice.js';
import type { NetworkModel } from './NetworkModel.js';
import type {
  EndToEndAnalysis,
  Equilibrium,
  FailedShareSwing,
  NetworkLoad,
  NetworkReport,
  ServiceAnalysis,
} from './NetworkReport.js';
import { type OrbitServiceState, orbitEquilibria } from './orbitLaw.js';
import { type RoutingEquilibria, routingEquilibria } from './routingEquilibria.js';
import type { CallSolution } from './solveCalls.js';
import { solveRouting } from './solveRouting.js';
import { routingStructure } from './structure.js';
import type { TimedRoutingSolution } from './timedRoutingState.js';

/** Options of {@link analyzeNetwork}. */
export interface AnalyzeOptions {
  /**
   * Tolerance of the network fixed point (relative on λin, or absolute on s); default 1e-12.
   * @default 1e-12
   */
  readonly tolerance?: number;
  /**
   * Most passes over the network; default 10,000 (routing) or 1,000 (calls).
   * @default 10_000 (routing) or 1000 (calls)
   */
  readonly maxIterations?: number;
  /**
   * Equilibria already found for this network (e.g. by `sweepEquilibria` or
   * `sweepRoutingEquilibria`, which follow them along a sweep): reported instead of solving
   * again. `CallEquilibria` for networks that {@link usesCallSolver}, `RoutingEquilibria` for
   * those that {@link usesTimedRouting}.
   * @default none (the equilibria are solved for)
   */
  readonly equilibria?: CallEquilibria | RoutingEquilibria;
  /**
   * The law: `mean-field` (the queue at its stationary law for the mean load), `orbit`
   * (docs/model.md, "The orbit law"), which so far covers M/M/1/m services standing alone or
   * routing (`orbitLawRefusal` says why another is not), or `auto`: the one measured to be nearer
   * the simulator for this kind of network (`chooseLaw`). The report says which it used.
   * @default 'mean-field'
   */
  readonly law?: LawChoice;
  /**
   * Told where a long analysis is ({@link AnalysisProgress}): each phase as it starts, and within
   * the call-graph solver's searches every so many sweeps (about every 500,000 cell updates, at
   * most 250 sweeps apart; counted in sweeps, not time, so the analysis stays pure). Passed on
   * to `routingEquilibria` with the other options. Nothing is measured when it is unset.
   * @default none
   */
  readonly onProgress?: (progress: AnalysisProgress) => void;
}

/**
 * Whether {@link analyzeNetwork} solves this network with the call-graph solver (call-graph mode,
 * or per-try timeouts at services that route nothing on) and so looks for more than one
 * equilibrium.
 */
export function usesCallSolver(network: NetworkModel): boolean {
  const mode = networkMode(network);
  return mode === 'calls' || (isTimed(network) && !isRouted(network));
}

/**
 * Whether {@link analyzeNetwork} solves this network as a routing network with per-try timeouts
 * (routing mode, some route with p > 0, some timeout) and so looks for more than one equilibrium
 * (`routingEquilibria`).
 */
export function usesTimedRouting(network: NetworkModel): boolean {
  const mode = networkMode(network);
  return mode === 'routing' && isTimed(network) && isRouted(network);
}

function isRouted(network: NetworkModel): boolean {
  return network.services.some((s) => s.routes.some((r) => r.p > 0));
}

function isTimed(network: NetworkModel): boolean {
  return network.services.some((s) => (s.timeouts ?? []).some((t) => t !== undefined));
}

/** Per service i and class p: the tables a solved state is described by. */
interface SolvedState {
  readonly in: number[][];
  readonly out: number[][];
  readonly attempts: number[][];
  readonly rejection: number[][];
  readonly s: number[];
  /** C_i^p, completion of a class-p request entering at i. */
  readonly completion: number[][];
}

/**
 * Analyses a network: per-service, per-class and end-to-end rejection (docs/design.md, "A network"),
 * and every equilibrium the analysis can find.
 *
 * Routing networks are solved by {@link solveRouting}, call graphs by `callEquilibria` (the state
 * an idle network reaches and the state a network in a retry storm reaches; both are reported
 * when they differ — the configuration is then bistable). A network without routes or calls (a
 * single service, or independent ones) with per-try timeouts is solved as a call graph, whose
 * law is the same there; a routing network with per-try timeouts by `routingEquilibria` (healthy
 * from the load raised from zero, storm from saturation, as for call graphs). A routing network in which some class can never leave a set of
 * services (ρ(F) ≥ 1, so the standard flow equations have no solution) is refused with a
 * RangeError naming the services. The report's main figures describe the first equilibrium
 * (`equilibria[0]`); it says whether the fixed point converged and is returned either way.
 * @example
 * ```ts
 * const report = analyzeNetwork({
 *   classes: [{ name: 'high', retryLimit: 5 }, { name: 'low', retryLimit: 1 }],
 *   services: [{ name: 'frontend', capacity: 143, queue: 50, model: 'mixed',
 *     arrivals: [50, 250], retryLimits: [5, 1], routes: [] }],
 * });
 * report.endToEnd.high.rejection; // 0.2027…
 * report.equilibria.length; // 1: the state is unique
 * ```
 */
export function analyzeNetwork(network: NetworkModel, options: AnalyzeOptions = {}): NetworkReport {
  checkNetworkModel(network);
  const tolerance = options.tolerance ?? FIXED_POINT_TOLERANCE;
  // The sweeps of the last report, so the report phase says how many the analysis took.
  let sweeps = 0;
  const listener = options.onProgress;
  const onProgress =
    listener === undefined
      ? undefined
      : (progress: AnalysisProgress) => {
          sweeps = Math.max(sweeps, progress.sweeps);
          listener(progress);
        };
  onProgress?.({ phase: 'structure', sweeps: 0 });
  const structure = routingStructure(network);
  for (const closed of structure.closedSets) {
    const names = closed.services.map((i) => network.services[i]?.name).join(', ');
    throw new InvalidArgumentError(
      `class ${network.classes[closed.classIndex]?.name}: requests routed into ${names} can never leave ` +
        '(their route probabilities sum to 1 around a cycle), so ρ(F) = 1; the standard equations need ρ(F) < 1',
    );
  }
  const mode = networkMode(network);
  const timed = isTimed(network);
  // Routing equilibria given for a network without routes (one service, say) are reported too.
  const timedRouting =
    usesTimedRouting(network) ||
    (mode === 'routing' && options.equilibria !== undefined && 'form' in options.equilibria);
  if (timed && network.services.some((s) => s.residualAlphas !== undefined)) {
    throw new InvalidArgumentError(
      'per-try timeouts and the residual-time correction cannot be combined yet: drop residual: true or the timeouts',
    );
  }
  const classNames = network.classes.map((c) => c.name);
  const useCalls = !timedRouting && (mode === 'calls' || timed);
  const states: ReportedState[] = [];
  let converged: boolean;
  let iterations: number;
  let residual: number;
  let swinging: NetworkReport['swinging'];
  let tippedAt: number | undefined;
  let stormUnsettled = false;
  const chosen =
    options.law === undefined
      ? { law: 'mean-field' as const, why: 'the default' }
      : chooseLaw(network, options.law);
  if (chosen.law === 'orbit') {
    const orbit = orbitEquilibria(
      network,
      onProgress === undefined
        ? {}
        : {
            onService: ({ state, service, passes }) =>
              onProgress({
                phase: 'orbit',
                sweeps: passes,
                detail: `${state} state, service ${service}`,
              }),
          },
    );
    // Each class's external requests per second, what its end-to-end figures are per.
    const external = network.classes.map((_, p) =>
      network.services.reduce((sum, service) => sum + (service.arrivals[p] ?? 0), 0),
    );
    for (const { kind, services } of orbit.equilibria) {
      states.push({
        kind,
        stable: true,
        state: {
          in: services.map((x) => x.in),
          out: services.map((x) => x.out),
          attempts: services.map((x) => x.attempts),
          rejection: services.map((x) => x.rejection),
          s: services.map((x) => x.s),
          completion: services.map((x) => x.completion),
        },
        escapeSeconds: services.map((x) => x.escapeTime),
        failedShares: services.map((x) => failedShareSwings(network, external, x)),
      });
    }
    ({ converged, iterations, residual } = orbit);
  } else if (timedRouting) {
    const given = options.equilibria ?? routingEquilibria(network, options);
    if (!('form' in given)) {
      throw new InvalidArgumentTypeError('equilibria: a routing network needs RoutingEquilibria');
    }
    const first = takeEquilibria(given, timedRoutingState, states);
    ({ converged, iterations, residual } = first);
    ({ tippedAt, stormUnsettled } = tipsOf(given));
  } else if (!useCalls) {
    const solution = solveRouting(network, { tolerance, maxIterations: options.maxIterations });
    states.push({
      kind: 'healthy',
      stable: true,
      state: {
        in: solution.lambdaIn,
        out: solution.lambdaOut,
        attempts: solution.attempts,
        rejection: solution.rejection,
        s: solution.s,
        completion: solution.completion,
      },
    });
    ({ converged, iterations, residual } = solution);
  } else {
    const given =
      options.equilibria ??
      callEquilibria(network, {
        tolerance,
        maxIterations: options.maxIterations,
        ...(onProgress === undefined ? {} : { onProgress }),
      });
    if ('form' in given)
      throw new InvalidArgumentTypeError('equilibria: a call graph needs CallEquilibria');
    const first = takeEquilibria(given, callState, states);
    ({ converged, iterations, residual } = first);
    ({ tippedAt, stormUnsettled } = tipsOf(given));
    if (!converged && first.swings !== undefined) {
      swinging = first.swings.map((swing) => ({
        service: network.services[swing.service]?.name ?? String(swing.service),
        low: swing.low,
        high: swing.high,
      }));
    }
  }

  onProgress?.({ phase: 'report', sweeps });
  const described = states.map(({ kind, state, stable, escapeSeconds, failedShares }) => ({
    kind,
    stable,
    escapeSeconds,
    failedShares,
    ...describeState(network, state),
  }));
  const main = described[0] as (typeof described)[number];
  const equilibria: Equilibrium[] = described.map((d) => ({
    kind: d.kind,
    stable: d.stable,
    endToEnd: d.endToEnd,
    attemptsPerRequest: d.load.attemptsPerRequest,
    services: Object.fromEntries(
      Object.entries(d.services).map(([name, s], i) => {
        const lasts = d.escapeSeconds?.[i];
        const swings = d.failedShares?.[i];
        return [
          name,
          {
            s: s.s,
            rho: s.rho,
            ...(lasts === undefined ? {} : { escapeSeconds: lasts }),
            ...(swings === undefined ? {} : { failedShares: swings }),
          },
        ];
      }),
    ),
  }));
  return {
    classes: network.classes.map((c) => ({ name: c.name, retries: c.retryLimit })),
    services: main.services,
    endToEnd: main.endToEnd,
    equilibria,
    converged,
    iterations,
    residual,
    ...(swinging === undefined ? {} : { swinging }),
    ...(tippedAt === undefined ? {} : { tippedAt }),
    ...(stormUnsettled ? { stormUnsettled } : {}),
    mode,
    law: chosen.law,
    lawReason: chosen.why,
    structure: {
      dag: structure.dag,
      spectralRadius: Object.fromEntries(
        classNames.map((name, p) => [name, structure.spectralRadius[p] ?? 0]),
      ),
      normInf: structure.normInf,
      // No known condition makes a call graph's (or a timed network's) fixed point unique: with
      // nested retries or timeouts a DAG can have a healthy and a storm state.
      uniqueness: useCalls || timed ? 'none' : structure.uniqueness,
    },
    load: main.load,
  };
}

/** A solved state in the report's terms, and its kind. */
type ReportedState = {
  kind: 'healthy' | 'storm';
  state: SolvedState;
  stable: boolean;
  /** Per service, the orbit law's mean time in this state before it leaves (seconds), if known. */
  escapeSeconds?: (number | undefined)[];
  /** Per service, the orbit law's swing of each class's failed share in this state. */
  failedShares?: Record<string, FailedShareSwing>[];
};

/**
 * Per class (by name), how one service's failed share swings in an orbit-law state and how much
 * the class's end-to-end rejection moves with it: requests entering per external request of the
 * class (`external`: each class's external requests per second) × the chance one succeeding
 * there completes the rest of its path.
 */
function failedShareSwings(
  network: NetworkModel,
  external: readonly number[],
  state: OrbitServiceState,
): Record<string, FailedShareSwing> {
  return Object.fromEntries(
    network.classes.map((c, p) => {
      const swing = state.failedShares[p];
      const requests = external[p] ?? 0;
      const endToEnd = requests > 0 ? ((state.in[p] ?? 0) * (state.onward[p] ?? 0)) / requests : 0;
      return [
        c.name,
        {
          share: swing?.share ?? 0,
          variance: swing?.variance ?? 0,
          asymptoticVariance: swing?.asymptoticVariance ?? 0,
          endToEnd,
        },
      ];
    }),
  );
}

/**
 * Appends the equilibria found (in their order) to `states`, as tables; returns the first one's
 * solution, whose convergence the report gives.
 * @throws RangeError when none was found.
 */
function takeEquilibria<S extends { readonly stable: boolean }>(
  given: { readonly equilibria: readonly { kind: 'healthy' | 'storm'; solution: S }[] },
  toState: (solution: S) => SolvedState,
  states: ReportedState[],
): S {
  const [first] = given.equilibria;
  if (first === undefined) throw new InvalidArgumentError('equilibria: expected at least one');
  for (const { kind, solution } of given.equilibria)
    states.push({ kind, stable: solution.stable, state: toState(solution) });
  return first.solution;
}

/** Where the rising load first tipped, and whether the search from saturation did not settle. */
function tipsOf(given: { readonly tips: readonly number[]; readonly stormUnsettled?: boolean }): {
  tippedAt: number | undefined;
  stormUnsettled: boolean;
} {
  return { tippedAt: given.tips[0], stormUnsettled: given.stormUnsettled === true };
}

/** A timed routing solution as the report's tables. */
function timedRoutingState(solution: TimedRoutingSolution): SolvedState {
  return {
    in: solution.lambdaIn,
    out: solution.lambdaOut,
    attempts: solution.attempts,
    rejection: solution.rejection,
    s: solution.s,
    completion: solution.completion,
  };
}

/** A call-graph solution as the report's tables: calls in and out, R, C = S. */
function callState(solution: CallSolution): SolvedState {
  return {
    in: solution.callsIn,
    out: solution.callsOut,
    attempts: solution.attempts,
    rejection: solution.callRejection,
    s: solution.attemptRejection,
    completion: solution.callSuccess,
  };
}

/** Per-service, end-to-end and whole-network figures of one solved state. */
function describeState(
  network: NetworkModel,
  state: SolvedState,
): {
  services: Record<string, ServiceAnalysis>;
  endToEnd: Record<string, EndToEndAnalysis>;
  load: NetworkLoad;
} {
  const classNames = network.classes.map((c) => c.name);
  const services: Record<string, ServiceAnalysis> = {};
  let totalAttempts = 0;
  network.services.forEach((service, i) => {
    const classes: Record<string, ServiceAnalysis['classes'][string]> = {};
    let attempts = 0;
    classNames.forEach((name, p) => {
      const at = (table: number[][]) => (table[i] as number[])[p] as number;
      attempts += at(state.attempts);
      classes[name] = {
        in: at(state.in),
        out: at(state.out),
        attempts: at(state.attempts),
        rejection: at(state.rejection),
      };
    });
    totalAttempts += attempts;
    services[service.name] = {
      model: service.model,
      s: state.s[i] as number,
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
      done += g * ((state.completion[i] as number[])[p] as number);
      // The external clients' attempts: γ times the attempts per request at the entry.
      const arriving = (state.in[i] as number[])[p] as number;
      externalAttempts += (g * ((state.attempts[i] as number[])[p] as number)) / arriving;
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
        if (g > 0) completion += (g / gamma) * ((state.completion[i] as number[])[p] as number);
      });
    }
    endToEnd[name] = { rejection: 1 - completion, completion, requests: gamma };
  });
  return {
    services,
    endToEnd,
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
