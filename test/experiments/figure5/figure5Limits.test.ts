import { describe, expect, it } from 'vitest';
import { parseFig5Limits } from '../../../src/cli/testbedFig5Command.js';
import { figure5LimitPairs, figure5Limits } from '../../../src/experiments/figure5/figure5Sweep.js';

// The sweep's retry configurations: the paper's (5, 1) against (5, 5), or any pairs given, such
// as gRPC's (4, 1) against (4, 4).

describe('Figure 5 retry configurations', () => {
  it('keeps the paper’s default', () => {
    expect(figure5Limits()).toEqual([
      { key: '5/1', label: 'DiffTry k = (5, 1)', retries: { high: 5, low: 1 } },
      { key: '5/5', label: 'uniform k = (5, 5)', retries: { high: 5, low: 5 } },
    ]);
  });

  it('reads --limits pairs, DiffTry first and the uniform baseline last', () => {
    expect(parseFig5Limits('4/1, 4/4', 'gold', 'bronze')).toEqual([
      { key: '4/1', label: 'DiffTry k = (4, 1)', retries: { gold: 4, bronze: 1 } },
      { key: '4/4', label: 'uniform k = (4, 4)', retries: { gold: 4, bronze: 4 } },
    ]);
    expect(parseFig5Limits('4/0,4/2,4/4', 'high', 'low').map((l) => l.key)).toEqual([
      '4/0',
      '4/2',
      '4/4',
    ]);
  });

  it('refuses what the comparison cannot be read from', () => {
    expect(() => parseFig5Limits('4/1', 'high', 'low')).toThrow(/at least two/);
    expect(() => parseFig5Limits('4/1,4/2', 'high', 'low')).toThrow(/uniform baseline/);
    expect(() => parseFig5Limits('4/1,4/1,4/4', 'high', 'low')).toThrow(/given twice/);
    expect(() => parseFig5Limits('4-1,4/4', 'high', 'low')).toThrow(/K_HIGH\/K_LOW/);
    expect(() =>
      figure5LimitPairs([
        [4, 1.5],
        [4, 4],
      ]),
    ).toThrow(RangeError);
  });
});
