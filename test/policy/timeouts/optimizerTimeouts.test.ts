import { describe, expect, it, vi } from 'vitest';
import { seededRandom } from '../../../src/model/random.js';
import { linearCost } from '../../../src/model/timeouts/index.js';
import type { LatencySample } from '../../../src/model/timeouts/LatencyDistribution.js';
import {
  type OptimizeRequest,
  optimizerTimeouts,
  type TimeoutOptimizer,
} from '../../../src/policy/timeouts/index.js';

/** A stand-in Optimizer that records its calls and answers `answer` (seconds). */
function recordingOptimizer(answer: readonly number[] = [0.01, 0.02, 0.05]) {
  const calls: { samples: readonly LatencySample[]; request: OptimizeRequest }[] = [];
  const optimize: TimeoutOptimizer = (samples, request) => {
    calls.push({ samples, request });
    return { sequence: answer, E0: 0.015 };
  };
  return { calls, optimize };
}

/**
 * A bimodal stream (ms): 80 % uniform in [9, 11], 20 % uniform in [95, 105]; the first mode's
 * upper tail is 11 ms.
 */
function bimodal(seed: number): () => number {
  const random = seededRandom(seed);
  return () => (random() < 0.8 ? 9 + 2 * random() : 95 + 10 * random());
}

describe('optimizerTimeouts', () => {
  it('gives initialMs to every attempt until the first recompute', () => {
    const { calls, optimize } = recordingOptimizer();
    const optimizer = optimizerTimeouts({ initialMs: 250, recomputeEvery: 10, optimize });
    for (let i = 0; i < 9; i++) optimizer.observe('success', 5);
    expect(calls).toHaveLength(0);
    expect([0, 1, 7].map((i) => optimizer.next(i))).toEqual([250, 250, 250]);
    optimizer.observe('success', 5);
    expect(calls).toHaveLength(1);
    expect([0, 1, 2, 3, 100].map((i) => optimizer.next(i))).toEqual([10, 20, 50, 50, 50]);
    expect(optimizer.state()).toMatchObject({ expectedLatencyS: 0.015, lastProblem: undefined });
  });

  it('recomputes every N buffered observations; failures are not buffered', () => {
    const { calls, optimize } = recordingOptimizer();
    const optimizer = optimizerTimeouts({ recomputeEvery: 10, optimize });
    for (let i = 0; i < 35; i++) {
      optimizer.observe(i % 5 === 0 ? 'timeout' : 'success', 10 + i);
      optimizer.observe('failure', 1);
    }
    expect(calls).toHaveLength(3);
    expect(optimizer.state()).toMatchObject({ observations: 35, buffered: 35, recomputes: 3 });
  });

  it('hands the Optimizer seconds, timeouts censored, the oldest first, and its options', () => {
    const { calls, optimize } = recordingOptimizer();
    const cost = linearCost({ c1: 0.1 });
    const optimizer = optimizerTimeouts({
      recomputeEvery: 3,
      bufferSize: 3,
      depth: 3,
      tzMs: 2500,
      cost,
      optimize,
    });
    optimizer.observe('success', 100);
    optimizer.observe('timeout', 200);
    optimizer.observe('success', 300);
    optimizer.observe('success', 400);
    optimizer.observe('success', 500);
    optimizer.observe('success', 600);
    expect(calls[0]?.samples).toEqual([
      { latency: 0.1, censored: false },
      { latency: 0.2, censored: true },
      { latency: 0.3, censored: false },
    ]);
    // The buffer keeps the last 3.
    expect(calls[1]?.samples.map((sample) => sample.latency)).toEqual([0.4, 0.5, 0.6]);
    expect(calls[0]?.request).toEqual({ depth: 3, tz: 2.5, cost });
  });

  it('weights the i-th oldest sample i under recency weights', () => {
    const { calls, optimize } = recordingOptimizer();
    const optimizer = optimizerTimeouts({
      recomputeEvery: 4,
      bufferSize: 3,
      weights: 'recency',
      optimize,
    });
    for (const latencyMs of [10, 20, 30, 40]) optimizer.observe('success', latencyMs);
    expect(calls[0]?.samples).toEqual([
      { latency: 0.02, censored: false, weight: 1 },
      { latency: 0.03, censored: false, weight: 2 },
      { latency: 0.04, censored: false, weight: 3 },
    ]);
    expect(calls[0]?.request).toEqual({ depth: 4 });
  });

  it('makes the sequence non-decreasing and clamps it to maxMs', () => {
    const optimizer = optimizerTimeouts({
      recomputeEvery: 1,
      maxMs: 150,
      optimize: () => ({ sequence: [0.1, 0.05, 0.2] }),
    });
    optimizer.observe('success', 10);
    expect(optimizer.sequence()).toEqual([100, 100, 150]);
  });

  it('keeps its sequence when the Optimizer throws or answers nonsense, and says why', () => {
    let answer: () => { sequence: readonly number[] } = () => ({ sequence: [0.01, 0.03] });
    const optimizer = optimizerTimeouts({ recomputeEvery: 1, optimize: () => answer() });
    optimizer.observe('success', 10);
    expect(optimizer.sequence()).toEqual([10, 30]);
    answer = () => {
      throw new RangeError('tz below every latency');
    };
    optimizer.observe('success', 10);
    expect(optimizer.sequence()).toEqual([10, 30]);
    expect(optimizer.state().lastProblem).toMatch(/threw: tz below every latency/);
    for (const sequence of [[], [Number.NaN], [0, 0.1], [0.1, Number.POSITIVE_INFINITY]]) {
      answer = () => ({ sequence });
      optimizer.observe('success', 10);
      expect(optimizer.sequence(), String(sequence)).toEqual([10, 30]);
      expect(optimizer.state().lastProblem).toMatch(/no positive finite sequence/);
    }
  });

  it('doubles its sequence when every buffered attempt timed out', () => {
    const { calls, optimize } = recordingOptimizer();
    const optimizer = optimizerTimeouts({
      initialMs: 100,
      maxMs: 500,
      recomputeEvery: 2,
      optimize,
    });
    const seen = [1, 2, 3, 4].map(() => {
      optimizer.observe('timeout', optimizer.next(0));
      optimizer.observe('timeout', optimizer.next(1));
      return optimizer.next(0);
    });
    expect(seen).toEqual([200, 400, 500, 500]);
    expect(calls).toHaveLength(0);
    expect(optimizer.state().lastProblem).toMatch(/no uncensored sample/);
  });

  it('times recomputes with the injected clock only', () => {
    let nowMs = 0;
    const clock = vi.fn(() => {
      nowMs += 5;
      return nowMs;
    });
    const timed = optimizerTimeouts({
      recomputeEvery: 2,
      clock,
      optimize: recordingOptimizer().optimize,
    });
    expect(timed.recomputeTimeMs).toBe(0);
    for (let i = 0; i < 4; i++) timed.observe('success', 10);
    expect(clock).toHaveBeenCalledTimes(4);
    expect(timed.state().lastRecomputeMs).toBe(5);
    expect(timed.recomputeTimeMs).toBe(10);
    const untimed = optimizerTimeouts({
      recomputeEvery: 2,
      optimize: recordingOptimizer().optimize,
    });
    for (let i = 0; i < 4; i++) untimed.observe('success', 10);
    expect(untimed.recomputeTimeMs).toBeUndefined();
    expect(untimed.state().lastRecomputeMs).toBeUndefined();
  });

  it('with the model: a bimodal stream gives an increasing sequence starting at the first mode’s upper tail', () => {
    const draw = bimodal(7);
    const optimizer = optimizerTimeouts({ tzMs: 500 });
    // Requests as retry() runs them: attempts until one completes within its timeout.
    for (let request = 0; request < 2000; request++) {
      for (let attempt = 0; ; attempt++) {
        const timeoutMs = optimizer.next(attempt);
        const latencyMs = draw();
        if (latencyMs <= timeoutMs) {
          optimizer.observe('success', latencyMs);
          break;
        }
        optimizer.observe('timeout', timeoutMs);
      }
    }
    const sequence = optimizer.sequence();
    const report = JSON.stringify({ sequence, state: optimizer.state() });
    expect(sequence.length, report).toBeGreaterThan(1);
    for (let i = 1; i < sequence.length; i++) {
      expect(sequence[i], report).toBeGreaterThan(sequence[i - 1] as number);
    }
    // Past the first mode (≤ 11 ms), well short of the second (≥ 95 ms); kernel smoothing
    // spreads the mode's edge by a few per cent.
    expect(sequence[0], report).toBeGreaterThan(10.5);
    expect(sequence[0], report).toBeLessThan(15);
    expect(sequence[sequence.length - 1], report).toBe(500);
  });

  it('rejects bad options, naming them', () => {
    expect(() => optimizerTimeouts({ depth: 0 })).toThrow(/depth/);
    expect(() => optimizerTimeouts({ bufferSize: 1.5 })).toThrow(/bufferSize should be an integer/);
    expect(() => optimizerTimeouts({ recomputeEvery: 0 })).toThrow(/recomputeEvery/);
    expect(() => optimizerTimeouts({ tzMs: -1 })).toThrow(/tzMs/);
    expect(() => optimizerTimeouts({ weights: 'newest' as 'recency' })).toThrow(/weights/);
    expect(() => optimizerTimeouts({ initialMs: 2000, maxMs: 1000 })).toThrow(/initialMs/);
  });
});
