import type { Histogram } from 'hdr-histogram-js';
import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import type { BackoffDescription } from '../model/backoff/BackoffDescription.js';
import { drawRetryDelay, MAX_DELAY_MS } from '../model/backoff/retryDelay.js';
import type { ServiceTimeDistribution } from '../model/distributions/ServiceTimeDistribution.js';
import { type RandomSource, seededRandom } from '../model/random.js';
import {
  createLatencyHistogram,
  LATENCY_PERCENTILES,
  latencyPercentileSeconds,
  MICROSECONDS_PER_SECOND,
} from '../stats/latencyHistogram.js';
import { EventQueue } from './engine/EventQueue.js';
import { grown } from './engine/grown.js';
import { IntFifo } from './engine/IntFifo.js';
import { LatencyRecorder } from './engine/LatencyRecorder.js';
import { DEFAULT_PROGRESS_EVERY_EVENTS } from './engine/Simulation.js';
import {
  type ResolvedSingleServiceConfig,
  resolveSingleServiceConfig,
  type SingleServiceConfig,
} from './SingleServiceConfig.js';
import type { ClassMeasurement, SingleServiceResult } from './SingleServiceResult.js';

/** Options of {@link simulateSingleService}. */
export interface SimulateOptions {
  /**
   * Called about every 2^16 events with the fraction (0..1) of the virtual time of warm-up and
   * window simulated so far (it stays at 1 while the last measured requests finish), and once
   * with 1 at the end.
   */
  readonly onProgress?: (fraction: number) => void;
}

/** A run's result and the latency histograms behind its percentiles (one per class). */
export interface SingleServiceRunOutput {
  readonly result: SingleServiceResult;
  readonly histograms: readonly Histogram[];
}

/**
 * Simulates one FCFS service with retrying classes of requests, in virtual time.
 *
 * Original arrivals of class p form a Poisson stream of rate λ_p from time 0 on an empty system.
 * An attempt that finds m requests present is rejected; the client waits the backoff delay and
 * retries, at most k_p times, after which the request is finally rejected. Only requests whose
 * original arrival falls in [warmup, warmup + duration) are measured; arrivals go on after the
 * window until every measured request has finished, so its tail meets a loaded system, not an
 * emptying one. Time averages (L) cover the window only.
 *
 * Same configuration (seed and stream included) ⇒ bit-identical result.
 *
 * @example
 * ```ts
 * const result = simulateSingleService({
 *   capacity: 143,
 *   queue: 50,
 *   classes: [
 *     { name: 'high', arrivalRate: 50, retryLimit: 5 },
 *     { name: 'low', arrivalRate: 250, retryLimit: 1 },
 *   ],
 *   duration: 60,
 *   seed: 1,
 * });
 * result.classes.low?.rejection; // ≈ 0.59 (s ≈ 0.77, so s² for k = 1)
 * ```
 */
export function simulateSingleService(
  config: Readonly<SingleServiceConfig>,
  options: Readonly<SimulateOptions> = {},
): SingleServiceResult {
  return runSingleService(resolveSingleServiceConfig(config), options).result;
}

/**
 * {@link simulateSingleService} on a checked configuration, also returning the latency
 * histograms (which {@link replicateSingleService} pools).
 */
export function runSingleService(
  config: ResolvedSingleServiceConfig,
  options: Readonly<SimulateOptions> = {},
): SingleServiceRunOutput {
  const run = new SingleServiceRun(config, seededRandom(config.seed, config.stream), options);
  run.run();
  options.onProgress?.(1);
  return run.output();
}

/** Request flags. */
const MEASURED = 1;
const ACCEPTED_IN_WINDOW = 2;

// Event kinds; the payload is a class index, a request id, the id in service, nothing.
const ARRIVAL = 0;
const RETRY = 1;
const DEPARTURE = 2;
const WINDOW_END = 3;

/**
 * The state of one run. Requests live in a struct of typed arrays indexed by a request id that
 * a free list recycles, so the hot path allocates nothing.
 *
 * The run is its own discrete-event engine (the `Simulation` loop, specialised): a virtual
 * clock, an {@link EventQueue} and a `switch` on the event kind, so every handler is a direct,
 * inlinable call rather than a closure looked up per event.
 */
class SingleServiceRun {
  /** Virtual time, seconds. */
  private now = 0;
  /** Events processed. */
  private events = 0;
  private stopped = false;
  private readonly queue = new EventQueue();
  private readonly onProgress: ((fraction: number) => void) | undefined;
  private progressCountdown = DEFAULT_PROGRESS_EVERY_EVENTS;
  private readonly config: ResolvedSingleServiceConfig;
  private readonly random: RandomSource;
  private readonly serviceTime: ServiceTimeDistribution;
  private readonly queueLimit: number;
  private readonly warmup: number;
  private readonly windowEnd: number;

  // Per class.
  private readonly meanInterarrival: Float64Array;
  private readonly retryLimit: Int32Array;
  private readonly backoffs: readonly BackoffDescription[];
  /** The mean retry delay (ms) of a class whose backoff is `random`, else NaN. */
  private readonly randomBackoffMeanMs: Float64Array;
  private readonly firstPreviousDelayMs: Float64Array;
  private readonly originals: Float64Array;
  private readonly attempts: Float64Array;
  private readonly attemptRejections: Float64Array;
  private readonly finalRejections: Float64Array;
  private readonly successes: Float64Array;
  private readonly latencySum: Float64Array;
  private readonly latencySumCompensation: Float64Array;
  private readonly histograms: readonly Histogram[];
  private readonly latencies: readonly LatencyRecorder[];

  // Per request (indexed by id).
  private requestClass: Int32Array;
  private originTime: Float64Array;
  private retriesUsed: Int32Array;
  private previousDelayMs: Float64Array;
  private acceptedAt: Float64Array;
  private flags: Uint8Array;
  private freeIds: Int32Array;
  private freeCount = 0;
  private idsInUse = 0;

  // The server: the head of `line` is in service.
  private readonly line = new IntFifo();
  private inSystem = 0;

  // Window bookkeeping.
  private windowEnded = false;
  /** Measured requests not yet finished. */
  private measuredOutstanding = 0;
  /** Jobs accepted in the window and not yet departed. */
  private windowJobsInSystem = 0;
  private lastChange = 0;
  private area = 0;
  private areaCompensation = 0;
  private acceptedInWindow = 0;
  private sojournSum = 0;

  constructor(
    config: ResolvedSingleServiceConfig,
    random: RandomSource,
    options: Readonly<SimulateOptions>,
  ) {
    this.config = config;
    this.random = random;
    this.serviceTime = config.serviceTime;
    this.queueLimit = config.queue;
    this.warmup = config.warmup;
    this.windowEnd = config.warmup + config.duration;
    this.onProgress = options.onProgress;

    const classCount = config.classes.length;
    this.meanInterarrival = new Float64Array(classCount);
    this.retryLimit = new Int32Array(classCount);
    this.firstPreviousDelayMs = new Float64Array(classCount);
    this.backoffs = config.classes.map((entry) => entry.backoff);
    this.randomBackoffMeanMs = new Float64Array(
      config.classes.map((entry) =>
        entry.backoff.kind === 'random' ? entry.backoff.meanMs : Number.NaN,
      ),
    );
    this.originals = new Float64Array(classCount);
    this.attempts = new Float64Array(classCount);
    this.attemptRejections = new Float64Array(classCount);
    this.finalRejections = new Float64Array(classCount);
    this.successes = new Float64Array(classCount);
    this.latencySum = new Float64Array(classCount);
    this.latencySumCompensation = new Float64Array(classCount);
    this.histograms = config.classes.map(() => createLatencyHistogram());
    this.latencies = this.histograms.map((histogram) => new LatencyRecorder(histogram));
    config.classes.forEach((entry, index) => {
      this.meanInterarrival[index] = 1 / entry.arrivalRate;
      this.retryLimit[index] = entry.retryLimit;
      this.firstPreviousDelayMs[index] =
        entry.backoff.kind === 'exponential' ? entry.backoff.baseMs : 0;
    });

    const initialIds = 256;
    this.requestClass = new Int32Array(initialIds);
    this.originTime = new Float64Array(initialIds);
    this.retriesUsed = new Int32Array(initialIds);
    this.previousDelayMs = new Float64Array(initialIds);
    this.acceptedAt = new Float64Array(initialIds);
    this.flags = new Uint8Array(initialIds);
    this.freeIds = new Int32Array(initialIds);

    this.queue.push(this.windowEnd, WINDOW_END, 0);
    // First arrivals after the window-end event, so an arrival drawn exactly at the window end
    // (not measured) follows it.
    for (let index = 0; index < classCount; index++) {
      if (config.classes[index]?.arrivalRate === 0) continue;
      this.queue.push(this.interarrival(index), ARRIVAL, index);
    }
  }

  /**
   * Processes events in time order until none is left or the run has drained (every measured
   * request finished after the window closed), as `Simulation.run` does.
   */
  run(): void {
    const queue = this.queue;
    while (queue.size > 0) {
      const time = queue.peekTime();
      const kind = queue.peekKind();
      const payload = queue.peekPayload();
      queue.pop();
      this.now = time;
      this.events++;
      switch (kind) {
        case ARRIVAL:
          this.arrival(payload);
          break;
        case RETRY:
          this.attempt(payload);
          break;
        case DEPARTURE:
          this.departure();
          break;
        default:
          this.closeWindow();
      }
      if (--this.progressCountdown === 0) this.reportProgress();
      if (this.stopped) break;
    }
  }

  private reportProgress(): void {
    this.progressCountdown = DEFAULT_PROGRESS_EVERY_EVENTS;
    this.onProgress?.(Math.min(1, this.now / this.windowEnd));
  }

  /** Schedules a service completion `serviceTime` seconds (a draw of the service law) from now. */
  private scheduleDeparture(serviceTime: number, id: number): void {
    // The law is the caller's: a negative or NaN draw must not go back in time.
    if (!(serviceTime >= 0)) {
      throw new InvalidArgumentError(
        `a service time should be a number ≥ 0 seconds, got ${serviceTime}`,
      );
    }
    this.queue.push(this.now + serviceTime, DEPARTURE, id);
  }

  private interarrival(classIndex: number): number {
    return -this.meanInterarrival[classIndex] * Math.log1p(-this.random());
  }

  /** An original arrival of class `classIndex`. */
  private arrival(classIndex: number): void {
    const now = this.now;
    this.queue.push(now + this.interarrival(classIndex), ARRIVAL, classIndex);
    const id = this.allocate();
    this.requestClass[id] = classIndex;
    this.originTime[id] = now;
    this.retriesUsed[id] = 0;
    this.previousDelayMs[id] = this.firstPreviousDelayMs[classIndex];
    if (now >= this.warmup && now < this.windowEnd) {
      this.flags[id] = MEASURED;
      this.originals[classIndex]++;
      this.measuredOutstanding++;
    } else {
      this.flags[id] = 0;
    }
    this.attempt(id);
  }

  /** An attempt (first or retry) of request `id`. */
  private attempt(id: number): void {
    const now = this.now;
    const classIndex = this.requestClass[id];
    const measured = (this.flags[id] & MEASURED) !== 0;
    if (measured) this.attempts[classIndex]++;
    if (this.inSystem >= this.queueLimit) {
      if (measured) this.attemptRejections[classIndex]++;
      const used = this.retriesUsed[id];
      if (used < this.retryLimit[classIndex]) {
        const retry = used + 1;
        this.retriesUsed[id] = retry;
        const meanMs = this.randomBackoffMeanMs[classIndex] as number;
        // drawRetryDelay's `random` case, inlined for speed (the common backoff of the model's
        // regime; the mean is > 0 there, NaN for other kinds). Keep the expression identical to
        // drawRetryDelay's: the same draw, so the same results.
        const delayMs =
          meanMs > 0
            ? Math.min(-meanMs * Math.log1p(-this.random()), MAX_DELAY_MS)
            : drawRetryDelay(
                this.backoffs[classIndex] as BackoffDescription,
                retry,
                this.previousDelayMs[id],
                this.random,
              );
        this.previousDelayMs[id] = delayMs;
        this.queue.push(now + delayMs / 1000, RETRY, id);
        return;
      }
      this.release(id);
      if (measured) {
        this.finalRejections[classIndex]++;
        this.measuredOutstanding--;
        this.stopIfDrained();
      }
      return;
    }
    this.accumulateArea(now);
    this.inSystem++;
    this.acceptedAt[id] = now;
    if (now >= this.warmup && now < this.windowEnd) {
      this.flags[id] |= ACCEPTED_IN_WINDOW;
      this.windowJobsInSystem++;
    }
    this.line.push(id);
    if (this.inSystem === 1) this.scheduleDeparture(this.serviceTime.sample(this.random), id);
  }

  /** The job at the head of the line finishes service. */
  private departure(): void {
    const now = this.now;
    const id = this.line.shift();
    this.accumulateArea(now);
    this.inSystem--;
    const flags = this.flags[id];
    if ((flags & ACCEPTED_IN_WINDOW) !== 0) {
      this.acceptedInWindow++;
      this.sojournSum += now - this.acceptedAt[id];
      this.windowJobsInSystem--;
    }
    if ((flags & MEASURED) !== 0) {
      const classIndex = this.requestClass[id];
      const latency = now - this.originTime[id];
      this.successes[classIndex]++;
      // Kahan summation: a long run adds millions of small latencies.
      const term = latency - this.latencySumCompensation[classIndex];
      const sum = this.latencySum[classIndex] + term;
      this.latencySumCompensation[classIndex] = sum - this.latencySum[classIndex] - term;
      this.latencySum[classIndex] = sum;
      (this.latencies[classIndex] as LatencyRecorder).record(
        Math.round(latency * MICROSECONDS_PER_SECOND),
      );
      this.measuredOutstanding--;
    }
    this.release(id);
    if (this.inSystem > 0) {
      this.scheduleDeparture(this.serviceTime.sample(this.random), this.line.peek());
    }
    this.stopIfDrained();
  }

  private closeWindow(): void {
    this.accumulateArea(this.windowEnd);
    this.windowEnded = true;
    this.stopIfDrained();
  }

  private stopIfDrained(): void {
    if (this.windowEnded && this.measuredOutstanding === 0 && this.windowJobsInSystem === 0) {
      this.stopped = true;
    }
  }

  /** Adds the number in system times the part of [lastChange, now) inside the window. */
  private accumulateArea(now: number): void {
    const from = Math.max(this.lastChange, this.warmup);
    const to = Math.min(now, this.windowEnd);
    this.lastChange = now;
    if (to <= from || this.inSystem === 0) return;
    const term = this.inSystem * (to - from) - this.areaCompensation;
    const sum = this.area + term;
    this.areaCompensation = sum - this.area - term;
    this.area = sum;
  }

  private allocate(): number {
    if (this.freeCount > 0) return this.freeIds[--this.freeCount];
    if (this.idsInUse === this.flags.length) this.growRequests();
    return this.idsInUse++;
  }

  private release(id: number): void {
    this.freeIds[this.freeCount++] = id;
  }

  private growRequests(): void {
    const size = this.flags.length * 2;
    this.requestClass = grown(this.requestClass, size);
    this.originTime = grown(this.originTime, size);
    this.retriesUsed = grown(this.retriesUsed, size);
    this.previousDelayMs = grown(this.previousDelayMs, size);
    this.acceptedAt = grown(this.acceptedAt, size);
    this.flags = grown(this.flags, size);
    this.freeIds = grown(this.freeIds, size);
  }

  output(): SingleServiceRunOutput {
    for (const recorder of this.latencies) recorder.flush();
    const { duration, warmup, capacity, classes: classConfigs } = this.config;
    const classes: Record<string, ClassMeasurement> = {};
    let attempts = 0;
    let attemptRejections = 0;
    classConfigs.forEach((entry, index) => {
      const originals = this.originals[index] as number;
      const classAttempts = this.attempts[index] as number;
      const classAttemptRejections = this.attemptRejections[index] as number;
      const successes = this.successes[index] as number;
      const histogram = this.histograms[index] as Histogram;
      attempts += classAttempts;
      attemptRejections += classAttemptRejections;
      const percentiles = {} as Record<(typeof LATENCY_PERCENTILES)[number]['field'], number>;
      for (const { percentile, field } of LATENCY_PERCENTILES) {
        percentiles[field] = latencyPercentileSeconds(histogram, percentile);
      }
      classes[entry.name] = {
        originals,
        attempts: classAttempts,
        attemptRejections: classAttemptRejections,
        finalRejections: this.finalRejections[index] as number,
        successes,
        arrivalRate: originals / duration,
        attemptRate: classAttempts / duration,
        goodput: successes / duration,
        rejection: ratio(this.finalRejections[index] as number, originals),
        attemptRejection: ratio(classAttemptRejections, classAttempts),
        attemptsPerRequest: ratio(classAttempts, originals),
        latencyMean: ratio(this.latencySum[index] as number, successes),
        ...percentiles,
      };
    });
    const result: SingleServiceResult = {
      s: ratio(attemptRejections, attempts),
      rho: attempts / duration / capacity,
      meanInSystem: this.area / duration,
      throughput: this.acceptedInWindow / duration,
      meanSojourn: ratio(this.sojournSum, this.acceptedInWindow),
      duration,
      warmup,
      events: this.events,
      endTime: this.now,
      classes,
    };
    return { result, histograms: this.histograms };
  }
}

/** numerator / denominator, NaN when the denominator is 0 (no observations). */
function ratio(numerator: number, denominator: number): number {
  return denominator > 0 ? numerator / denominator : Number.NaN;
}
