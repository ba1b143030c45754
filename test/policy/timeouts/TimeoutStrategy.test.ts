import { describe, expect, it } from 'vitest';
import { fixedTimeout } from '../../../src/policy/timeouts/TimeoutStrategy.js';

describe('fixedTimeout', () => {
  it('gives the same timeout for every attempt, whatever it observes', () => {
    const timeout = fixedTimeout(250);
    timeout.observe('timeout', 250);
    timeout.observe('success', 3);
    timeout.observe('failure', 40);
    expect([0, 1, 2, 50].map((attempt) => timeout.next(attempt))).toEqual([250, 250, 250, 250]);
  });

  it('rejects a timeout that is not a positive finite number of ms', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => fixedTimeout(bad), String(bad)).toThrow(
        /timeoutMs should be a positive number of milliseconds/,
      );
      expect(() => fixedTimeout(bad), String(bad)).toThrow(RangeError);
    }
    expect(fixedTimeout(0.5).next(0)).toBe(0.5);
  });
});
