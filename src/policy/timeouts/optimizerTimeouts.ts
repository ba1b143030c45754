import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import { empiricalLatency, optimizeTimeouts } from '../../model/timeouts/index.js';
import type { LatencySample } from '../../model/timeouts/LatencyDistribution.js';
import type { Clock } from '../Clock.js';
import { checkAttempt, checkObservation, checkOption, checkOptionsObject } from './checkOption.js';
import type { InspectableTimeouts } from './InspectableTimeouts.js';
import type { TimeoutObservation } from './TimeoutStrategy.js';

/** What the Optimizer is asked (times in seconds), as `optimizeTimeouts` takes it. */
export type OptimizeRequest = Parameters<typeof optimizeTimeouts>[1];

/** The cost of an attempt, as `optimizeTimeouts` takes it. */
export type OptimizeCost = OptimizeRequest['cost'];

/**
 * The Optimizer as a function of the samples (seconds): its `sequence` (seconds), and E_0 when it
 * knows it. The default estimates the distribution with `empiricalLatency` and optimises it with
 * `optimizeTimeouts`; tests pass a counting stand-in.
 */
export type TimeoutOptimizer = (
  samples: readonly LatencySample[],
  request: OptimizeRequest,
) => { readonly sequence: readonly number[]; readonly E0?: number };

/** The model's Optimizer over the empirical distribution of the samples. */
export const modelOptimizer: TimeoutOptimizer = (samples, request) =>
  optimizeTimeouts(empiricalLatency(samples), request);

/** How the buffer's samples are weighted. */
export type SampleWeights = 'uniform' | 'recency';

/** Options of {@link optimizerTimeouts}; times in ms. */
export interface OptimizerTimeoutsOptions {
  /**
   * Timeouts in the sequence, t_z included: the levels of the Optimizer's tree search (docs/design.md,
   * "Timeouts"); default 4. The Optimizer may answer fewer when an earlier timeout does not help.
   * @default 4
   */
  readonly depth?: number;
  /**
   * Observations kept, the oldest dropped first; default 2000.
   * @default 2000
   */
  readonly bufferSize?: number;
  /**
   * The sequence is recomputed after every this many buffered observations; default 100.
   * @default 100
   */
  readonly recomputeEvery?: number;
  /**
   * The ceiling t_z given to the Optimizer, ms; default none (the Optimizer chooses it). In a
   * stationary model the best sequence collapses to one repeated timeout; t_z carries a call
   * through a short spike.
   * @default none (the Optimizer chooses it)
   */
  readonly tzMs?: number;
  /**
   * The cost g(t) of an attempt, passed to `optimizeTimeouts` as it is; default the model's.
   * @default the model's cost
   */
  readonly cost?: OptimizeCost;
  /**
   * `uniform` (default): every sample weighs 1. `recency`: the i-th oldest of n samples weighs
   * i, so the newest count n times the oldest (docs/design.md: the Combined system's Optimizer).
   * @default 'uniform'
   */
  readonly weights?: SampleWeights;
  /**
   * The timeout of every attempt until the first recompute; default 1000, or `maxMs` if that is
   * smaller.
   * @default 1000 (or `maxMs`, if smaller)
   */
  readonly initialMs?: number;
  /**
   * The widest timeout handed out; default 60,000.
   * @default 60_000
   */
  readonly maxMs?: number;
  /**
   * Measures each recompute (`state().lastRecomputeMs`, `recomputeTimeMs`) when given: pass a
   * real monotonic clock (`performance.now`) to report computing cost. Without one, nothing is
   * timed.
   * @default none (nothing is timed)
   */
  readonly clock?: Clock;
  /**
   * The Optimizer; default {@link modelOptimizer}.
   * @default modelOptimizer
   */
  readonly optimize?: TimeoutOptimizer;
}

/** What {@link optimizerTimeouts} has learnt. */
export interface OptimizerState {
  /** Observations buffered since the start (successes and timeouts). */
  readonly observations: number;
  /** Observations in the buffer now. */
  readonly buffered: number;
  /** Recomputes run (including those that kept the old sequence). */
  readonly recomputes: number;
  /** The sequence in use, ms. */
  readonly sequenceMs: readonly number[];
  /** The Optimizer's E_0 for it, seconds, when it reported one. */
  readonly expectedLatencyS: number | undefined;
  /** The last recompute's duration by the injected clock, ms; undefined without a clock. */
  readonly lastRecomputeMs: number | undefined;
  /** Why the last recompute kept the old sequence, if it did. */
  readonly lastProblem: string | undefined;
}

/** An Optimizer strategy: {@link InspectableTimeouts} plus the recompute time spent. */
export interface OptimizerTimeouts extends InspectableTimeouts<OptimizerState> {
  /** All recomputes so far by the injected clock, ms; undefined without a clock. */
  readonly recomputeTimeMs: number | undefined;
}

/** The Optimizer's buffer and sequence, with its ceiling supplied from outside. */
export interface OptimizerCore {
  /** Buffers an observation (a timeout as a censored sample); may recompute. */
  observe(outcome: TimeoutObservation, latencyMs: number): void;
  /** The sequence in use, ms (shared: do not change it). */
  sequenceMs(): readonly number[];
  /** Whether a recompute has produced a sequence yet. */
  recomputed(): boolean;
  state(): OptimizerState;
  readonly recomputeTimeMs: number | undefined;
}

/**
 * The Optimizer of docs/design.md's adaptive timeouts, run online: it keeps the last `bufferSize`
 * observations (a success as its latency, a timeout as a censored sample at the timeout; failures
 * are skipped, their latency is another path's), and after every `recomputeEvery` of them
 * replaces its sequence with `optimizeTimeouts(empiricalLatency(buffer), { depth, tz, cost })`.
 * `next(attempt)` is the sequence's element `min(attempt, last)`; before the first recompute every
 * attempt gets `initialMs`.
 *
 * Units: the policy speaks ms, the model seconds; samples and t_z are divided by 1000 on the way
 * in, the sequence multiplied on the way out. The sequence handed out is made non-decreasing
 * (a running maximum) and clamped to (0, maxMs], so a numerical corner of the model cannot shorten
 * a retry's timeout below the try before it.
 *
 * When a recompute is due and no buffered sample is uncensored, nothing is known but that every
 * latency exceeded its timeout: the sequence doubles instead (capped at maxMs), as a timer backs
 * off, until successes come back. An Optimizer that throws, or answers no positive finite sequence,
 * leaves the sequence as it was; `state().lastProblem` says why.
 *
 * Defaults: depth 4, 2000 samples, every 100 observations (docs/design.md); uniform weights.
 * @see docs/design.md, "Timeouts" (the model and the tree search)
 * @example
 * ```ts
 * const timeout = optimizerTimeouts({ initialMs: 500, tzMs: 4000 });
 * await retry(call, { policy, timeout });
 * ```
 */
export function optimizerTimeouts(
  options: Readonly<OptimizerTimeoutsOptions> = {},
): OptimizerTimeouts {
  checkOptionsObject('optimizerTimeouts', options);
  const tzMs =
    options.tzMs === undefined
      ? undefined
      : checkOption('tzMs', options.tzMs, { min: 0, max: Number.POSITIVE_INFINITY, minOpen: true });
  const core = optimizerCore(options, () => tzMs);
  return {
    next(attempt) {
      checkAttempt(attempt);
      const sequence = core.sequenceMs();
      return sequence[Math.min(attempt, sequence.length - 1)] as number;
    },
    observe: (outcome, latencyMs) => core.observe(outcome, latencyMs),
    sequence: () => core.sequenceMs().slice(),
    state: () => core.state(),
    get recomputeTimeMs() {
      return core.recomputeTimeMs;
    },
  };
}

/** The smallest timeout handed out, ms (1 µs): keeps every timeout positive. */
const MIN_TIMEOUT_MS = 0.001;

/**
 * The Optimizer's buffer and recompute, with the ceiling t_z (ms, or undefined for none) read
 * from `ceilingMs` at each recompute: the Combined system passes its Controller's timeout. Checks
 * every option but `tzMs`.
 */
export function optimizerCore(
  options: Readonly<OptimizerTimeoutsOptions>,
  ceilingMs: () => number | undefined,
): OptimizerCore {
  checkOptionsObject('optimizerTimeouts', options);
  const positive = { min: 0, max: Number.POSITIVE_INFINITY, minOpen: true };
  const depth = checkOption('depth', options.depth ?? 4, { min: 1, max: 64, integer: true });
  const bufferSize = checkOption('bufferSize', options.bufferSize ?? 2000, {
    min: 1,
    max: 10_000_000,
    integer: true,
  });
  const recomputeEvery = checkOption('recomputeEvery', options.recomputeEvery ?? 100, {
    min: 1,
    max: 10_000_000,
    integer: true,
  });
  const maxMs = checkOption('maxMs', options.maxMs ?? 60_000, positive);
  const initialMs = checkOption('initialMs', options.initialMs ?? Math.min(1000, maxMs), {
    ...positive,
    max: maxMs,
  });
  const weights = options.weights ?? 'uniform';
  if (weights !== 'uniform' && weights !== 'recency') {
    throw new InvalidArgumentTypeError(
      `weights should be "uniform" or "recency", got ${String(weights)}`,
    );
  }
  const clock = options.clock;
  if (clock !== undefined && typeof clock !== 'function') {
    throw new InvalidArgumentTypeError(
      `clock should be a function returning ms, got ${String(clock)}`,
    );
  }
  const optimize = options.optimize ?? modelOptimizer;
  if (typeof optimize !== 'function') {
    throw new InvalidArgumentTypeError(`optimize should be a function, got ${String(optimize)}`);
  }
  const cost = options.cost;

  // A ring buffer: latencies in seconds and censoring flags, `next` the slot to write.
  const latencies = new Float64Array(bufferSize);
  const censored = new Uint8Array(bufferSize);
  let buffered = 0;
  let nextSlot = 0;
  let observations = 0;
  let recomputes = 0;
  let sequenceMs: readonly number[] = [initialMs];
  let hasRecomputed = false;
  let expectedLatencyS: number | undefined;
  let lastRecomputeMs: number | undefined;
  let recomputeTimeMs: number | undefined = clock === undefined ? undefined : 0;
  let lastProblem: string | undefined;

  function samples(): LatencySample[] {
    const list: LatencySample[] = new Array(buffered);
    const oldest = buffered < bufferSize ? 0 : nextSlot;
    for (let i = 0; i < buffered; i++) {
      const slot = (oldest + i) % bufferSize;
      const latency = latencies[slot] as number;
      const isCensored = censored[slot] === 1;
      list[i] =
        weights === 'recency'
          ? { latency, censored: isCensored, weight: i + 1 }
          : { latency, censored: isCensored };
    }
    return list;
  }

  function recompute(): void {
    recomputes++;
    const started = clock?.();
    const outcome = optimizeBuffer();
    if (clock !== undefined && started !== undefined) {
      lastRecomputeMs = clock() - started;
      recomputeTimeMs = (recomputeTimeMs ?? 0) + lastRecomputeMs;
    }
    lastProblem = outcome;
  }

  /** Replaces the sequence; returns why it kept the old one, if it did. */
  function optimizeBuffer(): string | undefined {
    if (!censored.subarray(0, buffered).includes(0)) {
      sequenceMs = sequenceMs.map((timeoutMs) => Math.min(maxMs, 2 * timeoutMs));
      return 'no uncensored sample: the sequence doubled';
    }
    const tzMs = ceilingMs();
    const request: OptimizeRequest = {
      depth,
      ...(tzMs !== undefined && { tz: tzMs / 1000 }),
      ...(cost !== undefined && { cost }),
    };
    let result: ReturnType<TimeoutOptimizer>;
    try {
      result = optimize(samples(), request);
    } catch (error) {
      return `the Optimizer threw: ${error instanceof Error ? error.message : String(error)}`;
    }
    const sequenceS = result.sequence;
    if (
      !Array.isArray(sequenceS) ||
      sequenceS.length === 0 ||
      !sequenceS.every((t) => Number.isFinite(t) && t > 0)
    ) {
      return `the Optimizer answered no positive finite sequence: [${String(sequenceS)}]`;
    }
    let floor = MIN_TIMEOUT_MS;
    sequenceMs = sequenceS.map((t) => {
      floor = Math.min(maxMs, Math.max(floor, t * 1000));
      return floor;
    });
    hasRecomputed = true;
    expectedLatencyS = result.E0;
    return undefined;
  }

  return {
    observe(outcome, latencyMs) {
      const latency = checkObservation(outcome, latencyMs);
      if (outcome === 'failure') return;
      latencies[nextSlot] = latency / 1000;
      censored[nextSlot] = outcome === 'timeout' ? 1 : 0;
      nextSlot = (nextSlot + 1) % bufferSize;
      buffered = Math.min(bufferSize, buffered + 1);
      observations++;
      if (observations % recomputeEvery === 0) recompute();
    },
    sequenceMs: () => sequenceMs,
    recomputed: () => hasRecomputed,
    state: () => ({
      observations,
      buffered,
      recomputes,
      sequenceMs: sequenceMs.slice(),
      expectedLatencyS,
      lastRecomputeMs,
      lastProblem,
    }),
    get recomputeTimeMs() {
      return recomputeTimeMs;
    },
  };
}
