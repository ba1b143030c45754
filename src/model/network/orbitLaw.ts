import { DEFAULT_BACKOFF } from '../backoff/BackoffDescription.js';
import { meanRetryDelays } from '../backoff/meanRetryDelays.js';
import { type OrbitClass, type OrbitMode, orbitQueue } from '../queue/orbitQueue.js';
import type { NetworkModel } from './NetworkModel.js';

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
 * can: it covers services that stand alone (no routes, no calls) with the M/M/1/m law
 * (`model: mm1m`) and no residual-time correction.
 */
export function orbitLawRefusal(network: NetworkModel): string | undefined {
  for (const service of network.services) {
    if (service.routes.some((route) => route.p > 0)) {
      return `the orbit law covers services that stand alone so far; ${service.name} routes requests on (use --law mean-field)`;
    }
    if ((service.calls ?? []).length > 0 || (service.branches ?? []).length > 0) {
      return `the orbit law covers services that stand alone so far; ${service.name} calls other services (use --law mean-field)`;
    }
    if (service.model !== 'mm1m') {
      return `the orbit law is the M/M/1/m queue's; ${service.name} uses the ${service.model} law (set model: mm1m, or use --law mean-field)`;
    }
    if (service.residualAlphas !== undefined) {
      return `the orbit law and the residual-time correction cannot be combined; ${service.name} has residual: true`;
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
}

/** The equilibria of a network of stand-alone services under the orbit law. */
export interface OrbitEquilibria {
  /**
   * The lowest metastable state of every service (`healthy`: the one an idle network stays
   * in), then, when some service has two, the highest of every service (`storm`).
   */
  readonly equilibria: readonly {
    readonly kind: 'healthy' | 'storm';
    readonly services: readonly OrbitServiceState[];
  }[];
}

/**
 * Every service of the network under the orbit law (see `orbitQueue`), each on its own: the
 * network must pass {@link orbitLawRefusal}.
 * @throws RangeError naming the reason when it does not.
 */
export function orbitEquilibria(network: NetworkModel): OrbitEquilibria {
  const refusal = orbitLawRefusal(network);
  if (refusal !== undefined) throw new RangeError(refusal);
  const perService = network.services.map((service) => {
    const classes = network.classes.map(
      (c, p): OrbitClass => ({
        arrivalRate: service.arrivals[p] ?? 0,
        retryLimit: service.retryLimits[p] ?? c.retryLimit,
        timeout: service.capacity * (service.timeouts?.[p] ?? 0),
        meanBackoff: c.meanBackoffs ?? DEFAULT_MEAN_BACKOFFS,
      }),
    );
    const { modes } = orbitQueue({ capacity: service.capacity, queue: service.queue, classes });
    return { service, modes };
  });
  const stateOf = (i: number, mode: OrbitMode): OrbitServiceState => {
    const service = network.services[i];
    if (service === undefined) throw new RangeError(`no service ${i}`);
    const arrivals = network.classes.map((_, p) => service.arrivals[p] ?? 0);
    const attempts = arrivals.map((a, p) => a * (mode.classes[p]?.attemptsPerRequest ?? 0));
    const rejection = mode.classes.map((c) => c.requestRejection);
    const totalAttempts = attempts.reduce((sum, a) => sum + a, 0);
    const rejected = attempts.reduce(
      (sum, a, p) => sum + a * (mode.classes[p]?.attemptRejection ?? 0),
      0,
    );
    return {
      in: arrivals,
      out: arrivals.map((a, p) => a * (1 - (rejection[p] ?? 0))),
      attempts,
      rejection,
      s: totalAttempts > 0 ? rejected / totalAttempts : 0,
      rho: mode.offeredLoad,
    };
  };
  const healthy = perService.map(({ modes }, i) => stateOf(i, modes[0] as OrbitMode));
  const bistable = perService.some(({ modes }) => modes.length > 1);
  return {
    equilibria: [
      { kind: 'healthy', services: healthy },
      ...(bistable
        ? [
            {
              kind: 'storm' as const,
              services: perService.map(({ modes }, i) =>
                stateOf(i, modes[modes.length - 1] as OrbitMode),
              ),
            },
          ]
        : []),
    ],
  };
}
