import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CliCase, cliCaseArbitrary } from './arbitraries/cliArguments.js';
import { type CliEnvironment, cliRunProblems, runCase } from './cliRun.js';
import {
  checkForAWhile,
  failOnProblems,
  fuzzTestTimeoutMs,
  fuzzTimeLimitMs,
} from './fuzzBudget.js';

// Random network files, sidecar configs, latency samples and command lines
// over the real commands, run in-process. Every run exits 0 or 2 (verify-uniqueness: 1 with a
// counterexample), says at most one line on stderr (progress lines aside), never a stack trace,
// and a failed run leaves its output paths as they were. `npm run fuzz` runs it for minutes.

const TIME_LIMIT_MS = fuzzTimeLimitMs(5_000);
/**
 * The longest a generated run may take: most take milliseconds, a tune of a timed call graph a
 * few seconds (with progress on stderr); one past this has found a loop or an unchecked bound.
 */
const SLOW_RUN_SECONDS = 30;

const environment: fc.Arbitrary<CliEnvironment> = fc.record({
  DIFFTRY_MESH_TOKEN: fc.constantFrom(undefined, '', 'mesh-token'),
  PREMIUM_API_KEYS: fc.constantFrom(undefined, '', 'k1,k2', 'k1,k2,', ' ', 'k1, ,k2', 'k1'),
});

/** One case, and what went wrong with it, in the words a failure report prints. */
async function failures(cliCase: CliCase, env: CliEnvironment): Promise<unknown[]> {
  const started = performance.now();
  // A run that never ends never reaches its checks: name it while it hangs.
  const watchdog = setTimeout(() => {
    console.error(
      `fuzz cli: still running after ${SLOW_RUN_SECONDS} s:`,
      JSON.stringify({ cliCase, env }),
    );
  }, SLOW_RUN_SECONDS * 1000);
  // A synchronous loop blocks the watchdog too: FUZZ_TRACE=FILE records each case before it runs.
  if (process.env.FUZZ_TRACE !== undefined) {
    appendFileSync(process.env.FUZZ_TRACE, `${JSON.stringify({ cliCase, env })}\n`);
  }
  const run = await runCase(cliCase, env).finally(() => clearTimeout(watchdog));
  const problems = cliRunProblems(cliCase.command, run);
  const seconds = (performance.now() - started) / 1000;
  // Every generated run is tiny; one this slow has found a loop, or a bound that is not checked.
  if (seconds > SLOW_RUN_SECONDS) problems.push(`took ${seconds.toFixed(1)} s`);
  return problems.length === 0
    ? []
    : [
        {
          problems,
          argv: run.argv,
          env,
          code: run.code,
          stderr: run.stderr,
          stdout: run.stdout.slice(0, 400),
        },
      ];
}

describe('fuzz: the CLI', () => {
  it(
    'exits 0 or 2 with at most one line on stderr and nothing half-written, for any input',
    async () => {
      const runs = await checkForAWhile(
        'cli',
        fc.asyncProperty(cliCaseArbitrary, environment, async (cliCase, env) => {
          failOnProblems(await failures(cliCase, env));
        }),
        TIME_LIMIT_MS,
      );
      expect(runs).toBeGreaterThan(0);
    },
    fuzzTestTimeoutMs(TIME_LIMIT_MS),
  );
});
