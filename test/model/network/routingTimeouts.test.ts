import { describe, expect, it } from 'vitest';
import {
  analyzeNetwork,
  type NetworkModel,
  type NetworkService,
  routingEquilibria,
  sweepRoutingEquilibria,
} from '../../../src/model/index.js';
import { tailReference } from '../queue/sojournReference.js';
import { expectClose, phiReference } from '../reference.js';

/*
 * Routing networks with per-try timeouts, against references built here from the mm1m law and
 * the arrival-seen sojourn tail of the test's own references (test/model/reference.ts,
 * test/model/queue/sojournReference.ts).
 *
 * One timed service with classes p (arrival λ_p, limit k_p, timeout x_p = μT_p mean service
 * times, 0: none) settles at a root of
 *
 *   G(ρ) = Σ_p (λ_p/μ) Σ_{r≤k_p} f_p(ρ)^r − ρ,   f_p = φ(ρ) + (1 − φ(ρ)) τ(ρ, x_p),
 *
 * and a request of class p is rejected there with R_p = f_p^(k_p+1). The roots are found by
 * scanning ln ρ and bisecting each sign change; where G falls through zero the root is stable.
 */
interface RefClass {
  readonly lambda: number;
  readonly k: number;
  /** μT; 0 for no timeout. */
  readonly x: number;
}

function failure(rho: number, m: number, x: number): number {
  const s = phiReference('mm1m', rho, m);
  return s + (1 - s) * (x > 0 ? tailReference(rho, m, x) : 0);
}

function G(classes: readonly RefClass[], mu: number, m: number, rho: number): number {
  let load = 0;
  for (const c of classes) {
    const f = failure(rho, m, c.x);
    let attempts = 0;
    for (let r = 0; r <= c.k; r++) attempts += f ** r;
    load += (c.lambda / mu) * attempts;
  }
  return load - rho;
}

/**
 * The stable roots of G, lowest first. Every root lies between Σ λ/μ (one attempt each) and
 * Σ λ (k + 1)/μ (every attempt made): the scan covers that range, widened by 1 %.
 */
function stableRoots(classes: readonly RefClass[], mu: number, m: number): number[] {
  const most = classes.reduce((sum, c) => sum + (c.lambda * (c.k + 1)) / mu, 0);
  if (most <= 0) return [0];
  const least = classes.reduce((sum, c) => sum + c.lambda / mu, 0);
  const roots: number[] = [];
  const lo0 = least / 1.01;
  const span = (1.01 * most) / lo0;
  const steps = 600;
  let a = lo0;
  let ga = G(classes, mu, m, a);
  for (let i = 1; i <= steps; i++) {
    const b = lo0 * span ** (i / steps);
    const gb = G(classes, mu, m, b);
    if (ga > 0 && gb <= 0) {
      let lo = a;
      let hi = b;
      for (let it = 0; it < 200; it++) {
        const mid = (lo + hi) / 2;
        if (G(classes, mu, m, mid) > 0) lo = mid;
        else hi = mid;
      }
      roots.push((lo + hi) / 2);
    }
    a = b;
    ga = gb;
  }
  return roots;
}

/** Per class at a root: R_p = f_p^(k+1). */
function rejections(classes: readonly RefClass[], m: number, rho: number): number[] {
  return classes.map((c) => failure(rho, m, c.x) ** (c.k + 1));
}

const service = (overrides: Partial<NetworkService> & { name: string }): NetworkService => ({
  capacity: 100,
  queue: 50,
  model: 'mm1m',
  arrivals: [0],
  retryLimits: [5],
  routes: [],
  ...overrides,
});

const oneService = (lambda: number, T: number, k = 5): NetworkModel => ({
  classes: [{ name: 'users', retryLimit: k }],
  services: [service({ name: 'api', arrivals: [lambda], retryLimits: [k], timeouts: [T] })],
});

/** A fast untimed router (μ = 10⁴/s, it rejects nothing at these loads) in front of `api`. */
const behindRouter = (lambda: number, T: number, k = 5): NetworkModel => ({
  classes: [{ name: 'users', retryLimit: k }],
  services: [
    service({
      name: 'router',
      capacity: 10_000,
      arrivals: [lambda],
      retryLimits: [k],
      routes: [{ to: 1, p: 1 }],
    }),
    service({ name: 'api', arrivals: [0], retryLimits: [k], timeouts: [T] }),
  ],
});

describe('routing with per-try timeouts: one service routing nowhere', () => {
  it.each([
    { lambda: 30, T: 0.02 },
    { lambda: 30, T: 0.05 },
    { lambda: 50, T: 0.1 },
    { lambda: 50, T: 0.5 },
    { lambda: 80, T: 0.05 },
    { lambda: 120, T: 0.2 },
    { lambda: 30, T: 0.2, k: 1 },
  ])(
    'λ = $lambda/s, T = $T s: the routing solver gives the call-graph solver figures',
    ({ lambda, T, k }) => {
      const network = oneService(lambda, T, k ?? 5);
      // No routes: analyzeNetwork solves it as a call graph (the existing timed path).
      const calls = analyzeNetwork(network);
      const routing = analyzeNetwork(network, { equilibria: routingEquilibria(network) });
      const inputs = { lambda, T, k, calls: calls.equilibria, routing: routing.equilibria };
      expect(
        routing.equilibria.map((e) => e.kind),
        JSON.stringify(inputs),
      ).toEqual(calls.equilibria.map((e) => e.kind));
      routing.equilibria.forEach((e, index) => {
        const c = calls.equilibria[index];
        expectClose(
          e.services.api?.rho as number,
          c?.services.api?.rho as number,
          { rel: 1e-9 },
          inputs,
        );
        expectClose(
          e.services.api?.s as number,
          c?.services.api?.s as number,
          { abs: 1e-12 },
          inputs,
        );
        expectClose(
          e.endToEnd.users?.rejection as number,
          c?.endToEnd.users?.rejection as number,
          { abs: 1e-10 },
          inputs,
        );
        expectClose(e.attemptsPerRequest, c?.attemptsPerRequest as number, { rel: 1e-9 }, inputs);
      });
      if (calls.tippedAt === undefined) expect(routing.tippedAt).toBeUndefined();
      else expectClose(routing.tippedAt as number, calls.tippedAt, { abs: 1e-3 }, inputs);
    },
  );
});

describe('routing with per-try timeouts: a chain a → b, timeouts at both hops', () => {
  // Two classes with their own limits and timeouts per hop; a passes 60 % of what gets through
  // on to b. A DAG: b's input is a's output, so each service's roots follow from the one before.
  const muA = 100;
  const muB = 80;
  const mA = 50;
  const mB = 20;
  const p = 0.6;
  const chain = (gammaHigh: number, gammaLow: number): NetworkModel => ({
    classes: [
      { name: 'high', retryLimit: 5 },
      { name: 'low', retryLimit: 1 },
    ],
    services: [
      service({
        name: 'a',
        capacity: muA,
        queue: mA,
        arrivals: [gammaHigh, gammaLow],
        retryLimits: [5, 1],
        routes: [{ to: 1, p }],
        timeouts: [0.1, 0.05],
      }),
      service({
        name: 'b',
        capacity: muB,
        queue: mB,
        arrivals: [0, 0],
        retryLimits: [3, 1],
        timeouts: [0.15, 0.1],
      }),
    ],
  });

  /** The chain's state with each service at its lowest (`pick` 0) or highest (−1) root. */
  function chainReference(gamma: readonly number[], pick: 'lowest' | 'highest') {
    const at = (roots: number[]) => (pick === 'lowest' ? roots[0] : roots[roots.length - 1]);
    const classesA: RefClass[] = [
      { lambda: gamma[0] as number, k: 5, x: 0.1 * muA },
      { lambda: gamma[1] as number, k: 1, x: 0.05 * muA },
    ];
    const rhoA = at(stableRoots(classesA, muA, mA)) as number;
    const rA = rejections(classesA, mA, rhoA);
    const classesB: RefClass[] = [
      { lambda: p * (gamma[0] as number) * (1 - (rA[0] as number)), k: 3, x: 0.15 * muB },
      { lambda: p * (gamma[1] as number) * (1 - (rA[1] as number)), k: 1, x: 0.1 * muB },
    ];
    const rhoB = at(stableRoots(classesB, muB, mB)) as number;
    const rB = rejections(classesB, mB, rhoB);
    // C = (1 − R_a)((1 − p) + p (1 − R_b)): leave after a, or pass b too.
    const rejection = rA.map((r, c) => 1 - (1 - r) * (1 - p + p * (1 - (rB[c] as number))));
    return { rhoA, rhoB, inB: classesB.map((c) => c.lambda), rejection };
  }

  it.each([
    { gammaHigh: 5, gammaLow: 20 },
    { gammaHigh: 10, gammaLow: 40 },
  ])(
    'γ = ($gammaHigh, $gammaLow)/s: healthy and storm are the chained lowest and highest roots',
    ({ gammaHigh, gammaLow }) => {
      const report = analyzeNetwork(chain(gammaHigh, gammaLow));
      const healthy = chainReference([gammaHigh, gammaLow], 'lowest');
      const storm = chainReference([gammaHigh, gammaLow], 'highest');
      const inputs = { gammaHigh, gammaLow, healthy, storm, equilibria: report.equilibria };
      expect(report.mode).toBe('routing');
      expect(report.converged).toBe(true);
      expect(report.tippedAt, JSON.stringify(inputs)).toBeUndefined();
      const bistable =
        Math.abs(healthy.rhoA - storm.rhoA) > 1e-6 || Math.abs(healthy.rhoB - storm.rhoB) > 1e-6;
      expect(
        report.equilibria.map((e) => e.kind),
        JSON.stringify(inputs),
      ).toEqual(bistable ? ['healthy', 'storm'] : ['healthy']);
      const check = (e: (typeof report.equilibria)[number], ref: typeof healthy) => {
        expectClose(e.services.a?.rho as number, ref.rhoA, { rel: 1e-8 }, inputs);
        expectClose(e.services.b?.rho as number, ref.rhoB, { rel: 1e-8 }, inputs);
        expectClose(
          e.endToEnd.high?.rejection as number,
          ref.rejection[0] as number,
          { abs: 1e-9 },
          inputs,
        );
        expectClose(
          e.endToEnd.low?.rejection as number,
          ref.rejection[1] as number,
          { abs: 1e-9 },
          inputs,
        );
      };
      check(report.equilibria[0] as (typeof report.equilibria)[number], healthy);
      if (bistable) check(report.equilibria[1] as (typeof report.equilibria)[number], storm);
      // The main figures are the healthy state's: b's input is a's output.
      expectClose(
        report.services.b?.classes.high?.in as number,
        healthy.inB[0] as number,
        { rel: 1e-8 },
        inputs,
      );
      expectClose(
        report.services.b?.classes.low?.in as number,
        healthy.inB[1] as number,
        { rel: 1e-8 },
        inputs,
      );
    },
  );

  it('γ = (10, 60)/s: a tips on the way up; the one state is the storm, and below the tip a is bistable', () => {
    const report = analyzeNetwork(chain(10, 60));
    const storm = chainReference([10, 60], 'highest');
    const inputs = { storm, report };
    expect(
      report.equilibria.map((e) => e.kind),
      JSON.stringify(inputs),
    ).toEqual(['storm']);
    const tipped = report.tippedAt as number;
    expect(tipped).toBeGreaterThan(0);
    expect(tipped).toBeLessThan(1);
    expectClose(report.services.a?.rho as number, storm.rhoA, { rel: 1e-8 }, inputs);
    expectClose(
      report.endToEnd.low?.rejection as number,
      storm.rejection[1] as number,
      { abs: 1e-9 },
      inputs,
    );
    // a alone decides it (b's input is a's output): two stable roots just below the tip, one at
    // the full load.
    const classesA = (scale: number): RefClass[] => [
      { lambda: 10 * scale, k: 5, x: 0.1 * muA },
      { lambda: 60 * scale, k: 1, x: 0.05 * muA },
    ];
    expect(stableRoots(classesA(tipped * 0.99), muA, mA)).toHaveLength(2);
    expect(stableRoots(classesA(1), muA, mA)).toHaveLength(1);
  });

  it('a timed network has no uniqueness guarantee; the same routes untimed are a DAG', () => {
    const timed = chain(10, 40);
    const untimed: NetworkModel = {
      ...timed,
      services: timed.services.map(({ timeouts: _, ...rest }) => rest),
    };
    expect(analyzeNetwork(timed).structure.uniqueness).toBe('none');
    expect(analyzeNetwork(untimed).structure.uniqueness).toBe('dag');
  });
});

describe('routing with per-try timeouts: a cycle a → b → a', () => {
  // a sends 70 % of what gets through to b, b sends half of its back to a.
  const cycle = (gamma: number): NetworkModel => ({
    classes: [{ name: 'users', retryLimit: 3 }],
    services: [
      service({
        name: 'a',
        arrivals: [gamma],
        retryLimits: [3],
        routes: [{ to: 1, p: 0.7 }],
        timeouts: [0.08],
      }),
      service({
        name: 'b',
        capacity: 120,
        queue: 30,
        arrivals: [0],
        retryLimits: [2],
        routes: [{ to: 0, p: 0.5 }],
        timeouts: [0.06],
      }),
    ],
  });

  it.each([10, 25, 40])('γ = %d/s: converges to a state that solves every equation', (gamma) => {
    const report = analyzeNetwork(cycle(gamma));
    const e = report.equilibria[0] as (typeof report.equilibria)[number];
    const a = report.services.a?.classes.users;
    const b = report.services.b?.classes.users;
    const inputs = { gamma, report };
    expect(report.converged, JSON.stringify(inputs)).toBe(true);
    expect(report.iterations).toBeGreaterThan(1);
    expect(report.structure.uniqueness).toBe('none');
    // Flow balance: λin_a = γ + 0.5 λout_b, λin_b = 0.7 λout_a.
    expectClose(a?.in as number, gamma + 0.5 * (b?.out as number), { rel: 1e-10 }, inputs);
    expectClose(b?.in as number, 0.7 * (a?.out as number), { rel: 1e-10 }, inputs);
    // Each service at the lowest stable root of its own equation at its input.
    const refA: RefClass[] = [{ lambda: a?.in as number, k: 3, x: 0.08 * 100 }];
    const refB: RefClass[] = [{ lambda: b?.in as number, k: 2, x: 0.06 * 120 }];
    expectClose(
      e.services.a?.rho as number,
      stableRoots(refA, 100, 50)[0] as number,
      { rel: 1e-8 },
      inputs,
    );
    expectClose(
      e.services.b?.rho as number,
      stableRoots(refB, 120, 30)[0] as number,
      { rel: 1e-8 },
      inputs,
    );
    // Completion: C_a = (1 − R_a)(0.3 + 0.7 C_b), C_b = (1 − R_b)(0.5 + 0.5 C_a), solved by hand.
    const ra = rejections(refA, 50, e.services.a?.rho as number)[0] as number;
    const rb = rejections(refB, 30, e.services.b?.rho as number)[0] as number;
    const ca = ((1 - ra) * (0.3 + 0.7 * (1 - rb) * 0.5)) / (1 - 0.7 * (1 - ra) * 0.5 * (1 - rb));
    expectClose(report.endToEnd.users?.completion as number, ca, { abs: 1e-9 }, inputs);
  });
});

describe('routing with per-try timeouts: a bistable cycle', () => {
  // a ⇄ b as above, five retries at a: at 30 requests/s both a healthy state and a storm.
  const network: NetworkModel = {
    classes: [{ name: 'users', retryLimit: 5 }],
    services: [
      service({ name: 'a', arrivals: [30], routes: [{ to: 1, p: 0.7 }], timeouts: [0.1] }),
      service({
        name: 'b',
        capacity: 120,
        queue: 30,
        arrivals: [0],
        retryLimits: [3],
        routes: [{ to: 0, p: 0.5 }],
        timeouts: [0.1],
      }),
    ],
  };

  it('healthy at the lowest root of each service, the storm at the highest, both balancing the flows', () => {
    const found = routingEquilibria(network);
    expect(found.equilibria.map((e) => e.kind)).toEqual(['healthy', 'storm']);
    found.equilibria.forEach(({ kind, solution }) => {
      const inputs = { kind, solution };
      expect(solution.converged).toBe(true);
      const [inA, inB] = [solution.lambdaIn[0]?.[0] as number, solution.lambdaIn[1]?.[0] as number];
      const [outA, outB] = [
        solution.lambdaOut[0]?.[0] as number,
        solution.lambdaOut[1]?.[0] as number,
      ];
      expectClose(inA, 30 + 0.5 * outB, { rel: 1e-10 }, inputs);
      expectClose(inB, 0.7 * outA, { rel: 1e-10 }, inputs);
      const rootsA = stableRoots([{ lambda: inA, k: 5, x: 10 }], 100, 50);
      const rootsB = stableRoots([{ lambda: inB, k: 3, x: 12 }], 120, 30);
      const pick = (roots: number[]) => (kind === 'healthy' ? roots[0] : roots[roots.length - 1]);
      expectClose(solution.rho[0] as number, pick(rootsA) as number, { rel: 1e-8 }, inputs);
      // b hardly sees a request in the storm (a lets almost none through): compare absolutely.
      expectClose(
        solution.rho[1] as number,
        pick(rootsB) as number,
        { rel: 1e-8, abs: 1e-12 },
        inputs,
      );
    });
    const [healthy, storm] = found.equilibria;
    expect(healthy?.solution.completion[0]?.[0]).toBeGreaterThan(0.999);
    expect(storm?.solution.completion[0]?.[0]).toBeLessThan(1e-3);
  });
});

describe('routing with per-try timeouts: a bistable service behind a router', () => {
  it('half load, 100 ms timeout, five retries: healthy and storm, as the roots of api alone', () => {
    const report = analyzeNetwork(behindRouter(50, 0.1));
    const arriving = report.services.api?.classes.users?.in as number;
    const roots = stableRoots([{ lambda: arriving, k: 5, x: 10 }], 100, 50);
    const inputs = { roots, equilibria: report.equilibria };
    expect(roots.length).toBe(2);
    expect(report.equilibria.map((e) => e.kind)).toEqual(['healthy', 'storm']);
    expect(report.equilibria.every((e) => e.stable)).toBe(true);
    expectClose(
      report.equilibria[0]?.services.api?.rho as number,
      roots[0] as number,
      { rel: 1e-8 },
      inputs,
    );
    expectClose(
      report.equilibria[1]?.services.api?.rho as number,
      roots[1] as number,
      { rel: 1e-8 },
      inputs,
    );
    expect(report.equilibria[0]?.endToEnd.users?.rejection).toBeLessThan(1e-6);
    expect(report.equilibria[1]?.endToEnd.users?.rejection).toBeGreaterThan(0.999);
    // The storm: one attempt at the router, all six at api.
    expectClose(report.equilibria[1]?.attemptsPerRequest as number, 7, { rel: 1e-3 }, inputs);
    expect(report.structure.uniqueness).toBe('none');
  });

  it('above the tipping load the state from idle is the storm, tipped where the lone service tips', () => {
    const report = analyzeNetwork(behindRouter(80, 0.05));
    const alone = analyzeNetwork(oneService(80, 0.05));
    expect(report.equilibria.map((e) => e.kind)).toEqual(['storm']);
    expect(alone.tippedAt).toBeDefined();
    expectClose(
      report.tippedAt as number,
      alone.tippedAt as number,
      { abs: 1e-3 },
      {
        routing: report.tippedAt,
        alone: alone.tippedAt,
      },
    );
  });

  it('along a sweep of the load the branches end where the stable roots merge', () => {
    const values = Array.from({ length: 10 }, (_, i) => 10 * (i + 1));
    const branches = sweepRoutingEquilibria((lambda) => behindRouter(lambda, 0.1), values, {
      loadRises: true,
    });
    const count = (lambda: number) => stableRoots([{ lambda, k: 5, x: 10 }], 100, 50).length;
    const bisect = (lo: number, hi: number) => {
      for (let i = 0; i < 30; i++) {
        const mid = (lo + hi) / 2;
        if (count(mid) === 2) lo = mid;
        else hi = mid;
      }
      return (lo + hi) / 2;
    };
    const reference = { tipping: bisect(50, 100), recovery: bisect(50, 5) };
    const inputs = { reference, tipping: branches.tipping, recovery: branches.recovery };
    expectClose(branches.tipping as number, reference.tipping, { abs: 0.01 }, inputs);
    expectClose(branches.recovery as number, reference.recovery, { abs: 0.01 }, inputs);
    for (const point of branches.points) {
      const both = point.healthy !== undefined && point.storm !== undefined;
      const inside = point.value > reference.recovery && point.value < reference.tipping;
      expect(both, JSON.stringify({ value: point.value, inputs })).toBe(inside);
    }
  });
});

describe('routing with per-try timeouts: bad input', () => {
  it.each([0, -0.1, Number.NaN])('a timeout of %d s is refused with the place named', (T) => {
    expect(() => analyzeNetwork(behindRouter(50, T))).toThrow(
      /services\[1\] \(api\)\.timeouts\[0\] should be a positive number of seconds/,
    );
  });

  it('timeouts and the residual-time correction are refused together', () => {
    const network = behindRouter(50, 0.1);
    const withResidual: NetworkModel = {
      ...network,
      services: network.services.map((s, i) => (i === 1 ? { ...s, residualAlphas: [[0.5]] } : s)),
    };
    expect(() => analyzeNetwork(withResidual)).toThrow(/residual/);
  });
});
