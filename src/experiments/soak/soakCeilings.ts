/**
 * The soak's resource verdict for one process (scripts/soak.ts): its RSS and open descriptors,
 * sampled every second, must stay under stated ceilings throughout the run, and after the load
 * stops and a settle period they must come back near their baseline. Pure: the executor reads
 * `/proc/PID/status` and `/proc/PID/fd` and hands the samples over.
 */
import { mebibytes } from '../../report/numberFormat.js';

/** One sample of a process's resources. */
export interface ResourceSample {
  /** When it was taken, ms since the soak started. */
  readonly atMs: number;
  /** Resident set size (`VmRSS`), bytes. */
  readonly rssBytes: number;
  /** Open file descriptors (entries of `/proc/PID/fd`). */
  readonly fds: number;
}

/** The bounds a sidecar process must keep. */
export interface SoakCeilings {
  /** Highest RSS allowed at any sample, bytes. */
  readonly rssBytes: number;
  /** Most open descriptors allowed at any sample. */
  readonly fds: number;
  /** How far above its baseline the final RSS may stay after the settle period, bytes. */
  readonly settleRssBytes: number;
  /** How many descriptors above its baseline the final count may stay after the settle period. */
  readonly settleFds: number;
}

/** When each phase of the run began, ms since the soak started. */
export interface SoakPhases {
  /** Baseline samples: from here (after warm-up) until the load starts. */
  readonly baselineFromMs: number;
  /** The load starts (the end of the baseline window). */
  readonly loadFromMs: number;
  /** The load stops; the settle period begins. */
  readonly loadUntilMs: number;
  /** Final samples: from here to the end of the settle period. */
  readonly finalFromMs: number;
}

/** RSS and descriptors at one point of the run. */
export interface ResourceLevel {
  readonly rssBytes: number;
  readonly fds: number;
}

/** The verdict on one process. */
export interface ProcessVerdict {
  /** Medians of the baseline window. */
  readonly baseline: ResourceLevel;
  /** The highest of each over every sample from the baseline on, with when it was seen (ms). */
  readonly peak: ResourceLevel & { readonly rssAtMs: number; readonly fdsAtMs: number };
  /** Medians of the final window. */
  readonly final: ResourceLevel;
  /** Samples taken from the baseline on. */
  readonly samples: number;
  /** What went wrong, one sentence each; empty when the process passed. */
  readonly violations: readonly string[];
}

/** Bytes as MiB with one decimal: `134.2 MiB` ({@link mebibytes}). */
export const formatMiB = mebibytes;

/** The median of `values` (the mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Judges one process: every sample from the baseline on under the ceilings, the final medians
 * within the settle tolerances of the baseline medians, and samples in every window (a process
 * that stopped answering `/proc` has exited: `exitedAtMs`).
 * @param samples the process's samples, in any order.
 * @param exitedAtMs when the process was seen gone before the soak stopped it, if it was.
 * @example
 * ```ts
 * judgeProcess(samples, phases, { rssBytes: 256 * 2 ** 20, fds: 512, settleRssBytes: 48 * 2 ** 20, settleFds: 8 });
 * ```
 */
export function judgeProcess(
  samples: readonly ResourceSample[],
  phases: SoakPhases,
  ceilings: SoakCeilings,
  exitedAtMs?: number,
): ProcessVerdict {
  const judged = samples
    .filter((sample) => sample.atMs >= phases.baselineFromMs)
    .sort((a, b) => a.atMs - b.atMs);
  const inWindow = (from: number, until: number) =>
    judged.filter((sample) => sample.atMs >= from && sample.atMs < until);
  const baselineSamples = inWindow(phases.baselineFromMs, phases.loadFromMs);
  const finalSamples = inWindow(phases.finalFromMs, Number.POSITIVE_INFINITY);
  const level = (window: readonly ResourceSample[]): ResourceLevel => ({
    rssBytes: median(window.map((sample) => sample.rssBytes)),
    fds: median(window.map((sample) => sample.fds)),
  });
  const baseline = level(baselineSamples);
  const final = level(finalSamples);
  let peakRss: ResourceSample | undefined;
  let peakFds: ResourceSample | undefined;
  for (const sample of judged) {
    if (peakRss === undefined || sample.rssBytes > peakRss.rssBytes) peakRss = sample;
    if (peakFds === undefined || sample.fds > peakFds.fds) peakFds = sample;
  }

  const violations: string[] = [];
  const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  if (exitedAtMs !== undefined) violations.push(`the process exited at ${seconds(exitedAtMs)}`);
  if (baselineSamples.length === 0) violations.push('no sample in the baseline window');
  if (inWindow(phases.loadFromMs, phases.loadUntilMs).length === 0) {
    violations.push('no sample under load');
  }
  if (finalSamples.length === 0) violations.push('no sample in the final window');
  // Report the first crossing of each ceiling and how many samples crossed it: the first says
  // when, the count says whether it was a blip or a trend.
  const over = (value: (s: ResourceSample) => number, ceiling: number) =>
    judged.filter((sample) => value(sample) > ceiling);
  const rssOver = over((s) => s.rssBytes, ceilings.rssBytes);
  const first = rssOver[0];
  if (first !== undefined) {
    violations.push(
      `RSS ${formatMiB(first.rssBytes)} at ${seconds(first.atMs)} over the ceiling ${formatMiB(ceilings.rssBytes)} (${rssOver.length} of ${judged.length} samples)`,
    );
  }
  const fdsOver = over((s) => s.fds, ceilings.fds);
  const firstFds = fdsOver[0];
  if (firstFds !== undefined) {
    violations.push(
      `${firstFds.fds} descriptors at ${seconds(firstFds.atMs)} over the ceiling ${ceilings.fds} (${fdsOver.length} of ${judged.length} samples)`,
    );
  }
  if (baselineSamples.length > 0 && finalSamples.length > 0) {
    if (final.rssBytes - baseline.rssBytes > ceilings.settleRssBytes) {
      violations.push(
        `RSS did not come back: ${formatMiB(final.rssBytes)} after settling, baseline ${formatMiB(baseline.rssBytes)}, tolerance +${formatMiB(ceilings.settleRssBytes)}`,
      );
    }
    if (final.fds - baseline.fds > ceilings.settleFds) {
      violations.push(
        `descriptors did not come back: ${final.fds} after settling, baseline ${baseline.fds}, tolerance +${ceilings.settleFds}`,
      );
    }
  }
  return {
    baseline,
    peak: {
      rssBytes: peakRss?.rssBytes ?? Number.NaN,
      fds: peakFds?.fds ?? Number.NaN,
      rssAtMs: peakRss?.atMs ?? Number.NaN,
      fdsAtMs: peakFds?.atMs ?? Number.NaN,
    },
    final,
    samples: judged.length,
    violations,
  };
}
