import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/model/random.js';
import type { LatencySample } from '../../../src/model/timeouts/LatencyDistribution.js';
import {
  combinedTimeouts,
  type OptimizeRequest,
  type TimeoutOptimizer,
} from '../../../src/policy/timeouts/index.js';

/** A stand-in Optimizer: t_0 = 10 ms, t_1 = 20 ms, then the ceiling it is given. */
function recordingOptimizer() {
  const calls: { samples: readonly LatencySample[]; request: OptimizeRequest }[] = [];
  const optimize: TimeoutOptimizer = (samples, request) => {
    calls.push({ samples, request });
    return { sequence: [0.01, 0.02, request.tz ?? 1] };
  };
  return { calls, optimize };
}

describe('combinedTimeouts', () => {
  it('makes every M-th request diagnostic, the first included', () => {
    const combined = combinedTimeouts({ diagnosticEvery: 4 });
    expect([0, 1, 2, 3, 4, 8, 9].map((i) => combined.isDiagnostic(i))).toEqual([
      true,
      false,
      false,
      false,
      true,
      true,
      false,
    ]);
    expect(Array.from({ length: 9 }, () => combined.beginRequest().diagnostic)).toEqual([
      true,
      false,
      false,
      false,
      true,
      false,
      false,
      false,
      true,
    ]);
    expect(combinedTimeouts().isDiagnostic(20)).toBe(true);
    expect(combinedTimeouts().isDiagnostic(10)).toBe(false);
  });

  it('gives diagnostic requests the long timeout; their latency moves the ceiling', () => {
    const combined = combinedTimeouts({ controller: { initialMs: 100 } });
    const request = combined.beginRequest();
    expect(request.diagnostic).toBe(true);
    expect([0, 1, 5].map((i) => combined.next(i))).toEqual([60_000, 60_000, 60_000]);
    combined.observe('success', 500);
    // α = 1/4 towards k·L = 1500: 100 + (1500 − 100)/4
    expect(combined.state().ceilingMs).toBe(450);
    expect(combined.state().optimizer.observations).toBe(1);
  });

  it('ordinary requests: the Optimizer shapes the early timeouts, the Controller sets the last', () => {
    const { calls, optimize } = recordingOptimizer();
    const combined = combinedTimeouts({
      diagnosticEvery: 1000,
      controller: { initialMs: 100 },
      optimizer: { recomputeEvery: 5, optimize },
    });
    combined.beginRequest(); // the diagnostic request 0
    combined.observe('success', 200); // ceiling 100 + (600 − 100)/4 = 225
    expect(combined.beginRequest().diagnostic).toBe(false);
    // Before the first recompute every attempt gets the ceiling.
    expect([0, 1, 2].map((i) => combined.next(i))).toEqual([225, 225, 225]);
    for (let i = 0; i < 4; i++) combined.observe('success', 8);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.request).toEqual({ depth: 4, tz: 0.225 });
    // Recency weights: the i-th oldest weighs i.
    expect(calls[0]?.samples.map((sample) => sample.weight)).toEqual([1, 2, 3, 4, 5]);
    combined.beginRequest();
    expect([0, 1, 2, 3, 10].map((i) => combined.next(i))).toEqual([10, 20, 225, 225, 225]);
    expect(combined.sequence()).toEqual([10, 20, 225]);
    // Ordinary successes and early timeouts leave the Controller alone.
    combined.next(0);
    combined.observe('timeout', 10);
    combined.observe('success', 1);
    expect(combined.state().controller).toMatchObject({ timeoutMs: 225, successes: 1 });
  });

  it('a timeout at the ceiling widens it at once (slow start), before any diagnostic request', () => {
    const combined = combinedTimeouts({
      diagnosticEvery: 1000,
      controller: { initialMs: 100 },
      optimizer: { recomputeEvery: 1000, optimize: recordingOptimizer().optimize },
    });
    combined.beginRequest();
    combined.observe('success', 40); // ceiling 100 + (120 − 100)/4 = 105
    combined.beginRequest();
    const timeouts = [0, 1, 2].map((attempt) => {
      const timeoutMs = combined.next(attempt);
      combined.observe('timeout', timeoutMs);
      return timeoutMs;
    });
    expect(timeouts).toEqual([105, 210, 420]);
    expect(combined.state().controller).toMatchObject({ phase: 'slow-start', timeouts: 3 });
  });

  it('caps the early timeouts at a ceiling that fell below them', () => {
    const combined = combinedTimeouts({
      diagnosticEvery: 2,
      controller: { initialMs: 100, minMs: 1 },
      optimizer: {
        recomputeEvery: 1,
        optimize: (_samples, request) => ({ sequence: [0.05, 0.08, request.tz ?? 1] }),
      },
    });
    combined.beginRequest();
    combined.observe('success', 50); // ceiling 100 + (150 − 100)/4 = 112.5; sequence [50, 80, 112.5]
    combined.beginRequest();
    expect(combined.sequence()).toEqual([50, 80, 112.5]);
    combined.beginRequest();
    combined.observe('success', 1); // diagnostic: 112.5 − (112.5 − 3)/4 = 85.125
    expect(combined.sequence()).toEqual([50, 80, 85.125]);
    combined.beginRequest();
    combined.beginRequest();
    combined.observe('success', 1); // 85.125 − (85.125 − 3)/4 = 64.59375
    expect(combined.sequence()).toEqual([50, 64.59375, 64.59375]);
  });

  it('escalates to the ceiling after a request got through only there, and comes back on a fast success', () => {
    const combined = combinedTimeouts({
      diagnosticEvery: 1000, // request 0 is the only diagnostic one here
      controller: { initialMs: 400, minMs: 1 },
      optimizer: {
        recomputeEvery: 1,
        optimize: (_samples, request) => ({ sequence: [0.05, 0.1, request.tz ?? 1] }),
      },
    });
    const diagnostic = combined.beginRequest();
    diagnostic.observe('success', 30); // ceiling 400 − (400 − 90)/4 = 322.5
    expect(combined.sequence()).toEqual([50, 100, 322.5]);
    // A spike: the early timeouts both expire and the request gets through only at the ceiling.
    const spiked = combined.beginRequest();
    expect(spiked.next(0)).toBe(50);
    spiked.observe('timeout', 50);
    expect(spiked.next(1)).toBe(100);
    spiked.observe('timeout', 100);
    expect(spiked.next(2)).toBe(322.5);
    spiked.observe('success', 250);
    // The next request starts at the ceiling rather than burning its early timeouts again.
    const next = combined.beginRequest();
    expect(next.next(0)).toBe(322.5);
    expect(combined.state()).toMatchObject({ escalated: true });
    next.observe('success', 240); // still slow: stays escalated
    expect(combined.beginRequest().next(0)).toBe(322.5);
    combined.observe('success', 40); // as fast as the first early timeout: the spike is over
    expect(combined.state()).toMatchObject({ escalated: false });
    expect(combined.beginRequest().next(0)).toBe(50);
  });

  it('without beginRequest, next(0) begins a request once the current one has begun', () => {
    const combined = combinedTimeouts({ diagnosticEvery: 3 });
    // retry() calls: next(0), observe, next(1), observe, … per call.
    expect(combined.next(0)).toBe(60_000); // request 0: diagnostic
    combined.observe('timeout', 60_000);
    expect(combined.next(1)).toBe(60_000); // still request 0
    combined.observe('success', 100);
    combined.next(0); // request 1
    combined.observe('success', 100);
    combined.next(0); // request 2
    combined.observe('success', 100);
    expect(combined.next(0)).toBe(60_000); // request 3: diagnostic
    expect(combined.state()).toMatchObject({ requests: 4, diagnostic: true });
    // beginRequest followed by next(0) is one request, as the simulator makes them.
    combined.observe('success', 100);
    combined.beginRequest();
    combined.next(0);
    expect(combined.state().requests).toBe(5);
  });

  it('attributes each observation to its own request through the handles', () => {
    const combined = combinedTimeouts({ diagnosticEvery: 2, controller: { initialMs: 100 } });
    const diagnostic = combined.beginRequest();
    const ordinary = combined.beginRequest();
    expect([diagnostic.diagnostic, ordinary.diagnostic]).toEqual([true, false]);
    expect(ordinary.next(0)).toBe(100);
    expect(diagnostic.next(0)).toBe(60_000);
    ordinary.observe('success', 10);
    expect(combined.state().controller.successes).toBe(0);
    diagnostic.observe('success', 20);
    expect(combined.state().controller).toMatchObject({ successes: 1, timeoutMs: 100 - 40 / 4 });
  });

  it('with the model: a bimodal stream gives an increasing sequence starting at the first mode’s upper tail', () => {
    const random = seededRandom(11);
    const draw = () => (random() < 0.8 ? 9 + 2 * random() : 95 + 10 * random());
    const combined = combinedTimeouts();
    // As the simulator runs it: a diagnostic request waits for its first attempt.
    for (let request = 0; request < 3000; request++) {
      const { diagnostic } = combined.beginRequest();
      for (let attempt = 0; ; attempt++) {
        const latencyMs = draw();
        const timeoutMs = diagnostic ? Number.POSITIVE_INFINITY : combined.next(attempt);
        if (latencyMs <= timeoutMs) {
          combined.observe('success', latencyMs);
          break;
        }
        combined.observe('timeout', timeoutMs);
      }
    }
    const sequence = combined.sequence();
    const report = JSON.stringify({ sequence, state: combined.state() });
    expect(sequence.length, report).toBeGreaterThan(1);
    for (let i = 1; i < sequence.length; i++) {
      expect(sequence[i], report).toBeGreaterThan(sequence[i - 1] as number);
    }
    expect(sequence[0], report).toBeGreaterThan(10.5);
    expect(sequence[0], report).toBeLessThan(15);
    expect(combined.state().optimizer.recomputes, report).toBeGreaterThan(30);
  });

  it('rejects bad options, naming them', () => {
    expect(() => combinedTimeouts({ diagnosticEvery: 0 })).toThrow(/diagnosticEvery/);
    expect(() => combinedTimeouts({ diagnosticTimeoutMs: 0 })).toThrow(/diagnosticTimeoutMs/);
    expect(() => combinedTimeouts({ controller: { alpha: 2 } })).toThrow(/alpha/);
    expect(() => combinedTimeouts({ optimizer: { depth: 0 } })).toThrow(/depth/);
    expect(() => combinedTimeouts({ optimizer: { tzMs: 5 } as object })).toThrow(/tzMs/);
    expect(() => combinedTimeouts({ controller: { gamma: 2 } as object })).toThrow(/gamma/);
    expect(() => combinedTimeouts().isDiagnostic(-1)).toThrow(/requestIndex/);
  });
});
