import { describe, expect, it } from 'vitest';
import { mm1mMeanSojourn, mm1mSojournTail } from '../../../src/model/index.js';
import { expectClose } from '../reference.js';
import { tailReference } from './sojournReference.js';

describe('mm1mSojournTail: P(an accepted attempt stays longer than T) in M/M/1/m', () => {
  it('matches the term-by-term sum for small queues', () => {
    for (const m of [1, 2, 5, 10, 20])
      for (const rho of [0.1, 0.5, 0.9, 1, 1.3, 3])
        for (const x of [0.5, 2, 5, 10, 20]) {
          expectClose(
            mm1mSojournTail(rho, m, x),
            tailReference(rho, m, x),
            { abs: 1e-13 },
            { m, rho, x },
          );
        }
  });

  it('m = 1: the own service only, e^(−x)', () => {
    for (const x of [0.1, 1, 3, 30])
      expectClose(mm1mSojournTail(0.7, 1, x), Math.exp(-x), { rel: 1e-12 }, { x });
  });

  it('m → ∞ is the M/M/1 sojourn, exponential with rate μ(1 − ρ)', () => {
    for (const rho of [0.2, 0.5, 0.8])
      for (const x of [1, 3, 10]) {
        expectClose(
          mm1mSojournTail(rho, 2000, x),
          Math.exp(-(1 - rho) * x),
          { rel: 1e-9 },
          { rho, x },
        );
      }
  });

  it('a queue that is always full: Erlang(m) — fewer than m services in x', () => {
    const m = 50;
    const x = 40;
    let cdf = 0;
    let term = Math.exp(-x);
    for (let i = 0; i < m; i++) {
      cdf += term;
      term *= x / (i + 1);
    }
    expectClose(mm1mSojournTail(Number.POSITIVE_INFINITY, m, x), cdf, { rel: 1e-12 }, {});
    expectClose(mm1mSojournTail(1e12, m, x), cdf, { rel: 1e-9 }, {});
  });

  it('stays in [0, 1] and finite at extreme loads and timeouts; T ≤ 0 always times out', () => {
    for (const rho of [0, 1e-300, 1e-8, 1, 1e8, 1e300])
      for (const x of [1e-9, 1, 700, 800, 1e6]) {
        const tail = mm1mSojournTail(rho, 100, x);
        expect(tail, JSON.stringify({ rho, x })).toBeGreaterThanOrEqual(0);
        expect(tail, JSON.stringify({ rho, x })).toBeLessThanOrEqual(1);
      }
    expect(mm1mSojournTail(0.5, 10, 0)).toBe(1);
    expect(mm1mSojournTail(0.5, 10, Number.POSITIVE_INFINITY)).toBe(0);
  });

  it('rises with the load and falls with the timeout', () => {
    let last = 0;
    for (const rho of [0.1, 0.5, 1, 2, 10]) {
      const tail = mm1mSojournTail(rho, 20, 8);
      expect(tail).toBeGreaterThan(last);
      last = tail;
    }
    expect(mm1mSojournTail(1, 20, 4)).toBeGreaterThan(mm1mSojournTail(1, 20, 8));
  });
});

describe('mm1mMeanSojourn: E[sojourn | accepted] in mean service times', () => {
  it('1 + the mean number an accepted arrival finds', () => {
    for (const m of [1, 3, 10])
      for (const rho of [0.3, 1, 2.5]) {
        let moment = 0;
        let total = 0;
        for (let n = 0; n < m; n++) {
          moment += n * rho ** n;
          total += rho ** n;
        }
        expectClose(mm1mMeanSojourn(rho, m), 1 + moment / total, { rel: 1e-13 }, { m, rho });
      }
  });

  it('limits: idle 1, M/M/1 1/(1 − ρ), always full m', () => {
    expect(mm1mMeanSojourn(0, 10)).toBe(1);
    expectClose(mm1mMeanSojourn(0.5, 3000), 2, { rel: 1e-9 }, {});
    expect(mm1mMeanSojourn(Number.POSITIVE_INFINITY, 10)).toBe(10);
  });
});
