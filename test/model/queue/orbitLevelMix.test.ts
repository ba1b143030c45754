import { describe, expect, it } from 'vitest';
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';
import { type OrbitClass, orbitQueue } from '../../../src/model/queue/orbitQueue.js';
import { seededRandom } from '../../../src/model/random.js';
import { simulateNetwork } from '../../../src/sim/network/simulateNetwork.js';
import { meanWithCi95 } from '../../../src/stats/confidence.js';
import { exactAndOrbit, SMALL_EXACT_CASES } from './exactAndOrbit.js';

/** M/M/1/m: the share of time with n present, ∝ ρ^n. */
function mm1m(rho: number, m: number): number[] {
  const weights = Array.from({ length: m + 1 }, (_, n) => rho ** n);
  const total = weights.reduce((sum, w) => sum + w, 0);
  return weights.map((w) => w / total);
}

/**
 * P(Erlang(r, r/x) < Erlang(L + 1, 1)) by quadrature, independent of the law's binomial sum: the
 * timeout's density times P(Poisson(t) ≤ L) — fewer than L + 1 services done by then.
 */
function erlangFate(r: number, x: number, L: number): number {
  const rate = r / x;
  const end = x * 20 + 50;
  const steps = 200_000;
  const h = end / steps;
  let sum = 0;
  for (let i = 0; i <= steps; i++) {
    const t = i * h;
    let logFact = 0;
    for (let j = 2; j < r; j++) logFact += Math.log(j);
    const density =
      t === 0
        ? r === 1
          ? rate
          : 0
        : Math.exp(r * Math.log(rate) + (r - 1) * Math.log(t) - rate * t - logFact);
    let term = Math.exp(-t);
    let cdf = term;
    for (let j = 1; j <= L; j++) {
      term *= t / j;
      cdf += term;
    }
    const weight = i === 0 || i === steps ? 1 : i % 2 === 1 ? 4 : 2;
    sum += weight * density * cdf;
  }
  return (sum * h) / 3;
}

const oneClass = (entry: Partial<OrbitClass>): OrbitClass[] => [
  { arrivalRate: 60, retryLimit: 0, timeout: 3, meanBackoff: 0.1, ...entry },
];

describe('Erlang per-try timeouts in the orbit law', () => {
  it('without retries: each L times out as the race of stages says', () => {
    const [lambda, mu, m, x] = [60, 100, 5, 3];
    const pi = mm1m(lambda / mu, m);
    for (const r of [2, 3, 7]) {
      const figures = orbitQueue({
        capacity: mu,
        queue: m,
        classes: oneClass({ timeout: x, timeoutLaw: 'erlang', timeoutStages: r }),
      });
      let tau = 0;
      for (let L = 0; L < m; L++) tau += (pi[L] as number) * erlangFate(r, x, L);
      tau /= 1 - (pi[m] as number);
      expect(figures.classes[0]?.timeoutShare, `r = ${r}`).toBeCloseTo(tau, 8);
    }
  });

  it('is the exponential law with one stage, and near the fixed one with many', () => {
    const solve = (entry: Partial<OrbitClass>) =>
      orbitQueue({ capacity: 100, queue: 8, classes: oneClass({ retryLimit: 2, ...entry }) })
        .classes[0]?.requestRejection ?? Number.NaN;
    expect(solve({ timeoutLaw: 'erlang', timeoutStages: 1 })).toBe(
      solve({ timeoutLaw: 'exponential' }),
    );
    const fixed = solve({ timeoutLaw: 'fixed' });
    const many = solve({ timeoutLaw: 'erlang', timeoutStages: 2000 });
    const few = solve({ timeoutLaw: 'erlang', timeoutStages: 2 });
    expect(Math.abs(many - fixed)).toBeLessThan(0.002);
    expect(Math.abs(few - fixed)).toBeGreaterThan(10 * Math.abs(many - fixed));
  });

  it('refuses stages that are not a whole number ≥ 1', () => {
    for (const timeoutStages of [0, 1.5, Number.NaN]) {
      expect(() =>
        orbitQueue({
          capacity: 100,
          queue: 8,
          classes: oneClass({ timeoutLaw: 'erlang', timeoutStages }),
        }),
      ).toThrow(/timeoutStages should be an integer ≥ 1/);
    }
  });
});

describe('the orbit law with a mix per level', () => {
  it('is the mean mix where every request in the orbit is on its last try', () => {
    // One class with k = 1: every level's mix is the mean one (last share 1, one backoff).
    const service = {
      capacity: 120,
      queue: 30,
      classes: [{ arrivalRate: 45, retryLimit: 1, timeout: 3.2, meanBackoff: 0.1 }],
    };
    const mean = orbitQueue(service);
    const level = orbitQueue({ ...service, mix: 'level' });
    expect(level.classes[0]?.requestRejection).toBeCloseTo(
      mean.classes[0]?.requestRejection ?? Number.NaN,
      9,
    );
    expect(level.meanOrbit).toBeCloseTo(mean.meanOrbit, 6);
  });

  it('stays within 0.01 of the exact chain on small cases', () => {
    for (const c of SMALL_EXACT_CASES) {
      const { exact, orbit: level } = exactAndOrbit(c, 'level');
      exact.classes.forEach((entry, p) => {
        const gap = Math.abs(entry.requestRejection - (level.classes[p]?.requestRejection ?? 0));
        expect(gap, JSON.stringify(c)).toBeLessThan(0.01);
      });
    }
  });

  it('follows the simulator on a long queue where the mean mix does not (exponential timeouts)', () => {
    // μ = 100, m = 40, gold k = 3 and bronze k = 2 at 12.5 requests/s each, timeouts
    // exponential with mean 20 ms, backoff 100 ms: the retry load swings, and a crowded orbit
    // holds requests deep in their retries.
    const [mu, m, x] = [100, 40, 2];
    const limits = [3, 2];
    const classes = limits.map(
      (retryLimit): OrbitClass => ({
        arrivalRate: 12.5,
        retryLimit,
        timeout: x,
        timeoutLaw: 'exponential',
        meanBackoff: 0.1,
      }),
    );
    const mean = orbitQueue({ capacity: mu, queue: m, classes });
    const level = orbitQueue({ capacity: mu, queue: m, classes, mix: 'level' });
    const network: NetworkModel = {
      classes: ['gold', 'bronze'].map((name, p) => ({
        name,
        retryLimit: limits[p] as number,
        meanBackoffs: [0.1],
      })),
      services: [
        {
          name: 'api',
          capacity: mu,
          queue: m,
          model: 'mm1m',
          arrivals: [12.5, 12.5],
          retryLimits: limits,
          routes: [],
        },
      ],
    };
    const runs: number[][] = [[], []];
    for (let run = 0; run < 12; run++) {
      const random = seededRandom(4041, run);
      const result = simulateNetwork(network, {
        duration: 300,
        warmup: 30,
        seed: 4040,
        stream: run,
        backoff: { kind: 'random', meanMs: 100 },
        timeouts: () => ({
          next: () => -((x / mu) * 1000) * Math.log(1 - random()),
          observe: () => {},
        }),
      });
      ['gold', 'bronze'].forEach((name, p) => {
        runs[p]?.push(result.endToEnd[name]?.rejection ?? Number.NaN);
      });
    }
    runs.forEach((values, p) => {
      const simulated = meanWithCi95(values).mean;
      const levelGap = Math.abs((level.classes[p]?.requestRejection ?? 0) - simulated);
      const meanGap = Math.abs((mean.classes[p]?.requestRejection ?? 0) - simulated);
      expect(levelGap, `class ${p}`).toBeLessThan(0.035);
      expect(levelGap, `class ${p}`).toBeLessThan(meanGap / 2);
    });
  });

  it('refuses a mix it does not know', () => {
    expect(() =>
      orbitQueue({
        capacity: 100,
        queue: 8,
        classes: oneClass({}),
        mix: 'median' as unknown as 'mean',
      }),
    ).toThrow(/mix should be 'mean' or 'level'/);
  });
});
