import { describe, expect, it } from 'vitest';
import {
  bestSingleTimeout,
  empiricalLatency,
  geometricPoints,
  linearCost,
  optimizeTimeouts,
} from '../../../src/model/timeouts/index.js';

// Found by the CLI fuzzing (test/fuzz): `difftry timeouts fit` on the samples 1e-300 and 5e-324 s
// (--cost 10) never ended, and on 5e-324 and 0.1 s failed with "timeout should be a positive
// number of seconds, got NaN". The golden-section search could not meet 1e-9 × b once b was
// subnormal (the product underflows to 0, b − a stays one ulp), and the grid's ratio
// log(high / low) overflowed for a range wider than 1e308. The vitest timeout is the bound: the
// first case ran for ever before the fix.

const samples = (...latencies: number[]) =>
  empiricalLatency(latencies.map((latency) => ({ latency })));

describe('timeouts on subnormal and extreme latency samples', { timeout: 10_000 }, () => {
  it.each([
    [[1e-300, 5e-324], 10],
    [[5e-324], 0],
    [[5e-324, 0.1], 0],
    [[5e-324, 1e300], 1],
  ])('bestSingleTimeout(%j, c1 = %d) ends with a positive finite timeout', (latencies, c1) => {
    const { timeout, E } = bestSingleTimeout(samples(...latencies), linearCost({ c1 }));
    expect({
      latencies,
      timeout: timeout > 0 && Number.isFinite(timeout),
      E: E >= 0,
    }).toStrictEqual({
      latencies,
      timeout: true,
      E: true,
    });
  });

  it('optimizeTimeouts on 5e-324 and 0.1 s gives a finite increasing sequence', () => {
    const result = optimizeTimeouts(samples(5e-324, 0.1), {
      depth: 4,
      cost: linearCost({ c1: 0 }),
    });
    expect(result.sequence.every((t) => t > 0 && Number.isFinite(t))).toBe(true);
    expect([...result.sequence].sort((a, b) => a - b)).toStrictEqual(result.sequence);
  });

  it('geometricPoints spans 5e-324 to 0.1 without NaN', () => {
    const points = [...geometricPoints(5e-324, 0.1, 5)];
    expect(points.every(Number.isFinite)).toBe(true);
    expect(points[0]).toBe(5e-324);
    expect(points[4]).toBe(0.1);
  });
});
