import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { webAliases } from './web/packageSources.js';

// Two projects. `integration`: tests that start a loopback server, a sidecar, the testbed, a
// worker thread, a child process or a bundler, run the CLI end to end, or fuzz; they run in real
// time, and are listed below (by directory where a directory holds nothing else). `unit`: every
// other test, pure and in process, on fake timers where time matters, with a short timeout. A new
// test is a unit test unless it is listed here; test/package/projects.test.ts checks that every
// test file is in exactly one project and that every listed file exists. `vitest run` runs both;
// `--project` picks one.

/** `dir/name.test.ts` for each name. */
const files = (dir: string, ...names: string[]): string[] =>
  names.map((name) => `${dir}/${name}.test.ts`);

/** Loopback servers, sidecars, the testbed, gRPC, the CLI end to end, packaging, fuzzing. */
const integration = {
  include: [
    'test/fuzz/**/*.test.ts',
    'test/policy/retry/conformance/**/*.test.ts',
    ...files('test/experiments/timeouts', 'live'),
    ...files('test/cli', 'analyzeEquilibria', 'analyzeLoadLine', 'analyzeRoutingTimeouts', 'cli'),
    ...files('test/cli', 'analyzeLaw'),
    ...files('test/cli', 'decimalOptions', 'exitCodes', 'fig5Out', 'generate', 'meshAndProxy'),
    ...files('test/cli', 'meshEnvoy', 'meshGatewayApi', 'meshIstio', 'meshK8s', 'meshLinkerd'),
    ...files('test/cli', 'optionChecks', 'outputErrors', 'outputPaths', 'simulateNetwork'),
    ...files('test/cli', 'xdsBootstrap', 'xdsServeEndToEnd', 'xdsServeFlags'),
    ...files('test/cli', 'simulateSchedule', 'strategyLimits', 'testbedCommand', 'timeoutsEval'),
    ...files(
      'test/cli',
      'oneLineErrors',
      'ui',
      'fromTraces',
      'shardMerge',
      'meshGrafana',
      'meshJob',
    ),
    ...files('test/cli', 'timeoutsFit', 'tune', 'undefinedCells', 'verifyUniqueness', 'version'),
    ...files('test/mesh', 'edgeHardening', 'edgePathBypass', 'pipelinedRequests'),
    ...files('test/mesh', 'requestEdgeCases', 'slowPeers'),
    ...files('test/mesh', 'sidecarInbound', 'sidecarLimits'),
    ...files('test/mesh', 'sidecarMetricsAndShutdown', 'sidecarOutbound', 'sidecarTelemetry'),
    ...files('test/package', 'browserModel', 'packageLint', 'packaging', 'api/apiReport'),
    ...files('test/runtime', 'edgeTarget', 'fetch', 'grpc', 'http', 'undici'),
    ...files('test/runtime/telemetry', 'adapterTelemetry'),
    ...files('test/scripts', 'soakClient', 'soakTraffic'),
    ...files('test/testbed', 'grpcXds', 'network', 'sendTimeCount', 'service', 'testbedTraces'),
    ...files('test/xds', 'grpcClients', 'xdsServerLimits'),
    ...files('examples', 'fetch-client'),
  ],
  exclude: [...configDefaults.exclude],
};

/**
 * The web UI in a real browser (Debian's Chromium through playwright-core): each file builds the
 * page, serves it with the `difftry ui` server and drives it. Skipped, saying so, without Chromium.
 */
const browser = {
  include: ['test/ui/**/*.test.ts'],
  exclude: [...configDefaults.exclude],
};

/** Everything else: pure, in-process tests. */
const unit = {
  include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
  exclude: [...configDefaults.exclude, ...integration.include, ...browser.include],
};

export default defineConfig({
  // test/web runs the web UI's modules, which import the package by its subpaths (`difftry/model`,
  // …): resolved to the repository's src/ as the page's build resolves them.
  resolve: { alias: webAliases() },
  test: {
    // Inherited by both projects (`extends: true`).
    setupFiles: ['test/setup.ts'],
    // One worker per core. Vitest's default in a run is one fewer: on the two-core reference
    // machine, a single worker for the whole suite and a core idle. With two, the suite took
    // 161 s there, the browser suite included (one worker: 256 s without it).
    maxWorkers: availableParallelism(),
    projects: [
      {
        extends: true,
        // Short, to end a hang fast; the slowest unit tests (the validations re-run in
        // test/scripts/validateCalls.test.ts) take up to 10 s on two busy cores. Unit tests share
        // their workers' modules (`isolate: false`): each file no longer loads the model, the
        // simulator and zod afresh, and the code JIT-compiled for one file serves the next: on
        // one worker, 187 s of CPU isolated, 122 s shared. A unit test leaves no global state
        // behind (its mocks restored, its fake timers undone); one that cannot belongs to
        // `integration`.
        test: { name: 'unit', ...unit, testTimeout: 20_000, isolate: false },
      },
      {
        extends: true,
        // Shared modules too: a file that mocks a module imports afresh and undoes its mock
        // (test/cli/exitCodes.test.ts); servers and processes are each file's own, closed in its
        // hooks.
        test: {
          name: 'integration',
          ...integration,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          isolate: false,
        },
      },
      {
        extends: true,
        // One Chromium at a time on two cores; building the page takes a while in beforeAll.
        test: {
          name: 'browser',
          ...browser,
          testTimeout: 90_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
