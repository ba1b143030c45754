import type { OrbitClass } from './OrbitClass.js';
import type { OrbitFailedShare } from './orbitFailedShare.js';

/** What the orbit law (`orbitQueue`, docs/model.md "The orbit law") takes and gives. */

/** One service as `orbitQueue` sees it. */
export interface OrbitService {
  /** μ, completions per second. */
  readonly capacity: number;
  /** m, the most attempts in the system. */
  readonly queue: number;
  readonly classes: readonly OrbitClass[];
  /**
   * How the orbit and the queue are solved: `chain` as one Markov chain (exact but for the two
   * approximations above; work ∝ levels · (m + 1)³); `dispersed` with the queue at its stationary
   * law at each level's attempt rate and the orbit a birth–death process matched to the drift
   * and the variance of its net count under that queue (a diffusion over the orbit, work ∝
   * levels · m; right where the backoff is long against the queue's relaxation, and within
   * about 0.01–0.06 below the chain's R elsewhere); `auto` (default) the chain where its work
   * stays under `CHAIN_WORK_BUDGET` (orbitQueue.ts), else dispersed.
   * @default 'auto'
   */
  readonly solver?: 'chain' | 'dispersed' | 'auto';
  /**
   * What the requests in the orbit are taken to be: `mean`, the orbit's mean mix of classes and
   * retries used, the same at every level (default); `level`, at each level n the mix of requests
   * that met level n's queue all along (each class's failure probability there, fresh and retry
   * alike), so a crowded orbit holds requests deeper in their retries — the correlation between
   * how congested the service is and how many tries its waiting requests have used, which the
   * mean mix averages away (docs/model.md, "The orbit law": nearer the simulator with
   * exponentially distributed timeouts, not with fixed ones).
   * @default 'mean'
   */
  readonly mix?: 'mean' | 'level';
}

/** What the orbit law says of one class. */
export interface OrbitClassFigures {
  /** R_p: the share of requests that fail all their attempts. */
  readonly requestRejection: number;
  /** The share of the class's attempts rejected on arrival. */
  readonly attemptRejection: number;
  /** τ_p: the share of its accepted attempts that time out. */
  readonly timeoutShare: number;
  /** Attempts per request. */
  readonly attemptsPerRequest: number;
}

/** The orbit law's figures of a service. */
export interface OrbitFigures {
  readonly classes: readonly OrbitClassFigures[];
  /** ρ: every attempt offered per second, over μ. */
  readonly offeredLoad: number;
  /** Mean requests in the orbit (waiting to retry). */
  readonly meanOrbit: number;
  /** The highest orbit level of the chain solved. */
  readonly levels: number;
  /** Stationary probability of the top tenth of the levels (how much the truncation may cut). */
  readonly topMass: number;
  /** Fixed-point iterations of the orbit's mix. */
  readonly iterations: number;
  /**
   * The chain's metastable states, lowest orbit first: one when the orbit's stationary law has
   * one peak; two — a healthy state and a retry storm — when it has two separated by a trough
   * holding under a tenth of the lower peak. Each is the chain confined to its side of the
   * trough with the mix of its own requests (the `chain` solver; the dispersed law conditions
   * its one law on each side), the state a service stays in for long once there.
   */
  readonly modes: readonly OrbitMode[];
  /** The stationary probability of each orbit level n = 0 … `levels`. */
  readonly orbitLaw: readonly number[];
}

/** One metastable state of the orbit law. */
export interface OrbitMode {
  readonly classes: readonly OrbitClassFigures[];
  readonly offeredLoad: number;
  readonly meanOrbit: number;
  /**
   * The share of time the service spends in it in the long run: where two states both have
   * escape times, each one's mean sojourn over their sum (the two alternate); else its
   * stationary probability.
   */
  readonly weight: number;
  /** The orbit levels it covers, [from, to]. */
  readonly levels: readonly [number, number];
  /**
   * Per class, how the share of its ending requests that fail swings within the state as the
   * orbit moves (`orbitFailedShare`): what a window of it scatters by
   * (`windowAverageVariance`).
   */
  readonly failedShares: readonly OrbitFailedShare[];
  /**
   * Where the law has two states (or one the chain cut below a storm confines): the mean time,
   * in seconds, for the service started in this state's law to first reach the level that
   * divides it from the other (up for the lower state, to the other's peak; down for the upper):
   * how long it lasts. Read on the chain driven by the state's own mix, or on the dispersed law's
   * birth–death walk.
   */
  readonly escapeTime?: number;
}
