import { configDefaults, defineConfig } from 'vitest/config';

// Two projects. `unit`: pure, in-process tests, on fake timers where time matters, with a short
// timeout. `integration`: tests that start a loopback server, a sidecar, the testbed, a worker
// thread, a child process or a bundler, run the CLI end to end, or fuzz; they run in real time.
// A directory of one kind is taken by a glob; a mixed one is listed file by file on both sides,
// so a new file there belongs to neither until it is placed (test/package/projects.test.ts fails
// on a test file in no project, or in both). `vitest run` runs both; `--project` picks one.

/** `dir/name.test.ts` for each name. */
const files = (dir: string, ...names: string[]): string[] =>
  names.map((name) => `${dir}/${name}.test.ts`);

/** Pure, in-process tests. */
const unit = {
  include: [
    'test/core/**/*.test.ts',
    'test/model/**/*.test.ts',
    'test/policy/**/*.test.ts',
    'test/report/**/*.test.ts',
    'test/spec/**/*.test.ts',
    'test/sim/**/*.test.ts',
    'test/stats/**/*.test.ts',
    'test/experiments/figure5/**/*.test.ts',
    ...files('test/experiments/timeouts', 'evaluate', 'latencyNoise', 'scenarios'),
    ...files('test/cli', 'progress', 'timeoutsEvalScenarioNames'),
    ...files('test/mesh', 'AdmissionGate', 'edgeRules', 'peerCheckConstantWork', 'requestHead'),
    ...files('test/mesh', 'trust', 'upstreamRouting'),
    ...files('test/package', 'projects', 'rootImport'),
    ...files('test/runtime', 'Cancellation', 'remainingTime', 'retry', 'spentDeadline'),
    ...files('test/scripts', 'metastability', 'soakArguments', 'soakCeilings', 'soakOutcomes'),
    ...files('test/scripts', 'soakPacer', 'soakSummary', 'strategies', 'timeoutRoutingCases'),
    ...files('test/scripts', 'validateCalls'),
    ...files('test/testbed', 'invalidRun', 'openLoopPoisson', 'windowTally'),
    ...files('examples', 'metastable'),
  ],
  // The retry conformance suite drives the real adapters over loopback.
  exclude: [...configDefaults.exclude, 'test/policy/retry/conformance/**'],
};

/** Loopback servers, sidecars, the testbed, gRPC, the CLI end to end, packaging, fuzzing. */
const integration = {
  include: [
    'test/fuzz/**/*.test.ts',
    'test/policy/retry/conformance/**/*.test.ts',
    ...files('test/experiments/timeouts', 'live'),
    ...files('test/cli', 'analyzeEquilibria', 'analyzeLoadLine', 'analyzeRoutingTimeouts', 'cli'),
    ...files('test/cli', 'decimalOptions', 'exitCodes', 'fig5Out', 'generate', 'meshAndProxy'),
    ...files('test/cli', 'optionChecks', 'outputErrors', 'outputPaths', 'simulateNetwork'),
    ...files('test/cli', 'simulateSchedule', 'strategyLimits', 'testbedCommand', 'timeoutsEval'),
    ...files('test/cli', 'timeoutsFit', 'tune', 'undefinedCells', 'verifyUniqueness', 'version'),
    ...files('test/mesh', 'edgeHardening', 'edgePathBypass', 'pipelinedRequests'),
    ...files('test/mesh', 'requestEdgeCases', 'sidecar', 'slowPeers'),
    ...files('test/package', 'browserModel', 'packageLint', 'packaging', 'api/apiReport'),
    ...files('test/runtime', 'edgeTarget', 'fetch', 'grpc', 'http', 'undici'),
    ...files('test/scripts', 'soakClient', 'soakTraffic'),
    ...files('test/testbed', 'network', 'sendTimeCount', 'service'),
    ...files('examples', 'fetch-client'),
  ],
  exclude: [...configDefaults.exclude],
};

export default defineConfig({
  test: {
    // Inherited by both projects (`extends: true`).
    setupFiles: ['test/setup.ts'],
    projects: [
      {
        extends: true,
        // Short, to end a hang fast; the slowest unit tests (the validations re-run in
        // test/scripts/validateCalls.test.ts) take up to 10 s on two busy cores.
        test: { name: 'unit', ...unit, testTimeout: 20_000 },
      },
      {
        extends: true,
        test: { name: 'integration', ...integration, testTimeout: 60_000, hookTimeout: 60_000 },
      },
    ],
  },
});
