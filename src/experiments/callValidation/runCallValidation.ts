/**
 * Runs the call-graph validation's cases: each analysed (`analyzeNetwork` in call-graph mode, with
 * its equilibria; the chains also with the `mm1m` law, the generated networks also with follow-up
 * calls) and simulated run by run (`simulateRuns`, a fresh substream per run in the cases' order),
 * each run matched to the nearest equilibrium, and the analysis's equations read at the simulated
 * s; then one row per case and class. CPU only: no file; it times each analysis and simulation.
 */
import { analyzeNetwork } from '../../model/network/analyzeNetwork.js';
import { compileCallPlan } from '../../model/network/callPlan.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import type { NetworkReport } from '../../model/network/NetworkReport.js';
import { solveCalls } from '../../model/network/solveCalls.js';
import {
  nearestEquilibriumByServices,
  runRejection,
  runServiceS,
  type StateMatch,
  windowRejection,
} from '../simulation/equilibriumMatch.js';
import { type RunSet, simulateRuns } from '../simulation/simulateRuns.js';
import type { FigureRow } from '../simulation/validationFigures.js';
import { CALL_VALIDATION_BACKOFF as BACKOFF, CALL_VALIDATION_SEED as SEED } from './callCases.js';
import type { Case } from './callValidationCases.js';
import { loadsAtS, rejectionAtS } from './equationsAtS.js';

/** The largest |φ_j(ρ_j(s)) − s_j|: how far the model's load equations are from holding at s. */
function closureAt(network: NetworkModel, s: readonly number[]): number {
  const plan = compileCallPlan(network);
  const rho = loadsAtS(network, s);
  let most = 0;
  for (let j = 0; j < plan.serviceCount; j++) {
    const phi = (plan.phi[j] as (r: number) => number)(rho[j] as number);
    most = Math.max(most, Math.abs(phi - (Number.isFinite(s[j]) ? (s[j] as number) : 0)));
  }
  return most;
}

/** Per class name: end-to-end rejection of a solved state (external calls that fail). */
function endToEndOf(
  network: NetworkModel,
  solution: ReturnType<typeof solveCalls>,
): Record<string, number> {
  return Object.fromEntries(
    network.classes.map((cls, p) => {
      let offered = 0;
      let failed = 0;
      network.services.forEach((service, j) => {
        const gamma = service.arrivals[p] ?? 0;
        offered += gamma;
        failed += gamma * (1 - (solution.callSuccess[j]?.[p] ?? 1));
      });
      return [cls.name, offered > 0 ? failed / offered : Number.NaN];
    }),
  );
}

/** The same network with the law `model` at every service. */
function withLaw(network: NetworkModel, model: 'mm1m'): NetworkModel {
  return { ...network, services: network.services.map((s) => ({ ...s, model })) };
}

/** One case analysed and simulated. */
export interface Outcome {
  readonly c: Case;
  readonly report: NetworkReport;
  readonly analysisSeconds: number;
  readonly simulated: RunSet;
  readonly simulationSeconds: number;
  /** Per class: the analysis's equations evaluated at the simulated s (see `rejectionAtS`). */
  readonly atSimulatedS: Readonly<Record<string, number>>;
  /**
   * The model's load equations at the simulated s: the largest |φ_j(ρ_j) − s_j| over the
   * services, ρ_j the offered load the equations give at that s (0 where the simulated state
   * is a fixed point of the model).
   */
  readonly closureAtSimulatedS: number;
  /** Per class: the rejection of the state the solver relaxes to started from the simulated s. */
  readonly fromSimulatedS: Readonly<Record<string, number>>;
  /** Whether that relaxation converged (else its figures are the last iterate's). */
  readonly fromSimulatedSConverged: boolean;
  /** Chains: the main figures with the `mm1m` law at every hop instead of `mixed`. */
  readonly mm1m?: NetworkReport;
  /** Generated networks: the analysis with follow-up calls, and its seconds. */
  readonly followUps?: { readonly report: NetworkReport; readonly seconds: number };
  /** Per run: the equilibrium its measured window matched, and its first and last windows'. */
  readonly matches: readonly {
    readonly whole: StateMatch;
    readonly first: StateMatch;
    readonly last: StateMatch;
  }[];
}

/** One class of one case: the analysis beside the simulation. */
export interface Row extends FigureRow {
  readonly o: Outcome;
  /** |gap| against the equilibrium most runs matched (the main one when the state is unique). */
  readonly gapMatched: number;
  /** The analysis's equations at the simulated s, and its |gap| to the simulation. */
  readonly atSimulatedS: number;
  readonly gapAtSimulatedS: number;
}

/** The validation's outcomes, in the cases' order. */
export interface CallValidationRun {
  readonly outcomes: readonly Outcome[];
  /** Events the simulator processed, all runs together. */
  readonly events: number;
}

/** What {@link runCallValidation} reports after each case. */
export interface CallValidationProgress {
  /** The case's place in the list, from 0. */
  readonly index: number;
  readonly count: number;
  readonly outcome: Outcome;
  /** The largest |analysis − simulation| over the case's classes. */
  readonly largestGap: number;
}

/** Options of {@link runCallValidation}. */
export interface CallValidationOptions {
  readonly onCase?: (progress: CallValidationProgress) => void;
  /**
   * Only the cases [first, end) (a shard's part, `--shard I/N`); each on the substreams it has
   * in the whole run, so its figures are the whole run's. Default: every case.
   */
  readonly range?: { readonly first: number; readonly end: number };
  /** Milliseconds, for the analysis and simulation times only; default `performance.now`. */
  readonly now?: () => number;
}

/**
 * Analyses and simulates every case in order (case after case on substreams 0, 1, …, as many
 * as its replications), calling `onCase` after each.
 */
export function runCallValidation(
  cases: readonly Case[],
  options: CallValidationOptions = {},
): CallValidationRun {
  const outcomes: Outcome[] = [];
  const now = options.now ?? (() => performance.now());
  const { first, end } = options.range ?? { first: 0, end: cases.length };
  let stream = 0;
  for (const earlier of cases.slice(0, first)) stream += earlier.run.replications;
  let events = 0;
  cases.slice(first, end).forEach((c, place) => {
    const index = first + place;
    const t0 = now();
    const report = analyzeNetwork(c.network);
    const t1 = now();
    const simulated = simulateRuns(
      c.network,
      {
        duration: c.run.duration,
        warmup: c.run.warmup,
        seed: SEED,
        backoff: BACKOFF,
        windowSeconds: c.run.window,
      },
      c.run.replications,
      stream,
    );
    const t2 = now();
    stream += c.run.replications;
    events += simulated.events;
    const firstMeasured = Math.round(c.run.warmup / c.run.window);
    const { classes, services } = c.network;
    const matchAt = (run: RunSet['runs'][number], window?: number) =>
      nearestEquilibriumByServices(
        runServiceS(run, services, window),
        window === undefined ? runRejection(run, classes) : windowRejection(run, window, classes),
        report.equilibria,
      );
    const matches = simulated.runs.map((run) => ({
      whole: matchAt(run),
      first: matchAt(run, firstMeasured),
      last: matchAt(run, (run.windows?.length ?? 1) - 1),
    }));
    const atSimulatedS = rejectionAtS(
      c.network,
      services.map((s) => simulated.services[s.name]?.s.mean ?? Number.NaN),
    );
    const simulatedS = services.map((s) => simulated.services[s.name]?.s.mean ?? Number.NaN);
    const outcome: Outcome = {
      c,
      report,
      closureAtSimulatedS: closureAt(c.network, simulatedS),
      ...(() => {
        const relaxed = solveCalls(c.network, { initialS: simulatedS });
        return {
          fromSimulatedS: endToEndOf(c.network, relaxed),
          fromSimulatedSConverged: relaxed.converged,
        };
      })(),
      ...(c.group === 'chain' ? { mm1m: analyzeNetwork(withLaw(c.network, 'mm1m')) } : {}),
      ...(c.group === 'chain'
        ? {}
        : (() => {
            const start = now();
            const followed = analyzeNetwork({ ...c.network, followUps: true });
            return { followUps: { report: followed, seconds: (now() - start) / 1000 } };
          })()),
      analysisSeconds: (t1 - t0) / 1000,
      simulated,
      simulationSeconds: (t2 - t1) / 1000,
      atSimulatedS,
      matches,
    };
    outcomes.push(outcome);
    options.onCase?.({
      index,
      count: cases.length,
      outcome,
      largestGap: Math.max(...rowsOf(outcome).map((r) => r.gap)),
    });
  });
  return { outcomes, events };
}

/** The equilibrium most runs matched (ties: the first), over the whole measured window. */
function matchedIndex(o: Outcome): number {
  const counts = o.report.equilibria.map(
    (_, index) => o.matches.filter((m) => m.whole.index === index).length,
  );
  return counts.indexOf(Math.max(...counts));
}

/** Per class of the case: the analysis beside the simulation. */
export function rowsOf(o: Outcome): Row[] {
  const { c, report, simulated } = o;
  const healthy = report.equilibria.find((e) => e.kind === 'healthy');
  const storm = report.equilibria.find((e) => e.kind === 'storm');
  const matched = report.equilibria[matchedIndex(o)] ?? report.equilibria[0];
  return c.network.classes.map((cls, p) => {
    const pred = report.endToEnd[cls.name]?.rejection ?? Number.NaN;
    const sim = simulated.rejection[cls.name]?.mean ?? Number.NaN;
    return {
      o,
      cls: cls.name,
      k: c.network.services[0]?.retryLimits[p] ?? cls.retryLimit,
      pred,
      predHealthy: healthy?.endToEnd[cls.name]?.rejection ?? Number.NaN,
      predStorm: storm?.endToEnd[cls.name]?.rejection ?? Number.NaN,
      sim,
      simCi95: simulated.rejection[cls.name]?.ci95 ?? Number.NaN,
      gap: Math.abs(pred - sim),
      gapMatched: Math.abs((matched?.endToEnd[cls.name]?.rejection ?? Number.NaN) - sim),
      atSimulatedS: o.atSimulatedS[cls.name] ?? Number.NaN,
      gapAtSimulatedS: Math.abs((o.atSimulatedS[cls.name] ?? Number.NaN) - sim),
    };
  });
}
