import type { BackoffDescription } from '../../model/backoff/BackoffDescription.js';
import type { ServiceTimeDistribution } from '../../model/distributions/ServiceTimeDistribution.js';
import type { LoadSchedule } from '../../model/network/LoadSchedule.js';
import type { RandomSource } from '../../model/random.js';
import type { Clock } from '../../policy/Clock.js';
import type { RetryEventSink } from '../../policy/retry/RetryEvent.js';
import type { RetryPolicy, RetryPolicyOptions } from '../../policy/retry/RetryPolicy.js';
import type { TimeoutStrategy } from '../../policy/timeouts/TimeoutStrategy.js';
import type { SimulatedWindow } from './SimulatedWindow.js';
import type { NetworkStrategy } from './strategy.js';

/** What {@link SimulateNetworkOptions.retryPolicy} receives to build a service's policy. */
export type NetworkPolicyOptions = RetryPolicyOptions & {
  readonly clock: Clock;
  readonly random: RandomSource;
};

/** Options of {@link simulateNetwork}. */
export interface SimulateNetworkOptions {
  /** Length of the measured window, virtual seconds; > 0. */
  readonly duration: number;
  /**
   * Virtual seconds simulated before the window; default 10 % of `duration`.
   * @default 10 % of `duration`
   */
  readonly warmup?: number;
  /** Seed of the random source (a safe integer). */
  readonly seed: number;
  /**
   * Substream of the seed; default 0.
   * @default 0
   */
  readonly stream?: number;
  /**
   * Retry delay of every hop's client; default `DEFAULT_BACKOFF` (random, mean 100 ms).
   * @default DEFAULT_BACKOFF (random, mean 100 ms)
   */
  readonly backoff?: BackoffDescription;
  /**
   * Retry delay per class (index as in `network.classes`); a class without one uses `backoff`.
   * A network file's per-class `backoff:` entries arrive here.
   * @default `backoff` for every class
   */
  readonly classBackoffs?: readonly (BackoffDescription | undefined)[];
  /**
   * The per-try timeout strategy of the clients calling service `serviceIndex` (one instance per
   * hop, shared by that hop's concurrent requests), or undefined for none; default: the class's
   * `timeoutMs` in the policy, if any, as a fixed timeout. An attempt still running when its
   * timeout expires is abandoned by its client (outcome `timeout`, which the policy may retry);
   * the server goes on with the abandoned work, which holds its place in the queue.
   * @default the class's `timeoutMs` in the policy, if any, as a fixed timeout
   */
  readonly timeouts?: (serviceIndex: number) => TimeoutStrategy | undefined;
  /**
   * Where the retry events of the clients calling service `serviceIndex` go, or undefined for
   * nowhere (the default): each failed attempt, retry, give-up and success, as `retry()` reports
   * them (times on the virtual clock). A trace of every decision, for tests and close study; a
   * sink costs time on every attempt.
   * @default none (events go nowhere)
   */
  readonly retryEvents?: (serviceIndex: number) => RetryEventSink | undefined;
  /** Called now and then with the fraction of the run's virtual time done (0 to 1). */
  readonly onProgress?: (fraction: number) => void;
  /**
   * Service-time law per service (seconds); default exponential with mean 1/capacity.
   * @default exponential with mean 1/capacity
   */
  readonly serviceTimes?: readonly ServiceTimeDistribution[];
  /**
   * Builds the retry policy of the clients calling service `serviceIndex`; default
   * `retryPolicy`. The options it receives carry the service's per-class retry limits, the
   * backoff, the simulation's virtual clock (ms) and the run's seeded random source. A test can
   * wrap the policy to watch its decisions; the simulator never decides a retry itself.
   * @default retryPolicy
   */
  readonly retryPolicy?: (serviceIndex: number, options: NetworkPolicyOptions) => RetryPolicy;
  /**
   * How clients retry (see {@link NetworkStrategy}); default `difftry`. Every strategy but
   * `difftry` gives each class the highest class's limit at each hop; the budget strategies add a
   * fresh budget per hop in the options passed to `retryPolicy` (`budget`). The simulator reports
   * each hop's requests and attempts to its policy's `budget` as the runtime's executor does.
   * @default 'difftry'
   */
  readonly strategy?: NetworkStrategy;
  /**
   * Changes of the network's arrival rates and capacities over virtual time (multipliers of the
   * network's own, steps and ramps; see {@link LoadSchedule}); default none. Arrivals follow a
   * non-homogeneous Poisson process of intensity γ·m(t), drawn by exact inversion of its
   * cumulative intensity (one uniform per arrival, as without a schedule). A capacity multiplier
   * is the server's speed: the work of a request is its service time at the network's capacity,
   * and work in progress goes on at the new speed from the moment of a change (for exponential
   * service times the same as drawing the rest at the new rate). Times count from the start of
   * the run, warm-up included.
   * @default none
   */
  readonly schedule?: LoadSchedule;
  /**
   * Length of the measurement windows, virtual seconds (> 0): the result then has `windows`, the
   * events of [0, S), [S, 2S), … up to the end of the measured window, counted as they happen
   * (see {@link SimulatedWindow}). Default none (and no `windows`).
   * @default none (no `windows`)
   */
  readonly windowSeconds?: number;
}
