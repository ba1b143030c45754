import { appendFileSync } from 'node:fs';
import fc from 'fast-check';

/**
 * How long each fuzz property explores, in ms. Under `npm test` (`FUZZ_SECONDS` unset) a few
 * seconds, so the whole folder stays near 15 s on two cores and CI within its minutes; `npm run
 * fuzz` sets `FUZZ_SECONDS` (120) and every property runs that long instead.
 */
export function fuzzTimeLimitMs(defaultMs: number): number {
  const seconds = Number(process.env.FUZZ_SECONDS);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : defaultMs;
}

/**
 * The vitest timeout of a test running one property for `timeLimitMs`: the time limit is only
 * looked at between runs, so the slowest single run (and the shrinking of a failure, which the
 * limit also stops) must fit in the slack.
 */
export function fuzzTestTimeoutMs(timeLimitMs: number, slackMs = 60_000): number {
  return timeLimitMs + slackMs;
}

/**
 * The seed of a long `npm run fuzz`: `FUZZ_SEED` if set (to replay a failure), else a fresh one,
 * so each long run explores new inputs. Under `npm test` undefined: the global seed of
 * test/setup.ts keeps the run reproducible.
 */
function fuzzSeed(): number | undefined {
  const given = Number(process.env.FUZZ_SEED);
  if (Number.isSafeInteger(given)) return given;
  // Date.now is fine here: this is the test harness choosing what to explore, not code under test.
  return process.env.FUZZ_SECONDS === undefined ? undefined : Date.now() % 2 ** 31;
}

/**
 * Runs an async property until `timeLimitMs` has passed (or `maxRuns` runs, if given), fails with
 * fast-check's report (the seed and path to replay, the shrunk counterexample) and returns the
 * number of runs, which it also prints when `FUZZ_SECONDS` or `FUZZ_REPORT` is set.
 * @example
 * ```ts
 * const runs = await checkForAWhile('cli', property, fuzzTimeLimitMs(2500));
 * ```
 */
export async function checkForAWhile<Ts>(
  name: string,
  property: fc.IAsyncProperty<Ts>,
  timeLimitMs: number,
  options: {
    readonly maxRuns?: number;
    /**
     * Report the first failure as found, without shrinking it: for properties of a system that
     * keeps state between runs (a sidecar), where a smaller input run later shows the harm done
     * by the first, not its cause.
     */
    readonly noShrinking?: boolean;
  } = {},
): Promise<number> {
  const seed = fuzzSeed();
  // A run that hangs never reaches the report: with FUZZ_TRACE=FILE the seed is on disk first.
  if (process.env.FUZZ_TRACE !== undefined) {
    appendFileSync(process.env.FUZZ_TRACE, `${JSON.stringify({ property: name, seed })}\n`);
  }
  const started = performance.now();
  const details = await fc.check(property, {
    numRuns: options.maxRuns ?? Number.MAX_SAFE_INTEGER,
    interruptAfterTimeLimit: timeLimitMs,
    endOnFailure: options.noShrinking ?? false,
    ...(seed !== undefined && { seed }),
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (process.env.FUZZ_SECONDS !== undefined || process.env.FUZZ_REPORT !== undefined) {
    console.info(`fuzz ${name}: ${details.numRuns} runs in ${seconds} s (seed ${details.seed})`);
  }
  if (details.failed) {
    const report = fc.defaultReportMessage(details) ?? `fuzz ${name} failed`;
    const error = details.errorInstance;
    throw new Error(`${report}\n${error instanceof Error ? error.message : String(error)}`);
  }
  if (details.numRuns === 0) throw new Error(`fuzz ${name}: no run fit in ${timeLimitMs} ms`);
  return details.numRuns;
}

/**
 * Fails a run with every problem found, in full (an `expect` diff would cut them short), so the
 * report shows the input, what came back and why it is wrong.
 */
export function failOnProblems(problems: readonly unknown[]): void {
  if (problems.length > 0) throw new Error(JSON.stringify(problems, null, 1));
}
