import type { OpenLoopReport, OpenLoopWindow } from '../load/openLoopPoisson.js';
import type { CallProgram } from '../network/callProgram.js';
import type { ExternalClientPlan } from '../network/startIngress.js';

/** One stream of external requests: an entry service, a class, a rate, its random streams. */
export interface EdgeStreamPlan {
  readonly entry: string;
  readonly className: string;
  /** Requests per second (on the testbed's time scale). */
  readonly rate: number;
  readonly seed: number;
  /** Substream of the send gaps. */
  readonly stream: number;
  /** Substream of the endpoint draws. */
  readonly endpointStream: number;
  /** The entry's program, to draw each request's endpoint (branch) with its probability. */
  readonly program?: CallProgram;
}

/**
 * The edge of a testbed run as plain data (it may run in a worker thread): the external client
 * (the entry services, called directly with the analysis's external retries) and the open-loop
 * streams it offers.
 */
export interface EdgePlan {
  readonly client: ExternalClientPlan;
  readonly streams: readonly EdgeStreamPlan[];
  /** Seconds before the window opens. */
  readonly warmupS: number;
  /** Seconds of the window: the requests sent in it are the ones measured. */
  readonly durationS: number;
  /**
   * Longest drain after the window, seconds: the load goes on while the window's requests finish,
   * and ends for every stream together once all of them have (see `openLoopPoisson`'s `graceS`).
   */
  readonly graceS: number;
  /** Batches the window is cut into for batch-means confidence intervals. */
  readonly batches: number;
}

/** A stream's report in transferable form: the latency histogram encoded (HdrHistogram base64). */
export interface EdgeStreamReport extends Omit<OpenLoopReport, 'window'> {
  readonly window: Omit<OpenLoopWindow, 'histogram'> & { readonly histogramBase64: string };
}

/** Callbacks of an edge run. */
export interface EdgeHooks {
  /** Stops the load; the reports cover what was sent. */
  readonly signal?: AbortSignal;
  /** Called once, when the first send is due (time 0 of the run). */
  readonly onStarted?: () => void;
  /** The elapsed fraction of the run. */
  readonly onProgress?: (fraction: number) => void;
}
