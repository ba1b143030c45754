import type { NetworkOverrides } from '../config/networkOverrides.js';
import type { NetworkSpec } from '../config/schema.js';
import { toNetworkModel } from '../config/toNetworkModel.js';
import { toNetworkSimulationOptions } from '../experiments/simulation/networkSimulationOptions.js';
import type { BackoffDescription } from '../model/backoff/BackoffDescription.js';
import { describeBackoff } from '../model/backoff/describeBackoff.js';
import { analyzeNetwork } from '../model/network/analyzeNetwork.js';
import type { NetworkModel } from '../model/network/NetworkModel.js';
import type { NetworkReport } from '../model/network/NetworkReport.js';
import { uniformLimits } from '../model/network/uniformLimits.js';
import type { TimeoutStrategyDescription } from '../policy/timeouts/createTimeoutStrategy.js';
import type { ReplicatedNetworkResult } from '../sim/network/replicateNetwork.js';
import { type NetworkStrategy, usesUniformLimits } from '../sim/network/strategy.js';
import type { SimulateOptions } from './SimulateOptions.js';
import { describeTimeoutSetting, type TimeoutSetting } from './simulationConfig.js';

/**
 * What `difftry simulate` does with a network, shared by a single run and a sweep: the
 * simulator's options, the analysis's prediction beside them, and the JSON document and text
 * header of a run.
 */

/** The network simulator's options for a run of `difftry simulate`. */
export function simulationOptions(
  network: NetworkSpec,
  timeouts: TimeoutStrategyDescription | undefined,
  options: SimulateOptions,
) {
  return {
    ...toNetworkSimulationOptions(network, options, timeouts),
    strategy: options.strategy ?? 'difftry',
  };
}

/**
 * The analysis's prediction for a simulated run, with what it leaves out: the report for the
 * strategy's retry limits (`difftry`: each class its own; `uniform`: every class the highest
 * class's, as the simulator gives them), or none for the budget strategies, which it does not
 * model.
 */
export interface Prediction {
  readonly report: NetworkReport | null;
  readonly notes: readonly string[];
}

/**
 * The analysis's prediction for a run of the network simulator: the report for the strategy's
 * retry limits (`difftry`: each class its own; `uniform`: every class the highest class's, as
 * the simulator gives them) and the run's fixed per-try timeouts (`--timeout MS`, else the
 * file's), with notes on what it leaves out: the budget strategies (no prediction), the adaptive
 * timeout strategies (predicted without timeouts), or a network the analysis refuses (its reason).
 */
export function predict(
  network: NetworkSpec,
  overrides: Pick<NetworkOverrides, 'retries'>,
  strategy: NetworkStrategy,
  setting: TimeoutSetting,
): Prediction {
  if (strategy !== 'difftry' && strategy !== 'uniform') {
    return {
      report: null,
      notes: [`the analysis models retry limits, not the budgets of ${strategy}: no prediction`],
    };
  }
  const notes: string[] = [];
  let spec = network;
  let timeoutMs: number | undefined;
  if (setting !== null && 'strategy' in setting) {
    if (setting.strategy.kind === 'fixed') timeoutMs = setting.strategy.timeoutMs;
    else {
      spec = withoutTimeouts(network);
      notes.push(
        `the analysis models fixed per-try timeouts, not the adaptive ${setting.strategy.kind} strategy: it predicts the run without timeouts`,
      );
    }
  }
  const model = toNetworkModel(spec, { ...overrides, timeoutMs });
  const analysed = strategy === 'uniform' ? uniformLimits(model) : model;
  try {
    // The law `analyze` takes by default, so the two commands predict alike.
    return { report: analyzeNetwork(analysed, { law: 'auto' }), notes };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return { report: null, notes: [...notes, `no prediction: ${error.message}`] };
  }
}

/** The file with no per-try timeout anywhere (no class `timeoutMs`, no service `timeouts`). */
function withoutTimeouts(network: NetworkSpec): NetworkSpec {
  return {
    ...network,
    classes: network.classes.map(({ timeoutMs: _, ...c }) => c),
    services: network.services.map(({ timeouts: _, ...service }) => service),
  };
}

/** The `simulate --json` document of a network: docs/design.md's shape, each figure with its `Ci95`. */
export function networkSimulationDocument(
  model: NetworkModel,
  result: ReplicatedNetworkResult,
  seed: number,
  classBackoffs: readonly BackoffDescription[],
  timeouts: TimeoutSetting = null,
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
        timeouts: c.timeouts,
        timeoutsCi95: c.timeoutsCi95,
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
  const backoffs: Record<string, BackoffDescription> = {};
  model.classes.forEach((c, p) => {
    const backoff = classBackoffs[p];
    if (backoff !== undefined) backoffs[c.name] = backoff;
  });
  return {
    strategy: result.strategy,
    // The limits in force: every strategy but DiffTry gives every class the highest class's.
    classes: (usesUniformLimits(result.strategy) ? uniformLimits(model) : model).classes.map(
      (c) => ({ name: c.name, retries: c.retryLimit }),
    ),
    services,
    endToEnd,
    load: { ...result.load },
    replications: result.replications,
    duration: result.duration,
    warmup: result.warmup,
    seed,
    events: result.events,
    backoffs,
    timeouts,
  };
}

export type Figures = Record<string, number>;
export type NetworkSimulationDocument = ReturnType<typeof networkSimulationDocument>;

/** The text header of a network run: strategy, run length, backoffs and timeouts. */
export function networkHeader(
  doc: Pick<
    NetworkSimulationDocument,
    'strategy' | 'replications' | 'duration' | 'warmup' | 'seed' | 'backoffs' | 'timeouts'
  > & { readonly events?: number },
): string {
  const events = doc.events === undefined ? '' : `, ${doc.events} events`;
  const lines = [
    `Strategy: ${doc.strategy}`,
    `Simulated ${doc.replications} × ${doc.duration} s (warm-up ${doc.warmup} s, seed ${doc.seed}${events}); ± is the 95 % confidence half-width`,
    `Backoff: ${describeBackoffs(doc.backoffs)}`,
  ];
  const timeouts = describeTimeoutSetting(doc.timeouts);
  if (timeouts !== undefined) lines.push(`Timeouts: ${timeouts}`);
  return lines.join('\n');
}

/** Each class's backoff in words, or one for all when they share it. */
function describeBackoffs(backoffs: Readonly<Record<string, BackoffDescription>>): string {
  const entries = Object.entries(backoffs).map(([name, b]) => [name, describeBackoff(b)]);
  const texts = new Set(entries.map(([, text]) => text));
  if (texts.size === 1) return `${entries[0]?.[1]} (every class)`;
  return entries.map(([name, text]) => `${name} ${text}`).join('; ');
}
