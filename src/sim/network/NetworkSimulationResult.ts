import type { NetworkLoad } from '../../model/network/NetworkReport.js';
import type { SimulatedWindow } from './SimulatedWindow.js';
import type { NetworkStrategy } from './strategy.js';

/**
 * The result of {@link simulateNetwork}, in the shape of the analysis's `NetworkReport` so the two
 * compare field by field. Rates are per second of the measured window; rejections are fractions
 * of the requests measured (those whose external arrival fell in the window).
 */
export interface NetworkSimulationResult {
  /** `routing` or `calls` (call graph with nested retries), as in the analysis's report. */
  readonly mode: 'routing' | 'calls';
  readonly classes: readonly { readonly name: string; readonly retries: number }[];
  readonly services: Readonly<Record<string, SimulatedService>>;
  readonly endToEnd: Readonly<Record<string, SimulatedEndToEnd>>;
  /** Load on the network, as the analysis's report's `load`. */
  readonly load: SimulatedLoad;
  /** The retry strategy simulated (`difftry` unless the options said otherwise). */
  readonly strategy: NetworkStrategy;
  /** Measured window, virtual seconds. */
  readonly duration: number;
  /** Virtual seconds simulated before the window. */
  readonly warmup: number;
  /** Events processed by the run. */
  readonly events: number;
  /** Virtual time when the last measured request resolved, seconds. */
  readonly endTime: number;
  /**
   * The run window by window, when `windowSeconds` was given (absent otherwise): [0, S), [S, 2S),
   * … up to the end of the measured window, warm-up included.
   */
  readonly windows?: readonly SimulatedWindow[];
}

/** One service, measured. */
export interface SimulatedService {
  /** Attempt-rejection fraction over every class. */
  readonly s: number;
  /** Attempts per second over capacity. */
  readonly rho: number;
  readonly classes: Readonly<Record<string, SimulatedServiceClass>>;
}

/** One class at one service, measured. */
export interface SimulatedServiceClass {
  /** Requests arriving per second (external plus routed in), before retries. */
  readonly in: number;
  /** Requests per second that got through this hop. */
  readonly out: number;
  /** Attempts per second. */
  readonly attempts: number;
  /** Attempts per second its clients abandoned at their per-try timeout (0 without timeouts). */
  readonly timeouts: number;
  /** Fraction of the requests arriving here that failed here after this hop's retries. */
  readonly rejection: number;
}

/** End-to-end figures of a class: counts of measured requests and their fates. */
export interface SimulatedEndToEnd {
  readonly originals: number;
  readonly completed: number;
  readonly rejected: number;
  /** rejected / originals. */
  readonly rejection: number;
  /** completed / originals. */
  readonly completion: number;
  /** Attempts of this class at every service per measured external request of the class. */
  readonly attemptsPerRequest: number;
  /**
   * End-to-end latency of the completed requests (external arrival to completion), seconds: mean
   * (exact) and percentiles from an HdrHistogram of whole µs (3 significant digits). NaN when none
   * completed.
   */
  readonly latencyMean: number;
  readonly latencyP50: number;
  readonly latencyP99: number;
}

/** Load on the network over the measured requests, every class together: the analysis's measures. */
export type SimulatedLoad = NetworkLoad;
