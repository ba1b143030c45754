import { monitorEventLoopDelay } from 'node:perf_hooks';
import { decodeFromCompressedBase64 } from 'hdr-histogram-js';
import type { NetworkSpec } from '../../config/schema.js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { meanWithCi95 } from '../../stats/confidence.js';
import { createLatencyHistogram } from '../../stats/latencyHistogram.js';
import type { EdgePlan, EdgeStreamReport } from '../edge/EdgePlan.js';
import { runEdge } from '../edge/runEdge.js';
import { runEdgeInWorker } from '../edge/runEdgeInWorker.js';
import { type LatencySummary, summarizeLatency } from '../load/latencySummary.js';
import type { OpenLoopReport } from '../load/openLoopPoisson.js';
import type { PoissonCheck } from '../load/poissonCheck.js';
import type { WindowCounts } from '../load/windowTally.js';
import type { ServiceWindowStats } from '../network/startService.js';
import { startTestbed, type TestbedOptions } from '../network/startTestbed.js';

/** Options of {@link measureTestbed}: the testbed's, and how long to load it. */
export interface MeasureOptions extends TestbedOptions {
  /** Seconds of load before the window opens (queues fill, retries reach steady state). */
  readonly warmupS: number;
  /** Seconds of the measurement window: the requests sent in it are the ones measured. */
  readonly durationS: number;
  /**
   * Longest drain after the window, seconds (default {@link DEFAULT_GRACE_S}): the load goes on
   * while the requests sent in the window finish; one still unfinished after it is counted
   * `unfinished` (and makes the run invalid for `fig5`).
   */
  readonly graceS?: number;
  /** Stops the run early; what was measured is still returned, marked `aborted`. */
  readonly signal?: AbortSignal;
  /** The elapsed fraction of the run (0..1). */
  readonly onProgress?: (fraction: number) => void;
  /**
   * Run the load generator (the external client, with its retries) in a worker thread with its
   * own event loop (default true); false runs it on this thread, beside the services.
   */
  readonly edgeThread?: boolean;
}

/**
 * One stream of the load (an entry service and a class), over the window: the sends meant for
 * it, how late they started and whether their achieved gaps were Poisson.
 */
export interface StreamMeasurement {
  readonly entry: string;
  readonly className: string;
  /** The requested rate, requests/s (on the testbed's time scale). */
  readonly rate: number;
  /** Sends whose intended time fell in the window, per second of window. */
  readonly windowRate: number;
  /** Of those, sent (all, unless aborted), and per second of window. */
  readonly sent: number;
  readonly achievedRate: number;
  /** Sends that started more than 1 ms after their intended time. */
  readonly late: number;
  /** Mean and largest lateness, ms. */
  readonly meanLatenessMs: number;
  readonly maxLatenessMs: number;
  /** The achieved send times' gap check. */
  readonly poisson: PoissonCheck;
}

/** A class's end-to-end rejection over one population of its requests. */
export interface RejectionCount {
  /** Requests of the population that ended. */
  readonly finished: number;
  readonly succeeded: number;
  /** A 503 after the external client's retries, or a connection error. */
  readonly failed: number;
  /** failed / finished. */
  readonly rejection: number;
  /**
   * 95 % half-width of `rejection` by batch means: the window cut into {@link batchCount} batches,
   * Student-t over the batches' rejections — rejections cluster in time, so requests are not
   * independent (the binomial half-width when a batch had no requests).
   */
  readonly rejectionCi95: number;
  /** The binomial half-width, as if requests were independent (narrower). */
  readonly rejectionCi95Binomial: number;
}

/**
 * End-to-end figures of a class: the requests **sent** in the window (by intended send time),
 * each followed to its end through the drain, with the old count by answer time beside them.
 */
export interface ClassMeasurement extends RejectionCount {
  readonly name: string;
  /** Σ of the class's stream rates, requests/s. */
  readonly rate: number;
  /** Σ of the class's window rates (what the prediction is given). */
  readonly windowRate: number;
  /** Requests whose intended send time fell in the window: the population measured. */
  readonly sent: number;
  /**
   * Of those, still unfinished when the drain's grace ran out: left out of `finished` and of
   * `rejection` (a failure's share could be up to (failed + unfinished) / sent); should be 0.
   */
  readonly unfinished: number;
  /** Latency of the successful requests from their intended send time, seconds. */
  readonly latency: LatencySummary;
  /**
   * The requests **answered** in the window, whenever they were sent (batches by answer time):
   * the count used before, which leaves out the window's slow stragglers and takes in the
   * warm-up's; kept to show the difference on the same run.
   */
  readonly answeredInWindow: RejectionCount;
}

/** One service over the window. */
export interface ServiceMeasurement extends ServiceWindowStats {
  /** μ as configured (the file's × scale), requests/s. */
  readonly nominalCapacity: number;
  /** μ measured: jobs / busy time (the nominal one when fewer than 20 jobs ran). */
  readonly calibratedCapacity: number;
  /** Mean real work duration / mean drawn work duration (timer stretch). */
  readonly stretch: number;
  /** Busy time / window: the worker's utilisation. */
  readonly utilization: number;
  /** Rejected at admission / attempts: the measured s of the model. */
  readonly attemptRejection: number;
}

/** What one run of the testbed measured. */
export interface TestbedMeasurement {
  /** The network as it ran (scaled, with the what-ifs). */
  readonly network: NetworkSpec;
  readonly sidecars: boolean;
  readonly warmupS: number;
  /** Length of the window, seconds. */
  readonly windowS: number;
  /** Longest drain allowed, and how long it lasted (the longest stream's), seconds. */
  readonly graceS: number;
  readonly drainS: number;
  /** Requests sent in the window and unfinished after the grace, every class (should be 0). */
  readonly unfinished: number;
  readonly streams: readonly StreamMeasurement[];
  readonly classes: readonly ClassMeasurement[];
  readonly services: readonly ServiceMeasurement[];
  /** Attempts at every service per external request (the external ones included). */
  readonly attemptsPerRequest: number;
  /** Attempts services made to each other per external request (nested retries included). */
  readonly internalPerRequest: number;
  /**
   * The services' event-loop delay from the window's opening to the end of the drain (perf_hooks,
   * sampled every 5 ms), ms.
   */
  readonly eventLoopDelay: {
    readonly meanMs: number;
    readonly p99Ms: number;
    readonly maxMs: number;
  };
  /** Requests still unanswered when the run ended (the drain's sends included). */
  readonly inFlightAtEnd: number;
  readonly aborted: boolean;
}

/** Resolution of the event-loop delay monitor, ms. */
const ELD_RESOLUTION_MS = 5;

/**
 * Batches a window of `durationS` seconds is cut into for its confidence intervals: one per 5 s,
 * at least 4 and at most 10 (5 s is about twice the time a request needs to exhaust 5 retries of
 * 500 ms, so neighbouring batches are nearly independent).
 */
export function batchCount(durationS: number): number {
  return Math.min(10, Math.max(4, Math.floor(durationS / 5)));
}

/**
 * Default longest drain, seconds: about three times the longest drain of a full Figure 5 sweep
 * (7.2 s: a high-class request making 6 attempts, each up to 50 × 14 ms in the frontend's queue,
 * with 5 retry delays of 500 ms mean between them). The drain ends as soon as the window's last
 * request has.
 */
export const DEFAULT_GRACE_S = 20;

/** Jobs below which a service's measured capacity is too noisy to use. */
export const MIN_CALIBRATION_JOBS = 20;

/**
 * Runs a call-graph network live and measures it: starts the testbed ({@link startTestbed}),
 * offers open-loop Poisson load to every entry service and class (one seeded stream each, the
 * endpoint of each request drawn with its branch probability) from a worker thread that is also
 * the external client (it retries at the entry with the runtime's `retry()`), opens the window
 * after the warm-up, reads every service's counters when it closes, keeps the load on through the
 * drain until every request sent in the window has ended (at most `graceS`), and closes
 * everything — also when aborted or when something throws.
 *
 * Per class: rejection = failed / finished over the requests **sent** in the window, each
 * followed to its end (and, beside it, the same over the requests answered in the window);
 * latency of the successes. Per service, over the window: the calibrated capacity (jobs / real
 * busy time), the attempt rejection s, the timers' stretch.
 * @example
 * ```ts
 * const m = await measureTestbed(hotelCalls, { scale: 0.5, warmupS: 8, durationS: 40 });
 * m.classes[0].rejection;
 * ```
 */
export async function measureTestbed(
  file: NetworkSpec,
  options: Readonly<MeasureOptions>,
): Promise<TestbedMeasurement> {
  const { warmupS, durationS, signal, onProgress } = options;
  if (!(Number.isFinite(warmupS) && warmupS >= 0)) {
    throw new InvalidArgumentError(`warmupS should be a number ≥ 0, got ${warmupS}`);
  }
  if (!(Number.isFinite(durationS) && durationS > 0)) {
    throw new InvalidArgumentError(`durationS should be a positive number, got ${durationS}`);
  }
  const graceS = options.graceS ?? DEFAULT_GRACE_S;
  if (!(Number.isFinite(graceS) && graceS >= 0)) {
    throw new InvalidArgumentError(`graceS should be a number ≥ 0, got ${options.graceS}`);
  }
  const seed = options.seed ?? 1;
  const edgeThread = options.edgeThread ?? true;
  // The load generator is the external client: it calls the entry services itself, retrying
  // as the analysis's external client does, so no ingress is needed.
  const testbed = await startTestbed(file, { ...options, ingress: false });
  const delay = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  let windowTimer: NodeJS.Timeout | undefined;
  let closeTimer: NodeJS.Timeout | undefined;
  // The services' counters as the window closed: the drain's work is not the window's.
  let windowStats: ServiceWindowStats[] | undefined;
  try {
    const { network } = testbed;
    const plans = testbed.entries.flatMap((entry) => {
      const service = network.services.find((s) => s.name === entry);
      return network.classes
        .map((c) => ({ entry, className: c.name, rate: service?.arrivals[c.name] ?? 0 }))
        .filter((plan) => plan.rate > 0);
    });
    const edge: EdgePlan = {
      client: testbed.externalClient,
      streams: plans.map((plan, i) => ({
        ...plan,
        seed,
        stream: 1000 + i,
        endpointStream: 2000 + i,
        ...(testbed.programs.has(plan.entry) && { program: testbed.programs.get(plan.entry) }),
      })),
      warmupS,
      durationS,
      graceS,
      batches: batchCount(durationS),
    };
    const openWindow = () => {
      testbed.startWindow();
      delay.reset();
    };
    let progressShown = 0;
    const run = edgeThread ? runEdgeInWorker : runEdge;
    const encoded = await run(edge, {
      ...(signal !== undefined && { signal }),
      onStarted: () => {
        delay.enable();
        if (warmupS === 0) openWindow();
        else windowTimer = setTimeout(openWindow, warmupS * 1000);
        closeTimer = setTimeout(
          () => {
            windowStats = testbed.stats();
          },
          (warmupS + durationS) * 1000,
        );
      },
      onProgress: (fraction) => {
        if (onProgress && (fraction - progressShown >= 0.01 || fraction === 1)) {
          progressShown = fraction;
          onProgress(fraction);
        }
      },
    });
    const stats = windowStats ?? testbed.stats();
    delay.disable();
    return summarize(
      network,
      testbed.sidecars,
      warmupS,
      graceS,
      plans,
      encoded.map(decodeReport),
      stats,
      delay,
    );
  } finally {
    if (windowTimer !== undefined) clearTimeout(windowTimer);
    if (closeTimer !== undefined) clearTimeout(closeTimer);
    delay.disable();
    await testbed.close();
  }
}

/** A stream's report with its histogram decoded again. */
function decodeReport(report: EdgeStreamReport): OpenLoopReport {
  const { histogramBase64, ...window } = report.window;
  const histogram = createLatencyHistogram();
  histogram.add(decodeFromCompressedBase64(histogramBase64));
  return { ...report, window: { ...window, histogram } };
}

function summarize(
  network: NetworkSpec,
  sidecars: boolean,
  warmupS: number,
  graceS: number,
  plans: readonly { entry: string; className: string; rate: number }[],
  reports: readonly OpenLoopReport[],
  stats: readonly ServiceWindowStats[],
  delay: ReturnType<typeof monitorEventLoopDelay>,
): TestbedMeasurement {
  const windowS = Math.max(...reports.map((r) => r.window.toS - r.window.fromS), 0);
  const streams = plans.map((plan, i): StreamMeasurement => {
    const r = reports[i] as OpenLoopReport;
    return {
      entry: plan.entry,
      className: plan.className,
      rate: plan.rate,
      windowRate: r.window.intended / windowS,
      sent: r.window.sent,
      achievedRate: r.window.sent / windowS,
      late: r.window.late,
      meanLatenessMs: r.window.meanLatenessMs,
      maxLatenessMs: r.window.maxLatenessMs,
      poisson: r.window.achieved,
    };
  });
  const classes = network.classes.map((c): ClassMeasurement => {
    const own = plans
      .map((plan, i) => ({ plan, r: reports[i] as OpenLoopReport }))
      .filter(({ plan }) => plan.className === c.name);
    const histogram = createLatencyHistogram();
    for (const { r } of own) histogram.add(r.window.histogram);
    return {
      name: c.name,
      rate: own.reduce((sum, { plan }) => sum + plan.rate, 0),
      windowRate: own.reduce((sum, { r }) => sum + r.window.intended / windowS, 0),
      sent: sum(own.map(({ r }) => r.window.intended)),
      unfinished: sum(own.map(({ r }) => r.window.unfinished)),
      ...rejectionCount(own.map(({ r }) => r.window)),
      latency: summarizeLatency(histogram),
      answeredInWindow: rejectionCount(own.map(({ r }) => r.window.answeredInWindow)),
    };
  });
  const services = stats.map((s): ServiceMeasurement => {
    const spec = network.services.find((x) => x.name === s.name);
    const nominal = spec?.capacity ?? Number.NaN;
    const attempts = sum(s.arrivals);
    const rejected = sum(s.rejected);
    return {
      ...s,
      nominalCapacity: nominal,
      calibratedCapacity: s.jobs >= MIN_CALIBRATION_JOBS ? (1000 * s.jobs) / s.busyMs : nominal,
      stretch: s.drawnMs > 0 ? s.busyMs / s.drawnMs : Number.NaN,
      utilization: s.windowS > 0 ? s.busyMs / 1000 / s.windowS : Number.NaN,
      attemptRejection: attempts > 0 ? rejected / attempts : Number.NaN,
    };
  });
  // Attempts are counted at the services over their window, external requests by the time they
  // were meant to be sent in it; in steady state their ratio is the attempts per request.
  const externalRate = sum(reports.map((r) => r.window.intended)) / windowS;
  const attemptRate = sum(stats.map((s) => sum(s.arrivals) / s.windowS));
  const externalAttemptRate = sum(stats.map((s) => sum(s.external) / s.windowS));
  return {
    network,
    sidecars,
    warmupS,
    windowS,
    graceS,
    drainS: Math.max(0, ...reports.map((r) => r.drainS)),
    unfinished: sum(classes.map((c) => c.unfinished)),
    streams,
    classes,
    services,
    attemptsPerRequest: attemptRate / externalRate,
    internalPerRequest: (attemptRate - externalAttemptRate) / externalRate,
    // The monitor records the whole interval between its checks: the delay is what exceeds
    // the resolution.
    eventLoopDelay: {
      meanMs: Math.max(0, delay.mean / 1e6 - ELD_RESOLUTION_MS),
      p99Ms: Math.max(0, delay.percentile(99) / 1e6 - ELD_RESOLUTION_MS),
      maxMs: Math.max(0, delay.max / 1e6 - ELD_RESOLUTION_MS),
    },
    inFlightAtEnd: reports.reduce((sum, r) => sum + r.inFlight, 0),
    aborted: reports.some((r) => r.aborted),
  };
}

/** The rejection of a population counted in several streams (a class's), with its intervals. */
function rejectionCount(parts: readonly WindowCounts[]): RejectionCount {
  const finished = sum(parts.map((p) => p.finished));
  const succeeded = sum(parts.map((p) => p.succeeded));
  const rejection = finished > 0 ? (finished - succeeded) / finished : Number.NaN;
  const binomial =
    finished > 0 ? 1.96 * Math.sqrt((rejection * (1 - rejection)) / finished) : Number.NaN;
  const batchRejections = (parts[0]?.batchFinished ?? []).map((_, b) => {
    const done = sum(parts.map((p) => p.batchFinished[b] ?? 0));
    const ok = sum(parts.map((p) => p.batchSucceeded[b] ?? 0));
    return done > 0 ? (done - ok) / done : Number.NaN;
  });
  const batchCi = meanWithCi95(batchRejections).ci95;
  return {
    finished,
    succeeded,
    failed: finished - succeeded,
    rejection,
    rejectionCi95: Number.isFinite(batchCi) ? batchCi : binomial,
    rejectionCi95Binomial: binomial,
  };
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
