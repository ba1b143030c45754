/**
 * Runs the network validation's cases: each analysed (`analyzeNetwork`, also with φ = mm1m and,
 * for short delays, the residual-time correction) and simulated (`replicateNetwork`), one row per
 * case and class. CPU only: no timer, no file.
 */
import { analyzeNetwork } from '../../model/network/analyzeNetwork.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import type { NetworkReport } from '../../model/network/NetworkReport.js';
import { nominalLoads } from '../../model/network/nominalLoads.js';
import type { ModelName } from '../../model/phi/Phi.js';
import { replicateNetwork } from '../../sim/network/replicateNetwork.js';
import { type Case, DURATION, REPLICATIONS, SEED, WARMUP } from './networkValidationCases.js';

/** One class of one case: the analysis beside the simulation. */
export interface Row {
  readonly c: Case;
  readonly mode: 'routing' | 'calls';
  readonly cls: string;
  readonly k: number;
  readonly pred: number;
  /** The analysis with φ = mm1m at every service. */
  readonly predMm1m: number;
  /** The analysis with the residual-time correction (short-delay cases), else NaN. */
  readonly predResidual: number;
  readonly sim: number;
  readonly simCi95: number;
  readonly error: number;
  /** The analysis's ρ (attempts / μ) at the bottleneck. */
  readonly rhoBottleneck: number;
  readonly mMin: number;
  readonly services: number;
  readonly overloaded: number;
}

/** Where a run reports as it goes; both optional. */
export interface NetworkValidationHooks {
  /** After each case, with the largest error of its classes. */
  readonly onCase?: (progress: {
    readonly index: number;
    readonly count: number;
    readonly case: Case;
    readonly largestError: number;
  }) => void;
  /** When the analysis does not converge on a case (the run goes on). */
  readonly onWarning?: (message: string) => void;
}

/** What a run produced: its rows and how many simulation events it took. */
export interface NetworkValidationRun {
  readonly rows: readonly Row[];
  readonly events: number;
}

const withModel = (network: NetworkModel, model: ModelName): NetworkModel => ({
  ...network,
  services: network.services.map((s) => ({ ...s, model })),
});

function analyse(
  network: NetworkModel,
  id: string,
  onWarning: ((message: string) => void) | undefined,
): NetworkReport {
  const report = analyzeNetwork(network);
  if (!report.converged) onWarning?.(`analysis did not converge (${id})`);
  return report;
}

/** Options of {@link runNetworkValidation}: its hooks, and which cases it runs. */
export interface NetworkValidationOptions extends NetworkValidationHooks {
  /**
   * Only the cases [first, end) (a shard's part, `--shard I/N`); each on the substreams it has
   * in the whole run, so its rows are the whole run's. Default: every case.
   */
  readonly range?: { readonly first: number; readonly end: number };
}

/** Runs every case, in order (each takes the next `REPLICATIONS` substreams of `SEED`). */
export function runNetworkValidation(
  cases: readonly Case[],
  options: Readonly<NetworkValidationOptions> = {},
): NetworkValidationRun {
  const rows: Row[] = [];
  const { first, end } = options.range ?? { first: 0, end: cases.length };
  // Every case runs REPLICATIONS replications: the cases before the range took that many each.
  let stream = first * REPLICATIONS;
  let events = 0;
  cases.slice(first, end).forEach((c, place) => {
    const index = first + place;
    const predicted = analyse(c.network, c.id, options.onWarning);
    const mm1m = analyse(withModel(c.network, 'mm1m'), c.id, options.onWarning);
    const residual =
      c.residualNetwork === undefined
        ? undefined
        : analyse(c.residualNetwork, c.id, options.onWarning);
    const simulated = replicateNetwork(
      c.network,
      { duration: DURATION, warmup: WARMUP, seed: SEED, stream, backoff: c.backoff },
      REPLICATIONS,
    );
    stream += REPLICATIONS;
    events += simulated.events;
    const bottleneck = predicted.services[c.bottleneck];
    const overloaded = nominalLoads(c.network).filter((rho) => rho > 1).length;
    for (const [p, cls] of c.network.classes.entries()) {
      const pred = predicted.endToEnd[cls.name]?.rejection ?? Number.NaN;
      const sim = simulated.endToEnd[cls.name]?.rejection ?? Number.NaN;
      rows.push({
        c,
        mode: predicted.mode,
        cls: cls.name,
        k: c.network.services[0]?.retryLimits[p] ?? cls.retryLimit,
        pred,
        predMm1m: mm1m.endToEnd[cls.name]?.rejection ?? Number.NaN,
        predResidual: residual?.endToEnd[cls.name]?.rejection ?? Number.NaN,
        sim,
        simCi95: simulated.endToEnd[cls.name]?.rejectionCi95 ?? Number.NaN,
        error: Math.abs(pred - sim),
        rhoBottleneck: bottleneck?.rho ?? Number.NaN,
        mMin: Math.min(...c.network.services.map((s) => s.queue)),
        services: c.network.services.length,
        overloaded,
      });
    }
    const worst = Math.max(...rows.filter((r) => r.c === c).map((r) => r.error));
    options.onCase?.({ index, count: cases.length, case: c, largestError: worst });
  });
  return { rows, events };
}
