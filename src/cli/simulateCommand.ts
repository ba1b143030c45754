import type { BackoffDescription } from '../model/backoff/BackoffDescription.js';
import type { NetworkModel } from '../model/network/NetworkModel.js';
import { type ReplicatedNetworkResult, replicateNetwork } from '../sim/network/replicateNetwork.js';
import {
  isNetworkStrategy,
  NETWORK_STRATEGIES,
  type NetworkStrategy,
} from '../sim/network/strategy.js';
import { type ReplicatedSingleServiceResult, replicateSingleService } from '../sim/replicate.js';
import type { NetworkSpec } from '../spec/schema.js';
import { toNetworkModel } from '../spec/toNetworkModel.js';
import { loadNetwork, type NetworkSource } from './input.js';
import { progressOnStderr } from './progress.js';
import {
  type RunLength,
  toNetworkSimulationOptions,
  toSingleServiceConfig,
} from './simulationConfig.js';
import { type Column, fixed, formatTable, groupedRows, withCi } from './table.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry simulate`. */
/** The columns of the simulated per-service table (single service and networks alike). */
const SERVICE_COLUMNS: readonly Column[] = [
  { heading: 'service', alignRight: false },
  { heading: 'ρ' },
  { heading: 's' },
  { heading: 'class', alignRight: false },
  { heading: 'in/s' },
  { heading: 'attempts/s' },
  { heading: 'rejection' },
  { heading: 'out/s' },
];

export interface SimulateOptions extends NetworkSource, RunLength {
  readonly json?: boolean;
  readonly replications: number;
  readonly retries?: Record<string, number>;
  /** Retry strategy (`--strategy`); default `difftry`. */
  readonly strategy?: NetworkStrategy;
}

/**
 * Parses `--strategy NAME`.
 * @throws UsageError naming the strategies on an unknown name.
 */
export function parseStrategy(text: string): NetworkStrategy {
  if (isNetworkStrategy(text)) return text;
  throw new UsageError(
    `--strategy: expected one of ${NETWORK_STRATEGIES.join(', ')}, got "${text}"`,
  );
}

/** Defaults of `difftry simulate`: 200 s measured, 10 replications, seed 1. */
export const SIMULATE_DEFAULTS = { duration: 200, replications: 10, seed: 1 } as const;

/** `difftry simulate`: simulates a network and returns what to print on stdout. */
export async function simulateCommand(options: SimulateOptions): Promise<string> {
  const network = await loadNetwork(options);
  const model = toNetworkModel(network, { retries: options.retries });
  // The single-service simulator knows DiffTry only; other strategies run the network simulator,
  // which handles one service as well.
  const strategy = options.strategy ?? 'difftry';
  if (strategy !== 'difftry' || !isSingleService(model)) {
    return simulateNetworkCommand(network, model, options);
  }
  const config = toSingleServiceConfig(network, model, options);
  const progress = progressOnStderr('simulate');
  const result = replicateSingleService(config, options.replications, {
    onProgress: (fraction) => progress.update(fraction),
  });
  progress.stop();
  const serviceName = network.services[0]?.name ?? 'service';
  const document = simulationDocument(model, serviceName, result, options.seed);
  return options.json ? JSON.stringify(document, null, 2) : formatSimulation(model, document);
}

/** One service, no routes, no calls: the single-service simulator's case. */
function isSingleService(model: NetworkModel): boolean {
  const [service, ...others] = model.services;
  return (
    service !== undefined &&
    others.length === 0 &&
    (model.mode ?? 'routing') === 'routing' &&
    service.routes.length === 0
  );
}

/** Why a network simulation uses one backoff, said in its output. */
const ONE_BACKOFF_NOTE =
  "per-class backoffs are not yet applied in network simulation: every hop retries with the first class's backoff";

/** `difftry simulate` for a network of several services: replications of `simulateNetwork`. */
function simulateNetworkCommand(
  network: NetworkSpec,
  model: NetworkModel,
  options: SimulateOptions,
): string {
  const simulation = {
    ...toNetworkSimulationOptions(network, options),
    strategy: options.strategy ?? 'difftry',
  };
  const progress = progressOnStderr('simulate');
  let result: ReplicatedNetworkResult;
  try {
    result = replicateNetwork(model, simulation, options.replications, {
      onProgress: (fraction) => progress.update(fraction),
    });
  } finally {
    progress.stop();
  }
  const document = networkSimulationDocument(model, result, options.seed, simulation.backoff);
  return options.json ? JSON.stringify(document, null, 2) : formatNetworkSimulation(document);
}

/** The `simulate --json` document of a network: DESIGN.md's shape, each figure with its `Ci95`. */
export function networkSimulationDocument(
  model: NetworkModel,
  result: ReplicatedNetworkResult,
  seed: number,
  backoff: BackoffDescription,
) {
  const services: Record<
    string,
    { s: number; sCi95: number; rho: number; rhoCi95: number; classes: Record<string, Figures> }
  > = {};
  for (const [name, service] of Object.entries(result.services)) {
    const classes: Record<string, Figures> = {};
    for (const [className, c] of Object.entries(service.classes)) {
      classes[className] = {
        in: c.in,
        inCi95: c.inCi95,
        out: c.out,
        outCi95: c.outCi95,
        attempts: c.attempts,
        attemptsCi95: c.attemptsCi95,
        rejection: c.rejection,
        rejectionCi95: c.rejectionCi95,
      };
    }
    services[name] = {
      s: service.s,
      sCi95: service.sCi95,
      rho: service.rho,
      rhoCi95: service.rhoCi95,
      classes,
    };
  }
  const endToEnd: Record<string, Figures> = {};
  for (const [className, e] of Object.entries(result.endToEnd)) {
    endToEnd[className] = {
      rejection: e.rejection,
      rejectionCi95: e.rejectionCi95,
      completion: e.completion,
      completionCi95: e.completionCi95,
      attemptsPerRequest: e.attemptsPerRequest,
      attemptsPerRequestCi95: e.attemptsPerRequestCi95,
      latencyMean: e.latencyMean,
      latencyMeanCi95: e.latencyMeanCi95,
      latencyP50: e.latencyP50,
      latencyP50Ci95: e.latencyP50Ci95,
      latencyP99: e.latencyP99,
      latencyP99Ci95: e.latencyP99Ci95,
    };
  }
  return {
    strategy: result.strategy,
    classes: model.classes.map((c) => ({ name: c.name, retries: c.retryLimit })),
    services,
    endToEnd,
    load: { ...result.load },
    replications: result.replications,
    duration: result.duration,
    warmup: result.warmup,
    seed,
    events: result.events,
    backoff,
    notes: [ONE_BACKOFF_NOTE],
  };
}

type Figures = Record<string, number>;
type NetworkSimulationDocument = ReturnType<typeof networkSimulationDocument>;

function formatNetworkSimulation(doc: NetworkSimulationDocument): string {
  const rows = groupedRows(
    doc.services,
    (service) => service.classes,
    (name, service) => [
      name,
      withCi(service.rho, service.rhoCi95, 3),
      withCi(service.s, service.sCi95),
    ],
    (className, c) => [
      className,
      withCi(c.in ?? Number.NaN, c.inCi95 ?? Number.NaN, 2),
      withCi(c.attempts ?? Number.NaN, c.attemptsCi95 ?? Number.NaN, 2),
      withCi(c.rejection ?? Number.NaN, c.rejectionCi95 ?? Number.NaN),
      withCi(c.out ?? Number.NaN, c.outCi95 ?? Number.NaN, 2),
    ],
  );
  const services = formatTable(SERVICE_COLUMNS, rows);
  const endToEnd = formatTable(
    [
      { heading: 'class', alignRight: false },
      { heading: 'retries' },
      { heading: 'rejection' },
      { heading: 'completion' },
      { heading: 'attempts/request' },
      { heading: 'p50 ms' },
      { heading: 'p99 ms' },
    ],
    doc.classes.map((c) => {
      const e = doc.endToEnd[c.name] ?? {};
      return [
        c.name,
        String(c.retries),
        withCi(e.rejection ?? Number.NaN, e.rejectionCi95 ?? Number.NaN),
        withCi(e.completion ?? Number.NaN, e.completionCi95 ?? Number.NaN),
        fixed(e.attemptsPerRequest ?? Number.NaN, 3),
        fixed((e.latencyP50 ?? Number.NaN) * 1000, 1),
        fixed((e.latencyP99 ?? Number.NaN) * 1000, 1),
      ];
    }),
  );
  const load = `Load: ${fixed(doc.load.attemptsPerRequest, 3)} attempts/request, ${fixed(doc.load.attemptsPerSuccess, 3)} attempts/success`;
  return `Strategy: ${doc.strategy}\nSimulated ${doc.replications} × ${doc.duration} s (warm-up ${doc.warmup} s, seed ${doc.seed}, ${doc.events} events); ± is the 95 % confidence half-width\nNote: ${ONE_BACKOFF_NOTE} (${JSON.stringify(doc.backoff)})\n\nServices\n${services}\n\nEnd to end\n${endToEnd}\n${load}`;
}

/** The `simulate --json` document: DESIGN.md's analysis shape, each figure with its `Ci95`. */
export function simulationDocument(
  model: NetworkModel,
  serviceName: string,
  result: ReplicatedSingleServiceResult,
  seed: number,
) {
  const classes: Record<string, Record<string, number>> = {};
  const endToEnd: Record<string, Record<string, number>> = {};
  for (const c of model.classes) {
    const m = result.classes[c.name];
    if (m === undefined) continue;
    classes[c.name] = {
      in: m.arrivalRate,
      inCi95: m.arrivalRateCi95,
      out: m.goodput,
      outCi95: m.goodputCi95,
      attempts: m.attemptRate,
      attemptsCi95: m.attemptRateCi95,
      rejection: m.rejection,
      rejectionCi95: m.rejectionCi95,
    };
    endToEnd[c.name] = {
      rejection: m.rejection,
      rejectionCi95: m.rejectionCi95,
      completion: 1 - m.rejection,
      completionCi95: m.rejectionCi95,
      attemptsPerRequest: m.attemptsPerRequest,
      attemptsPerRequestCi95: m.attemptsPerRequestCi95,
      latencyMean: m.latencyMean,
      latencyMeanCi95: m.latencyMeanCi95,
      latencyP50: m.latencyP50,
      latencyP50Ci95: m.latencyP50Ci95,
      latencyP99: m.latencyP99,
      latencyP99Ci95: m.latencyP99Ci95,
    };
  }
  return {
    strategy: 'difftry' as const,
    classes: model.classes.map((c) => ({ name: c.name, retries: c.retryLimit })),
    services: {
      [serviceName]: {
        s: result.s,
        sCi95: result.sCi95,
        rho: result.rho,
        rhoCi95: result.rhoCi95,
        meanInSystem: result.meanInSystem,
        meanInSystemCi95: result.meanInSystemCi95,
        classes,
      },
    },
    endToEnd,
    replications: result.replications,
    duration: result.duration,
    warmup: result.warmup,
    seed,
    events: result.events,
  };
}

type SimulationDocument = ReturnType<typeof simulationDocument>;

function formatSimulation(model: NetworkModel, doc: SimulationDocument): string {
  const rows = groupedRows(
    doc.services,
    (service) => service.classes,
    (name, service) => [
      name,
      withCi(service.rho, service.rhoCi95, 3),
      withCi(service.s, service.sCi95),
    ],
    (className, c) => [
      className,
      fixed(c.in ?? Number.NaN, 2),
      withCi(c.attempts ?? Number.NaN, c.attemptsCi95 ?? Number.NaN, 2),
      withCi(c.rejection ?? Number.NaN, c.rejectionCi95 ?? Number.NaN),
      fixed(c.out ?? Number.NaN, 2),
    ],
  );
  const services = formatTable(SERVICE_COLUMNS, rows);
  const endToEnd = formatTable(
    [
      { heading: 'class', alignRight: false },
      { heading: 'retries' },
      { heading: 'rejection' },
      { heading: 'attempts/request' },
      { heading: 'p50 ms' },
      { heading: 'p99 ms' },
    ],
    model.classes.map((c) => {
      const e = doc.endToEnd[c.name] ?? {};
      return [
        c.name,
        String(c.retryLimit),
        withCi(e.rejection ?? Number.NaN, e.rejectionCi95 ?? Number.NaN),
        fixed(e.attemptsPerRequest ?? Number.NaN, 3),
        fixed((e.latencyP50 ?? Number.NaN) * 1000, 1),
        fixed((e.latencyP99 ?? Number.NaN) * 1000, 1),
      ];
    }),
  );
  return `Strategy: ${doc.strategy}\nSimulated ${doc.replications} × ${doc.duration} s (warm-up ${doc.warmup} s, seed ${doc.seed}, ${doc.events} events); ± is the 95 % confidence half-width\n\nServices\n${services}\n\nEnd to end\n${endToEnd}`;
}
