import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { attemptNoise, noNoise } from '../../../src/experiments/timeouts/latencyNoise.js';
import { startApp2 } from '../../../src/experiments/timeouts/live/app2.js';
import { evaluateTimeoutsLive } from '../../../src/experiments/timeouts/live/evaluateLive.js';
import { evaluateTimeoutSuiteLive } from '../../../src/experiments/timeouts/live/evaluateLiveSuite.js';
import { scenarioRun } from '../../../src/experiments/timeouts/scenarioRun.js';
import { timeoutScenario } from '../../../src/experiments/timeouts/scenarios.js';
import { seededRandom } from '../../../src/model/random.js';
import {
  fixedTimeout,
  type TimeoutObservation,
  type TimeoutStrategy,
} from '../../../src/policy/timeouts/TimeoutStrategy.js';

/** A tiny stable run without noise: 100 ms per attempt in scenario time. */
function flatRun(requests: number, initRequests: number, maxAttempts: number) {
  const scenario = timeoutScenario('stable', { requests, initRequests });
  const noise = attemptNoise(noNoise, { requests, attempts: maxAttempts, random: seededRandom(1) });
  return { scenario, noise, maxAttempts, strategyRandom: () => seededRandom(1) };
}

describe('live App1 → App2 on loopback (bounded, tiny time scale)', () => {
  it('a timeout far above the curve: every request succeeds at once', async () => {
    const result = await evaluateTimeoutsLive({
      run: flatRun(12, 2, 20),
      strategy: fixedTimeout(10_000),
      timeScale: 0.1,
    });
    expect(result).toMatchObject({ requests: 10, attempts: 10, timedOutAttempts: 0 });
    // App2 sleeps 10 ms a request; the loopback adds a little, and a timer never fires much early.
    expect(result.timeFraction).toBeGreaterThan(0.9);
    expect(result.curveIntegralS).toBeCloseTo(1, 12);
    // Less the measured overhead, the run costs exactly App2's sleeps: Time Fraction 1.
    expect(result.timeFraction - result.overheadFraction).toBeCloseTo(1, 9);
  });

  it('a timeout at half the curve: two real timeouts, then the capped attempt waits', async () => {
    const calls: string[] = [];
    const strategy: TimeoutStrategy = {
      next: () => 50,
      observe: (outcome: TimeoutObservation, latencyMs: number) => {
        calls.push(outcome === 'timeout' ? `timeout ${latencyMs}` : outcome);
        if (outcome === 'success') expect(latencyMs).toBeGreaterThan(50);
      },
    };
    const result = await evaluateTimeoutsLive({
      run: flatRun(6, 1, 3),
      strategy,
      timeScale: 0.1,
    });
    expect(result).toMatchObject({
      requests: 5,
      attempts: 15,
      timedOutAttempts: 10,
      cappedRequests: 5,
    });
    // The strategy lives in scenario ms: it is told 50, not the 5 ms armed on the real timer.
    expect(calls.slice(0, 3)).toEqual(['timeout 50', 'timeout 50', 'success']);
    // At least 2 × 50 + 100 ms of scenario time per request.
    expect(result.timeFraction).toBeGreaterThan(1.8);
    // By design 2 × 50 + 100 ms per request: Time Fraction 2 less the overhead.
    expect(result.timeFraction - result.overheadFraction).toBeCloseTo(2, 9);
  });

  it('runs a heavy-tailed suite concurrently, on the virtual run’s curves and noise', async () => {
    const rows = await evaluateTimeoutSuiteLive({
      seed: 2,
      scenarios: ['spikes', 'dips'],
      strategies: ['fixed'],
      createStrategy: () => fixedTimeout(600),
      requests: 20,
      timeScale: 0.02,
    });
    expect(rows.map((r) => `${r.scenario} ${r.requests}`)).toEqual(['spikes 18', 'dips 18']);
    const run = scenarioRun('dips', { seed: 2, requests: 20 });
    expect(rows[1]?.curveIntegralS).toBeCloseTo(
      Array.from({ length: 18 }, (_, i) => run.scenario.curve(i + 2)).reduce((a, b) => a + b),
      12,
    );
  });

  it('App2 answers 400 to a request outside the scenario, and is gone once closed', async () => {
    const run = flatRun(2, 0, 1);
    const app2 = await startApp2({ scenario: run.scenario, noise: run.noise, timeScale: 0.01 });
    const bad = await request(`${app2.url}?request=5&attempt=0`);
    expect(bad.statusCode).toBe(400);
    expect(await bad.body.text()).toMatch(/\[0, 2\)/);
    const good = await request(`${app2.url}?request=1&attempt=0`);
    expect([good.statusCode, await good.body.text()]).toEqual([200, 'ok']);
    expect(app2.answered()).toBe(1);
    await app2.close();
    await expect(request(`${app2.url}?request=1&attempt=0`)).rejects.toThrow();
  });
});
