/**
 * A small timing harness for `npm run bench`: warm up, then time batches and report the median.
 * Benchmarks check their own results, so the work cannot be optimised away.
 */

/** The median time per operation of `fn`, nanoseconds, over `runs` timed batches. */
export function medianNanosPerOp(
  fn: () => void,
  options: { batch: number; runs?: number },
): number {
  const runs = options.runs ?? 9;
  for (let i = 0; i < Math.min(options.batch, 1000); i++) fn(); // warm-up for the JIT
  const samples: number[] = [];
  for (let r = 0; r < runs; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < options.batch; i++) fn();
    samples.push(Number(process.hrtime.bigint() - start) / options.batch);
  }
  return median(samples);
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Prints a titled, aligned block of `label: value` lines. */
export function report(title: string, lines: readonly [string, string][]): void {
  const width = Math.max(...lines.map(([label]) => label.length));
  console.log(`\n${title}`);
  for (const [label, value] of lines) console.log(`  ${label.padEnd(width)}  ${value}`);
}

/**
 * The median time of one call of `fn`, milliseconds: one warm-up call, then at least `minRuns`
 * timed calls and as many more as fit in `minMs`.
 */
export function medianMillis(fn: () => unknown, minRuns: number, minMs: number): number {
  const samples: number[] = [];
  const started = performance.now();
  fn(); // warm-up
  while (samples.length < minRuns || performance.now() - started < minMs) {
    const t0 = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(samples);
}

/** What one run of a simulation case gives: its events and a checksum of its figures. */
export interface EventRun {
  readonly events: number;
  readonly checksum: number;
}

/**
 * Median events per second and median wall time (ms) of each case over `rounds` rounds, after
 * one untimed warm-up run of each, beside that warm-up run's result. A round runs every case
 * once, so a burst of load from other processes falls on all of them and the ratios stay fair.
 * Every run must give the warm-up's checksum and some events, so no work can be skipped.
 */
export function interleavedEventRates<R extends EventRun>(
  cases: readonly (readonly [string, () => R])[],
  rounds: number,
): { readonly reference: R; readonly eventsPerSecond: number; readonly milliseconds: number }[] {
  const references = cases.map(([, work]) => work());
  const rates: number[][] = cases.map(() => []);
  const times: number[][] = cases.map(() => []);
  for (let round = 0; round < rounds; round++) {
    cases.forEach(([name, work], c) => {
      const start = process.hrtime.bigint();
      const { events, checksum } = work();
      const nanos = Number(process.hrtime.bigint() - start);
      const reference = references[c] as R;
      if (!(events > 0) || !Number.isFinite(checksum) || checksum !== reference.checksum) {
        throw new Error(`${name}: bad result (events ${events}, checksum ${checksum})`);
      }
      rates[c]?.push(events / (nanos / 1e9));
      times[c]?.push(nanos / 1e6);
    });
  }
  return references.map((reference, c) => ({
    reference,
    eventsPerSecond: median(rates[c] as number[]),
    milliseconds: median(times[c] as number[]),
  }));
}
