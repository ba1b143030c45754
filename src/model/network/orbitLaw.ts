import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { DEFAULT_BACKOFF } from '../backoff/BackoffDescription.js';
import { meanRetryDelays } from '../backoff/meanRetryDelays.js';
import type { OrbitFailedShare } from '../queue/orbitFailedShare.js';
import { type OrbitClass, type OrbitMode, orbitQueue } from '../queue/orbitQueue.js';
import { completionProbabilities, onwardCompletion } from './completionProbabilities.js';
import type { NetworkModel } from './NetworkModel.js';
import { routingRowsByClass } from './structure.js';
import { successorLists, topologicalOrder } from './topology.js';

/**
 * The law a network is analysed with: `mean-field` (the queue at its stationary law for the mean
 * offered load, docs/model.md "Per-try timeouts"), or `orbit` (the requests waiting to retry and
 * the queue as one Markov chain, docs/model.md "The orbit law"), which keeps the swing of the
 * retry load that the mean field averages away.
 */
export type AnalysisLaw = 'mean-field' | 'orbit';

/** Every {@link AnalysisLaw}, as `--law` takes them. */
export const ANALYSIS_LAWS: readonly AnalysisLaw[] = ['mean-field', 'orbit'];

/** Whether `name` is an {@link AnalysisLaw}. */
export function isAnalysisLaw(name: unknown): name is AnalysisLaw {
  return typeof name === 'string' && (ANALYSIS_LAWS as readonly string[]).includes(name);
}

/** The mean delay of `DEFAULT_BACKOFF`, seconds: the orbit's sojourn when a class gives none. */
const DEFAULT_MEAN_BACKOFFS = meanRetryDelays(DEFAULT_BACKOFF, 1);

/**
 * Why the orbit law cannot analyse this network yet, naming what in it, or undefined when it
 * can: it covers M/M/1/m services without the residual-time correction that stand alone or route
 * requests on (routing mode); a service that calls others is refused. `model: mm1m` and `mixed`
 * are both taken: the orbit law models the M/M/1/m queue itself, and the mixed law is that queue's
 * mean-field reading (it differs only above saturation, where it takes the fluid excess); `fluid`
 * is another queue and is refused.
 */
export function orbitLawRefusal(network: NetworkModel): string | undefined {
  return orbitLawGap(network)?.message;
}

/**
 * What of the network the orbit law does not cover (see {@link orbitLawRefusal}): `what` in a
 * short phrase (`a call graph`, `a queue law other than M/M/1/m`, `the residual-time
 * correction`), `message` the refusal naming the service; undefined where it covers it all.
 */
export function orbitLawGap(
  network: NetworkModel,
): { readonly what: string; readonly message: string } | undefined {
  for (const service of network.services) {
    if ((service.calls ?? []).length > 0 || (service.branches ?? []).length > 0) {
      return {
        what: 'a call graph',
        message: `the orbit law covers stand-alone and routing services so far; ${service.name} calls other services (use --law mean-field)`,
      };
    }
    if (service.model !== 'mm1m' && service.model !== 'mixed') {
      return {
        what: 'a queue law other than M/M/1/m',
        message: `the orbit law is the M/M/1/m queue's; ${service.name} uses the ${service.model} law (set model: mm1m or mixed, or use --law mean-field)`,
      };
    }
    if (service.residualAlphas !== undefined) {
      return {
        what: 'the residual-time correction',
        message: `the orbit law and the residual-time correction cannot be combined; ${service.name} has residual: true`,
      };
    }
  }
  return undefined;
}

/** One service's state under the orbit law, as the report's per-class tables read it. */
export interface OrbitServiceState {
  /** Requests per second arriving per class. */
  readonly in: number[];
  readonly out: number[];
  readonly attempts: number[];
  readonly rejection: number[];
  /** Attempt rejection over every class. */
  readonly s: number;
  /** The service's offered load, attempts over μ. */
  readonly rho: number;
  /** C_i^p: the probability that a class-p request entering here completes its path. */
  readonly completion: number[];
  /** D_i^p: the probability that a class-p request succeeding here completes the rest of it. */
  readonly onward: number[];
  /** The long-run share of time in the service's metastable state this is (1 where it has one). */
  readonly weight: number;
  /**
   * Where the service has two states: the mean time, in seconds, for it to leave this one for the
   * other (see `OrbitMode.escapeTime`); absent where it has one.
   */
  readonly escapeTime?: number;
  /**
   * Per class, how the share of its ending requests that fail swings within this state (see
   * `OrbitMode.failedShares`): what a window of it scatters by.
   */
  readonly failedShares: readonly OrbitFailedShare[];
}

/** The equilibria of a network of stand-alone or routing services under the orbit law. */
export interface OrbitEquilibria {
  /**
   * The lowest metastable state of every service, fed by the others' (`healthy`: the one an
   * idle network stays in), then, when some service has two, the highest of every service fed
   * by the others' highest (`storm`).
   */
  readonly equilibria: readonly {
    readonly kind: 'healthy' | 'storm';
    readonly services: readonly OrbitServiceState[];
  }[];
  /** Whether the routed flows settled within 1e-9 (always, where nothing is routed). */
  readonly converged: boolean;
  /** Passes over the network until the routed flows settled (1 where nothing is routed). */
  readonly iterations: number;
  /** The largest relative change of an arrival rate in the last pass. */
  readonly residual: number;
}

/** The routed flows are settled when no arrival rate moves by more than this, relatively. */
const FLOW_TOLERANCE = 1e-9;
/**
 * Passes over the network at most: a cycle's flows contract by its loop gain each pass (0.18 for
 * the validation's a ⇄ b), so they settle well within this, unless a service's lowest or highest
 * state comes and goes with its inflow; the analysis then says it did not converge.
 */
const MAX_PASSES = 20;

/**
 * Every service of the network under the orbit law (see `orbitQueue`). A service's arrivals are
 * its external ones plus what the services routing to it pass on (λin_i = γ_i + Σ_j λout_j F_ji,
 * λout = λin (1 − R)), each flow taken as Poisson at its mean: the routed flows are iterated to a
 * fixed point (one pass in topological order for a DAG), once with every service in its lowest
 * metastable state, once in its highest. The network must pass {@link orbitLawRefusal}.
 * @throws RangeError naming the reason when it does not.
 */
export function orbitEquilibria(
  network: NetworkModel,
  options: { readonly onService?: (progress: OrbitProgress) => void } = {},
): OrbitEquilibria {
  const refusal = orbitLawRefusal(network);
  if (refusal !== undefined) throw new InvalidArgumentError(refusal);
  const rows = routingRowsByClass(network);
  const routed = network.services.some((service) => service.routes.some((r) => r.p > 0));
  const order =
    topologicalOrder(successorLists(network.services, { routes: true, calls: false })) ??
    network.services.map((_, i) => i);
  // A service met at the same arrivals in both settlings (say, one no route reaches) is solved
  // once.
  const solved = new Map<string, OrbitMode[]>();
  const modesAt = (i: number, arrivals: readonly number[]) => {
    const key = `${i}:${arrivals.join(',')}`;
    let found = solved.get(key);
    if (found === undefined) {
      found = serviceModes(network, i, arrivals);
      solved.set(key, found);
    }
    return found;
  };
  const healthy = settle(network, rows, order, routed, 'lowest', modesAt, options.onService);
  const bistable = healthy.bistable;
  const storm = bistable
    ? settle(network, rows, order, routed, 'highest', modesAt, options.onService)
    : undefined;
  return {
    equilibria: [
      { kind: 'healthy', services: healthy.services },
      ...(storm === undefined ? [] : [{ kind: 'storm' as const, services: storm.services }]),
    ],
    converged: healthy.converged && (storm?.converged ?? true),
    iterations: healthy.iterations + (storm?.iterations ?? 0),
    residual: Math.max(healthy.residual, storm?.residual ?? 0),
  };
}

/** Which service the orbit law is about to solve, for a caller showing progress. */
export interface OrbitProgress {
  /** The flows being settled: every service in its lowest state, or in its highest. */
  readonly state: 'healthy' | 'storm';
  readonly service: string;
  /** Passes of the flows over the services completed so far. */
  readonly passes: number;
}

/** One service under the orbit law at the given arrivals per class. */
function serviceModes(network: NetworkModel, i: number, arrivals: readonly number[]): OrbitMode[] {
  const service = network.services[i];
  if (service === undefined) throw new RangeError(`no service ${i}`);
  const classes = network.classes.map(
    (c, p): OrbitClass => ({
      arrivalRate: arrivals[p] ?? 0,
      retryLimit: service.retryLimits[p] ?? c.retryLimit,
      timeout: service.capacity * (service.timeouts?.[p] ?? 0),
      meanBackoff: c.meanBackoffs ?? DEFAULT_MEAN_BACKOFFS,
    }),
  );
  return orbitQueue({ capacity: service.capacity, queue: service.queue, classes })
    .modes as OrbitMode[];
}

/** A route into a service: from `from`, for class `p`, with probability `share`. */
interface Incoming {
  readonly from: number;
  readonly p: number;
  readonly share: number;
}

/** The routed flows settled with every service in its lowest or highest metastable state. */
function settle(
  network: NetworkModel,
  rows: readonly { to: number; p: number }[][][],
  order: readonly number[],
  routed: boolean,
  which: 'lowest' | 'highest',
  modesAt: (i: number, arrivals: readonly number[]) => OrbitMode[],
  onService: ((progress: OrbitProgress) => void) | undefined,
) {
  const n = network.services.length;
  const external = network.services.map((s) => network.classes.map((_, p) => s.arrivals[p] ?? 0));
  const arrivals = external.map((row) => row.slice());
  const modes: (OrbitMode | undefined)[] = new Array(n);
  const solvedAt: (number[] | undefined)[] = new Array(n);
  // Per service, the routes into it: (sender, class, probability).
  const incoming: Incoming[][] = network.services.map(() => []);
  rows.forEach((classRows, p) => {
    classRows.forEach((row, from) => {
      for (const e of row) (incoming[e.to] as Incoming[]).push({ from, p, share: e.p });
    });
  });
  let bistable = false;
  let iterations = 0;
  let residual = 0;
  for (; iterations < MAX_PASSES; ) {
    iterations++;
    residual = 0;
    for (const i of order) {
      const wanted = (external[i] as number[]).slice();
      for (const { from, p, share } of incoming[i] as Incoming[]) {
        const mode = modes[from];
        if (mode === undefined) continue;
        const out =
          ((arrivals[from] as number[])[p] as number) *
          (1 - (mode.classes[p]?.requestRejection ?? 0));
        wanted[p] = (wanted[p] as number) + out * share;
      }
      wanted.forEach((rate, p) => {
        const before = (arrivals[i] as number[])[p] as number;
        const scale = Math.max(Math.abs(rate), Math.abs(before), 1e-300);
        residual = Math.max(residual, Math.abs(rate - before) / scale);
      });
      arrivals[i] = wanted;
      const last = solvedAt[i];
      if (
        last === undefined ||
        wanted.some(
          (rate, p) =>
            Math.abs(rate - (last[p] as number)) >
            FLOW_TOLERANCE * 1e-3 * Math.max(Math.abs(rate), 1e-300),
        )
      ) {
        onService?.({
          state: which === 'lowest' ? 'healthy' : 'storm',
          service: network.services[i]?.name ?? String(i),
          passes: iterations - 1,
        });
        const found = modesAt(i, wanted);
        if (found.length > 1) bistable = true;
        modes[i] = which === 'lowest' ? found[0] : found[found.length - 1];
        solvedAt[i] = wanted;
      }
    }
    if (!routed || residual <= FLOW_TOLERANCE) break;
  }
  const rejection = modes.map((mode) =>
    network.classes.map((_, p) => mode?.classes[p]?.requestRejection ?? 0),
  );
  const completion = completionProbabilities(
    rows,
    rejection,
    topologicalOrder(successorLists(network.services, { routes: true, calls: false })),
  );
  const onward = onwardCompletion(rows, completion);
  const services = modes.map((mode, i): OrbitServiceState => {
    if (mode === undefined) throw new Error('unreachable: every service solved');
    const inRates = arrivals[i] as number[];
    const attempts = inRates.map((a, p) => a * (mode.classes[p]?.attemptsPerRequest ?? 0));
    const rejected = attempts.reduce(
      (sum, a, p) => sum + a * (mode.classes[p]?.attemptRejection ?? 0),
      0,
    );
    const totalAttempts = attempts.reduce((sum, a) => sum + a, 0);
    const rowRejection = rejection[i] as number[];
    return {
      in: inRates,
      out: inRates.map((a, p) => a * (1 - (rowRejection[p] as number))),
      attempts,
      rejection: rowRejection,
      s: totalAttempts > 0 ? rejected / totalAttempts : 0,
      rho: mode.offeredLoad,
      completion: completion[i] as number[],
      onward: onward[i] as number[],
      weight: mode.weight,
      failedShares: mode.failedShares,
      ...(mode.escapeTime === undefined ? {} : { escapeTime: mode.escapeTime }),
    };
  });
  return {
    services,
    bistable,
    iterations,
    residual,
    converged: !routed || residual <= FLOW_TOLERANCE,
  };
}
