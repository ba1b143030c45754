import { describe, expect, it } from 'vitest';
import {
  DISTINCT_TOLERANCE,
  type FixedPointRun,
  findDistinctFixedPoints,
  fixedPointDifference,
} from '../../../src/model/uniqueness/index.js';

const run = (init: number, lambdaIn: number[][], converged = true): FixedPointRun => ({
  init,
  initialIn: init === 0 ? undefined : lambdaIn.map((row) => row.map(() => 1)),
  lambdaIn,
  converged,
  iterations: 10,
});

describe('fixedPointDifference', () => {
  it('is the largest relative difference, with a floor for tiny flows', () => {
    expect(fixedPointDifference([[100, 50]], [[100, 50]])).toBe(0);
    expect(fixedPointDifference([[100, 50]], [[101, 50]])).toBeCloseTo(1 / 101, 15);
    expect(fixedPointDifference([[0, 50]], [[0, 50]])).toBe(0);
    // 1e-12 against 0 is a relative change of 1, unless a floor says such flows are nothing.
    expect(fixedPointDifference([[1e-12]], [[0]])).toBe(1);
    expect(fixedPointDifference([[1e-12]], [[0]], 1e-7)).toBeCloseTo(1e-5, 15);
    expect(fixedPointDifference([[Number.NaN]], [[1]])).toBe(Infinity);
  });

  it('refuses tables of different shapes', () => {
    expect(() => fixedPointDifference([[1]], [[1], [2]])).toThrow(/same services, got 1 and 2/);
    expect(() => fixedPointDifference([[1]], [[1, 2]])).toThrow(/same classes at service 0/);
  });
});

describe('findDistinctFixedPoints', () => {
  const a = [
    [300, 20],
    [150, 12],
  ];
  const b = [
    [300, 20],
    [150, 13],
  ];

  it('reports two converged runs at different vectors, with their difference', () => {
    const found = findDistinctFixedPoints([run(0, a), run(1, a), run(2, b)]);
    expect(found?.first.init).toBe(0);
    expect(found?.second.init).toBe(2);
    expect(found?.difference).toBeCloseTo(1 / 13, 15);
  });

  it('keeps the most different pair', () => {
    const c = [
      [300, 20],
      [150, 30],
    ];
    expect(findDistinctFixedPoints([run(0, a), run(1, b), run(2, c)])?.second.init).toBe(2);
  });

  it('treats differences within 1e-6 relative as one fixed point', () => {
    const close = a.map((row) => row.map((x) => x * (1 + 0.9 * DISTINCT_TOLERANCE)));
    expect(findDistinctFixedPoints([run(0, a), run(1, close)])).toBeUndefined();
    const apart = a.map((row) => row.map((x) => x * (1 + 1.1 * DISTINCT_TOLERANCE)));
    expect(findDistinctFixedPoints([run(0, a), run(1, apart)])).toBeDefined();
  });

  it('never counts a run that did not converge', () => {
    expect(findDistinctFixedPoints([run(0, a), run(1, b, false)])).toBeUndefined();
    expect(findDistinctFixedPoints([run(0, b, false), run(1, a), run(2, a)])).toBeUndefined();
    expect(findDistinctFixedPoints([])).toBeUndefined();
  });
});
