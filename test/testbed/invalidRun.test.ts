import { describe, expect, it } from 'vitest';
import type { TestbedMeasurement } from '../../src/testbed/experiment/measureTestbed.js';
import { invalidRun } from '../../src/testbed/experiment/runValidity.js';
import { poissonCheck } from '../../src/testbed/load/poissonCheck.js';

/** A measurement with just what `invalidRun` reads. */
function measured(times: number[], stallMs: number, unfinished = 0): TestbedMeasurement {
  return {
    streams: [{ className: 'low', poisson: poissonCheck(times) }],
    eventLoopDelay: { meanMs: 0, p99Ms: 0, maxMs: stallMs },
    unfinished,
    graceS: 20,
  } as unknown as TestbedMeasurement;
}

const exponential = (n: number) => {
  // Gaps −ln(1 − u) on a fixed grid of u: exponential quantiles, CV ≈ 1.
  const times = [0];
  for (let i = 0; i < n; i++) {
    const u = (((i * 7919) % n) + 0.5) / n;
    times.push((times[i] as number) - Math.log1p(-u));
  }
  return times;
};

describe('invalidRun', () => {
  it('accepts Poisson sends and a loop without long stalls', () => {
    expect(invalidRun(measured(exponential(2000), 40), 250)).toBeUndefined();
  });

  it('rejects bursty sends, naming the stream and its verdict', () => {
    const bursty = Array.from({ length: 2000 }, (_, i) => Math.floor(i / 8) * 64);
    expect(invalidRun(measured(bursty, 40), 250)).toMatch(/not Poisson \(low: CV .*bursty/);
  });

  it('rejects a run whose window left requests unfinished after the drain', () => {
    expect(invalidRun(measured(exponential(2000), 40, 3), 250)).toMatch(
      /3 request\(s\) sent in the window still unfinished after the 20 s drain/,
    );
  });

  it('rejects a stall of the services’ event loop', () => {
    expect(invalidRun(measured(exponential(2000), 400), 250)).toMatch(/stalled for 400 ms/);
  });
});
