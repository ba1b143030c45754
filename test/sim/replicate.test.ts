import { describe, expect, it } from 'vitest';
import { replicateSingleService } from '../../src/sim/replicate.js';
import type { SingleServiceConfig } from '../../src/sim/SingleServiceConfig.js';
import { simulateSingleService } from '../../src/sim/singleService.js';

const config: SingleServiceConfig = {
  capacity: 143,
  queue: 50,
  classes: [
    { name: 'high', arrivalRate: 50, retryLimit: 5 },
    { name: 'low', arrivalRate: 250, retryLimit: 1 },
  ],
  duration: 20,
  seed: 11,
};

describe('replicateSingleService', () => {
  it('puts a Ci95 beside every figure, flat', () => {
    const result = replicateSingleService(config, 4);
    expect(result.replications).toBe(4);
    expect(result.duration).toBe(20);
    expect(result.warmup).toBe(2);
    for (const field of ['s', 'rho', 'meanInSystem', 'throughput', 'meanSojourn'] as const) {
      expect(result[field], field).toBeGreaterThan(0);
      expect(result[`${field}Ci95`], field).toBeGreaterThanOrEqual(0);
    }
    const high = result.classes.high;
    if (high === undefined) throw new Error('class missing');
    expect(Object.keys(result.classes)).toEqual(['high', 'low']);
    for (const [key, value] of Object.entries(high)) {
      expect(Number.isFinite(value), key).toBe(true);
      if (!key.endsWith('Ci95')) expect(high, key).toHaveProperty(`${key}Ci95`);
    }
    expect(high.latencyP50).toBeLessThanOrEqual(high.latencyP90);
    expect(high.latencyP90).toBeLessThanOrEqual(high.latencyP99);
    expect(high.latencyP99).toBeLessThanOrEqual(high.latencyP999);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it('replication r is the run on substream r, and the mean is over replications', () => {
    const result = replicateSingleService(config, 3);
    const runs = [0, 1, 2].map((stream) => simulateSingleService({ ...config, stream }));
    const meanRejection = runs.reduce((sum, run) => sum + (run.classes.low?.rejection ?? 0), 0) / 3;
    expect(result.classes.low?.rejection).toBeCloseTo(meanRejection, 12);
    expect(result.events).toBe(runs.reduce((sum, run) => sum + run.events, 0));
    // Pooled percentiles lie within the spread of the per-replication ones.
    const p99 = runs.map((run) => run.classes.high?.latencyP99 ?? Number.NaN);
    expect(result.classes.high?.latencyP99).toBeGreaterThanOrEqual(Math.min(...p99) * 0.999);
    expect(result.classes.high?.latencyP99).toBeLessThanOrEqual(Math.max(...p99) * 1.001);
  });

  it('is reproducible and reports progress up to 1', () => {
    const fractions: number[] = [];
    const first = replicateSingleService(config, 2, { onProgress: (f) => fractions.push(f) });
    expect(replicateSingleService(config, 2)).toEqual(first);
    expect(fractions.at(-1)).toBe(1);
    for (let i = 1; i < fractions.length; i++) {
      expect(fractions[i]).toBeGreaterThanOrEqual(fractions[i - 1] as number);
    }
  });

  it('has NaN half-widths (null in JSON) with one replication', () => {
    const result = replicateSingleService(config, 1);
    expect(result.sCi95).toBeNaN();
    expect(result.classes.high?.rejectionCi95).toBeNaN();
    expect(() => replicateSingleService(config, 0)).toThrow(RangeError);
  });
});
