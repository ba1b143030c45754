import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { controllerTimeouts } from '../../../src/policy/timeouts/index.js';

describe('controllerTimeouts', () => {
  it('widens by β = 2 on every timeout, exponentially in a run of them, up to maxMs', () => {
    const controller = controllerTimeouts({ initialMs: 100, maxMs: 1000 });
    const widened = [1, 2, 3, 4, 5].map(() => {
      controller.observe('timeout', controller.next(0));
      return controller.next(0);
    });
    expect(widened).toEqual([200, 400, 800, 1000, 1000]);
    expect(controller.state()).toMatchObject({
      phase: 'slow-start',
      consecutiveTimeouts: 5,
      timeouts: 5,
    });
  });

  it('tightens after successes: t ← t − α·(t − k·L), towards k·L and never below minMs', () => {
    const controller = controllerTimeouts({ initialMs: 1000, minMs: 50 });
    controller.observe('success', 10);
    // 1000 − (1000 − 3·10)/8
    expect(controller.next(0)).toBe(878.75);
    expect(controller.state()).toMatchObject({ phase: 'avoidance', consecutiveTimeouts: 0 });
    for (let i = 0; i < 200; i++) controller.observe('success', 10);
    expect(controller.next(0)).toBe(50);
    const unbounded = controllerTimeouts({ initialMs: 1000, minMs: 1 });
    for (let i = 0; i < 400; i++) unbounded.observe('success', 10);
    expect(unbounded.next(0)).toBeCloseTo(30, 9);
  });

  it('widens linearly, by α of the gap, after a success close to the timeout', () => {
    const controller = controllerTimeouts({ initialMs: 100 });
    controller.observe('success', 90);
    expect(controller.next(0)).toBe(100 + (270 - 100) / 8);
  });

  it('ignores failures', () => {
    const controller = controllerTimeouts({ initialMs: 100 });
    controller.observe('failure', 1);
    controller.observe('failure', 100_000);
    expect(controller.state()).toMatchObject({ timeoutMs: 100, successes: 0, timeouts: 0 });
  });

  it('retries of one request grow by γ, capped at maxMs', () => {
    const controller = controllerTimeouts({ initialMs: 100, maxMs: 1000 });
    expect([0, 1, 2, 3, 4, 50].map((i) => controller.next(i))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect(controller.sequence()).toEqual([100, 200, 400, 800, 1000]);
    expect(controllerTimeouts({ initialMs: 100, gamma: 1 }).sequence()).toEqual([100]);
  });

  it('stays within [minMs, maxMs] whatever it observes', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom('success' as const, 'timeout' as const, 'failure' as const),
            fc.double({ min: 0, max: 1e6, noNaN: true }),
          ),
          { maxLength: 200 },
        ),
        (observations) => {
          const controller = controllerTimeouts({ initialMs: 100, minMs: 20, maxMs: 2000 });
          for (const [outcome, latencyMs] of observations) {
            controller.observe(outcome, latencyMs);
            const { timeoutMs } = controller.state();
            if (!(timeoutMs >= 20 && timeoutMs <= 2000)) {
              expect.fail(`timeout ${timeoutMs} after ${outcome} ${latencyMs}`);
            }
          }
        },
      ),
    );
  });

  it('settles near 3.5 × the mean of exponential latencies, with about 3 % timeouts', () => {
    // A deterministic stream: the latencies are exponential quantiles in a scrambled order.
    const controller = controllerTimeouts({ initialMs: 1000, minMs: 1 });
    let timeouts = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const u = ((i * 7919) % n) / n + 0.5 / n;
      const latencyMs = -100 * Math.log(1 - u);
      const timeoutMs = controller.next(0);
      if (latencyMs > timeoutMs) {
        timeouts++;
        controller.observe('timeout', timeoutMs);
      } else {
        controller.observe('success', latencyMs);
      }
    }
    expect(timeouts / n).toBeGreaterThan(0.01);
    expect(timeouts / n).toBeLessThan(0.06);
  });

  it('rejects bad options, naming them', () => {
    expect(() => controllerTimeouts({ beta: 1 })).toThrow(/beta should be a finite number in \(1/);
    expect(() => controllerTimeouts({ gamma: 0.5 })).toThrow(/gamma/);
    expect(() => controllerTimeouts({ minMs: 10, initialMs: 5 })).toThrow(/initialMs/);
    expect(() => controllerTimeouts({ maxMs: 5, minMs: 10 })).toThrow(/maxMs/);
    expect(() => controllerTimeouts({ alpha: 0 })).toThrow(/alpha/);
  });
});
