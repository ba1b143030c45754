import { describe, expect, it } from 'vitest';
import { exponentialBackoffTimeouts } from '../../../src/policy/timeouts/index.js';

describe('exponentialBackoffTimeouts', () => {
  it('is 1.2·L0·2^i for 5 elements, the last repeating', () => {
    const backoff = exponentialBackoffTimeouts({ startingLatencyMs: 40 });
    expect(backoff.sequence()).toEqual([48, 96, 192, 384, 768]);
    expect([0, 1, 4, 5, 1000].map((i) => backoff.next(i))).toEqual([48, 96, 768, 768, 768]);
  });

  it('takes the first element itself from startMs, and its shape from the options', () => {
    expect(exponentialBackoffTimeouts({ startMs: 100 }).sequence()).toEqual([
      100, 200, 400, 800, 1600,
    ]);
    expect(
      exponentialBackoffTimeouts({
        startingLatencyMs: 10,
        factor: 3,
        elements: 3,
        headroom: 2,
      }).sequence(),
    ).toEqual([20, 60, 180]);
  });

  it('ignores observations when the start is given', () => {
    const backoff = exponentialBackoffTimeouts({ startMs: 100 });
    for (let i = 0; i < 50; i++) backoff.observe('success', 1);
    expect(backoff.next(0)).toBe(100);
  });

  it('learns L0 as the median of the first 20 successes, starting at 1 s meanwhile', () => {
    const backoff = exponentialBackoffTimeouts();
    expect(backoff.sequence()).toEqual([1000, 2000, 4000, 8000, 16000]);
    for (let latencyMs = 1; latencyMs <= 19; latencyMs++) {
      backoff.observe('success', latencyMs);
      backoff.observe('timeout', 1000);
      backoff.observe('failure', 0.5);
    }
    expect(backoff.state()).toMatchObject({ startingLatencyMs: undefined, collected: 19 });
    expect(backoff.next(0)).toBe(1000);
    backoff.observe('success', 20);
    // median of 1..20 = 10.5; 1.2 × 10.5 = 12.6
    expect(backoff.state()).toMatchObject({ startingLatencyMs: 10.5, collected: 0 });
    expect(backoff.sequence().map((t) => t / 12.6)).toEqual(
      [1, 2, 4, 8, 16].map((ratio) => expect.closeTo(ratio, 12)),
    );
    backoff.observe('success', 5000);
    expect(backoff.state().startingLatencyMs).toBe(10.5);
  });

  it('keeps its timeouts positive when every latency learnt is 0', () => {
    const backoff = exponentialBackoffTimeouts({ learnFrom: 1 });
    backoff.observe('success', 0);
    expect(backoff.next(0)).toBeGreaterThan(0);
  });

  it('rejects bad options, naming them', () => {
    expect(() => exponentialBackoffTimeouts({ startMs: 1, startingLatencyMs: 1 })).toThrow(
      /startMs or startingLatencyMs/,
    );
    expect(() => exponentialBackoffTimeouts({ elements: 0 })).toThrow(/elements/);
    expect(() => exponentialBackoffTimeouts({ factor: 0.5 })).toThrow(/factor/);
    expect(() => exponentialBackoffTimeouts({ startingLatencyMs: -1 })).toThrow(RangeError);
  });
});
