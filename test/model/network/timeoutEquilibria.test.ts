import { describe, expect, it } from 'vitest';
import { analyzeNetwork, type NetworkModel, sweepEquilibria } from '../../../src/model/index.js';
import { tailReference } from '../queue/sojournReference.js';
import { expectClose, phiReference } from '../reference.js';

/*
 * One service with per-try timeouts, by an independent route: the offered load ρ of one class
 * (rate λ, limit k, timeout x = μT mean service times) is a root of
 *
 *   G(ρ) = (λ/μ) Σ_{r≤k} f(ρ)^r − ρ,   f = φ(ρ) + (1 − φ(ρ)) τ(ρ),
 *
 * with φ the mm1m law and τ the arrival-seen sojourn tail, both from the test's own references.
 * The roots are found by scanning ln ρ on a grid and bisecting each sign change; a root
 * where G falls through zero is stable (a little more load relaxes back), one where it rises
 * through zero is the unstable state between two stable ones.
 */
function stableRoots(lambda: number, mu: number, m: number, k: number, x: number): number[] {
  const G = (rho: number) => {
    const s = phiReference('mm1m', rho, m);
    const f = s + (1 - s) * tailReference(rho, m, x);
    let attempts = 0;
    for (let r = 0; r <= k; r++) attempts += f ** r;
    return (lambda / mu) * attempts - rho;
  };
  const roots: number[] = [];
  // Offered loads from 0.01 to 100 (k + 1 ≤ 6 attempts of at most 1.5 μ: every root lies in it).
  let a = 1e-2;
  let ga = G(a);
  for (let i = 1; i <= 800; i++) {
    const b = 1e-2 * 10 ** ((i / 800) * 4);
    const gb = G(b);
    if (ga > 0 && gb <= 0) {
      let lo = a;
      let hi = b;
      for (let it = 0; it < 200; it++) {
        const mid = (lo + hi) / 2;
        if (G(mid) > 0) lo = mid;
        else hi = mid;
      }
      roots.push((lo + hi) / 2);
    }
    a = b;
    ga = gb;
  }
  return roots;
}

const oneService = (lambda: number, timeoutSeconds: number, k = 5): NetworkModel => ({
  classes: [{ name: 'users', retryLimit: k }],
  services: [
    {
      name: 'api',
      capacity: 100,
      queue: 50,
      model: 'mm1m',
      arrivals: [lambda],
      retryLimits: [k],
      routes: [],
      timeouts: [timeoutSeconds],
    },
  ],
});

describe('one service with per-try timeouts: every stable state', () => {
  const cases = [
    { lambda: 30, T: 0.02 },
    { lambda: 30, T: 0.05 },
    { lambda: 50, T: 0.1 },
    { lambda: 50, T: 0.3 },
    { lambda: 50, T: 0.5 },
    { lambda: 80, T: 0.2 },
    { lambda: 120, T: 0.2 },
    { lambda: 30, T: 0.2, k: 1 },
  ];
  it.each(cases)(
    'λ = $lambda/s, T = $T s: the equilibria are the stable roots, lowest first',
    ({ lambda, T, k }) => {
      const limit = k ?? 5;
      const roots = stableRoots(lambda, 100, 50, limit, 100 * T);
      const report = analyzeNetwork(oneService(lambda, T, limit));
      const inputs = { lambda, T, roots, equilibria: report.equilibria };
      expect(report.converged, JSON.stringify(inputs)).toBe(true);
      const found = report.equilibria.map((e) => e.services.api?.rho as number);
      // Healthy is the lowest stable root, the storm the highest; a unique state is the one root.
      expect(found.length, JSON.stringify(inputs)).toBe(Math.min(roots.length, 2));
      expectClose(found[0] as number, roots[0] as number, { rel: 1e-8 }, inputs);
      if (roots.length > 1)
        expectClose(found[1] as number, roots[roots.length - 1] as number, { rel: 1e-8 }, inputs);
      if (found.length === 2) {
        expect(report.equilibria.map((e) => e.kind)).toEqual(['healthy', 'storm']);
      }
    },
  );

  it('half load, 100 ms timeout (10 service times), five retries: bistable, healthy 0 % or storm 100 %', () => {
    const report = analyzeNetwork(oneService(50, 0.1));
    expect(report.equilibria.map((e) => e.kind)).toEqual(['healthy', 'storm']);
    expect(report.equilibria[0]?.endToEnd.users?.rejection).toBeLessThan(1e-6);
    expect(report.equilibria[1]?.endToEnd.users?.rejection).toBeGreaterThan(0.999);
    // The storm runs every attempt: 6 per request.
    expectClose(
      report.equilibria[1]?.attemptsPerRequest as number,
      6,
      { rel: 1e-3 },
      report.equilibria,
    );
  });

  it('DiffTry limits remove the storm: with one retry the same service has one state', () => {
    const uniform = analyzeNetwork(oneService(50, 0.1, 5));
    const difftry = analyzeNetwork(oneService(50, 0.1, 1));
    expect(uniform.equilibria).toHaveLength(2);
    expect(difftry.equilibria).toHaveLength(1);
    expect(difftry.equilibria[0]?.kind).toBe('healthy');
  });

  it('above the tipping load the state from idle is the storm, and the report says where it tipped', () => {
    const report = analyzeNetwork(oneService(80, 0.05));
    expect(report.equilibria).toHaveLength(1);
    expect(report.equilibria[0]?.kind).toBe('storm');
    expect(report.tippedAt).toBeGreaterThan(0);
    expect(report.tippedAt).toBeLessThan(1);
    // Just below the tipping load the healthy state still exists.
    const below = analyzeNetwork(oneService(80 * (report.tippedAt as number) * 0.98, 0.05));
    expect(below.equilibria[0]?.kind).toBe('healthy');
  });
});

describe('call graph with a timed child', () => {
  it('a timed-out child call fails the parent attempt: the parent retries the subtree', () => {
    // a (idle, k_a = 2) calls b (k_b = 0); calls into b time out after T: S_b = 1 − τ_b for an
    // idle b, and a's attempts per call are Σ_{r≤2} (1 − S_b)^r.
    const T = 0.02;
    const mu = 100;
    const network: NetworkModel = {
      mode: 'calls',
      classes: [{ name: 'c', retryLimit: 2 }],
      services: [
        {
          name: 'a',
          capacity: 1e6,
          queue: 50,
          model: 'mm1m',
          arrivals: [1e-6],
          retryLimits: [2],
          routes: [],
          calls: [{ to: 1, n: 1 }],
        },
        {
          name: 'b',
          capacity: mu,
          queue: 50,
          model: 'mm1m',
          arrivals: [0],
          retryLimits: [0],
          routes: [],
          timeouts: [T],
        },
      ],
    };
    const report = analyzeNetwork(network);
    const tauB = Math.exp(-mu * T); // an idle b: the own exponential service only
    const attemptsA = 1 + tauB + tauB ** 2;
    expectClose(
      report.services.a?.classes.c?.attempts as number,
      1e-6 * attemptsA,
      { rel: 1e-6 },
      report,
    );
    expectClose(report.endToEnd.c?.rejection as number, tauB ** 3, { rel: 1e-6 }, report);
  });
});

describe('one service with per-try timeouts: tipping and recovery along a sweep of the load', () => {
  /** The largest λ with a healthy state distinct from the storm, and the smallest with a storm. */
  function referenceEnds(k: number, x: number): { tipping: number; recovery: number } {
    const count = (lambda: number) => stableRoots(lambda, 100, 50, k, x).length;
    const bisect = (lo: number, hi: number) => {
      // count(lo) = 2 (bistable) and count(hi) = 1 on one side of the boundary.
      for (let i = 0; i < 30; i++) {
        const mid = (lo + hi) / 2;
        if (count(mid) === 2) lo = mid;
        else hi = mid;
      }
      return (lo + hi) / 2;
    };
    // Start both searches from a load that is bistable.
    let inside = 5;
    while (count(inside) !== 2 && inside < 100) inside += 5;
    return { tipping: bisect(inside, 100), recovery: bisect(inside, 5) };
  }

  it.each([
    { k: 5, T: 0.1 },
    { k: 1, T: 0.1 },
  ])('k = $k, T = $T s: the branches end where the stable roots merge', ({ k, T }) => {
    const values = Array.from({ length: 10 }, (_, i) => 10 * (i + 1));
    const branches = sweepEquilibria((lambda) => oneService(lambda, T, k), values, {
      loadRises: true,
    });
    const reference = referenceEnds(k, 100 * T);
    const inputs = { k, T, reference, tipping: branches.tipping, recovery: branches.recovery };
    expectClose(branches.tipping as number, reference.tipping, { abs: 0.01 }, inputs);
    expectClose(branches.recovery as number, reference.recovery, { abs: 0.01 }, inputs);
    // Between the two every point has both states; outside, one.
    for (const point of branches.points) {
      const both = point.healthy !== undefined && point.storm !== undefined;
      const inside = point.value > reference.recovery && point.value < reference.tipping;
      expect(both, JSON.stringify({ value: point.value, inputs })).toBe(inside);
    }
  });
});
