/**
 * Retry conformance: the same scripted attempt outcomes through every executor — `retry()`,
 * `difftryFetch`, the undici interceptor, the gRPC interceptor, the sidecar and the simulator —
 * must give identical decisions, delays and events: the hand-written lists of scripts.ts. Real
 * sockets on 127.0.0.1 (port 0) and real timers with small delays; delays are compared as the
 * engine decided them, never as measured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchHarness } from './fetchHarness.js';
import { grpcHarness } from './grpcHarness.js';
import type { Harness } from './harness.js';
import { retryHarness } from './retryHarness.js';
import { expectedEvents, type Scenario, scenarios } from './scripts.js';
import { sidecarHarness } from './sidecarHarness.js';
import { simulatorHarness } from './simulatorHarness.js';
import { undiciHarness } from './undiciHarness.js';

/**
 * Why an executor cannot run a scenario, as it stands: it refuses the script, or plays it
 * with other events. A gap is a test too: it fails once the executor agrees, so that the gap is
 * taken off this list.
 */
type Gap = { readonly gap: string };

/**
 * Which executor runs which scenario: every scenario, except those listed here, each with the
 * one-line reason for the gap.
 */
const SUPPORT: ReadonlyArray<{ readonly harness: Harness; readonly gaps: Record<number, Gap> }> = [
  { harness: retryHarness, gaps: {} },
  { harness: fetchHarness, gaps: {} },
  { harness: undiciHarness, gaps: {} },
  { harness: grpcHarness, gaps: {} },
  {
    harness: sidecarHarness,
    gaps: {
      7: { gap: 'the sidecar config has no retry budget' },
      // 9 runs (events, the caller's abort ends the sidecar's call); its budget check cannot.
    },
  },
  {
    harness: simulatorHarness,
    gaps: {
      1: { gap: 'rejections follow the queue of other calls: 503, 503, 200 is not scriptable' },
      2: { gap: 'the simulator has no network errors' },
      3: { gap: 'the abandoned attempt keeps the one server busy, so its retry times out too' },
      4: { gap: 'simulated rejections carry no Retry-After' },
      5: { gap: 'simulated rejections carry no Retry-After' },
      8: { gap: 'the simulator has no call deadlines' },
      9: { gap: 'a simulated call cannot be aborted' },
    },
  },
];

const TEST_TIMEOUT_MS = 10_000;

describe.each(SUPPORT)('$harness.name', ({ harness, gaps }) => {
  beforeAll(() => harness.setup());
  afterAll(() => harness.teardown());

  const cases = scenarios.map((scenario) => ({ scenario, gap: gaps[scenario.id] }));
  const run = async (scenario: Scenario) => {
    const events = await harness.run(scenario);
    expect(events).toEqual(expectedEvents(scenario, harness.transport));
  };

  /** The gap holds: the executor refuses the scenario, or its events are not the expected. */
  const runsOtherwise = async (scenario: Scenario) => {
    let events: Awaited<ReturnType<Harness['run']>>;
    try {
      events = await harness.run(scenario);
    } catch {
      return;
    }
    expect(events).not.toEqual(expectedEvents(scenario, harness.transport));
  };

  for (const { scenario, gap } of cases) {
    const title = `${scenario.id}. ${scenario.name}`;
    if (gap === undefined) it(title, { timeout: TEST_TIMEOUT_MS }, () => run(scenario));
    else {
      it(`${title} — gap: ${gap.gap}`, { timeout: TEST_TIMEOUT_MS }, () => runsOtherwise(scenario));
    }
  }
});
