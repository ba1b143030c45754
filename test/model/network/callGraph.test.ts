import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyzeNetwork,
  type ModelName,
  type NetworkCall,
  type NetworkModel,
  type NetworkService,
  solveCalls,
} from '../../../src/model/index.js';
import { expectClose, phiReference } from '../reference.js';
import { closureGaps, evaluateCalls } from './callGraphReference.js';

/*
 * Hand-derived forms for a caller a (fluid, far below its capacity, so s_a = 0) whose accepted
 * attempts call a fluid child b that is overloaded. With k_a, k_b the hops' retry limits:
 *
 *   q_b = 1 − s_b,  S_b = 1 − s_b^(k_b+1),  A_b = Σ_{r≤k_b} s_b^r
 *   q_a = S_b,      S_a = 1 − (1 − q_a)^(k_a+1) = 1 − s_b^((k_a+1)(k_b+1)),  A_a = Σ_{r≤k_a} (1 − q_a)^r
 *   calls into b = γ A_a (a's attempts, all accepted, each calls b once), attempts at b = γ A_a A_b
 *
 * Fluid b accepts exactly μ_b attempts per second, and b's accepted attempts are its successes:
 * γ A_a S_b = γ S_a = μ_b, so S_a = μ_b/γ and s_b = (1 − μ_b/γ)^(1/((k_a+1)(k_b+1))): the nested
 * retries multiply, and the end-to-end completion is μ_b/γ whatever the limits.
 */

/** s_b^(m) and 1 − s_b^(m) for s_b = (1 − μ_b/γ)^(1/M), without cancellation. */
function nested(ratio: number, total: number) {
  const log = Math.log1p(-ratio) / total;
  return {
    s: Math.exp(log),
    power: (m: number) => Math.exp(m * log),
    oneMinusPower: (m: number) => -Math.expm1(m * log),
  };
}

/** Σ_{r≤k} x^r. */
function geometric(x: number, k: number): number {
  let sum = 0;
  for (let r = 0; r <= k; r++) sum += x ** r;
  return sum;
}

function fluidService(
  name: string,
  capacity: number,
  arrivals: readonly number[],
  retryLimits: readonly number[],
  extra: Partial<NetworkService> = {},
): NetworkService {
  return { name, capacity, queue: 50, model: 'fluid', arrivals, retryLimits, routes: [], ...extra };
}

const oneClass = (k: number) => [{ name: 'c', retryLimit: k }];

const chain = fc.record({
  gamma: fc.double({ min: 1, max: 1000, noNaN: true }),
  overload: fc.double({ min: 1.2, max: 20, noNaN: true }),
  ka: fc.integer({ min: 0, max: 5 }),
  kb: fc.integer({ min: 0, max: 5 }),
});

describe('call graph: a → b, only b overloaded (hand-derived forms)', () => {
  it('s, q, S, A, calls and attempts at a and b; completion μ_b/γ (nested retries multiply)', () => {
    fc.assert(
      fc.property(chain, ({ gamma, overload, ka, kb }) => {
        const mub = gamma / overload;
        const network: NetworkModel = {
          classes: oneClass(ka),
          mode: 'calls',
          services: [
            fluidService('a', 100 * gamma * (ka + 1), [gamma], [ka], { calls: [{ to: 1, n: 1 }] }),
            fluidService('b', mub, [0], [kb]),
          ],
        };
        const solution = solveCalls(network);
        const report = analyzeNetwork(network);
        const form = nested(mub / gamma, (ka + 1) * (kb + 1));
        const sb = form.s;
        const Sb = form.oneMinusPower(kb + 1);
        const Ab = geometric(sb, kb);
        const Aa = geometric(form.power(kb + 1), ka);
        const inputs = { gamma, mub, ka, kb, solution };
        const close = (got: number | undefined, want: number) =>
          expectClose(got ?? Number.NaN, want, { rel: 1e-9 }, inputs);
        expect(solution.converged, JSON.stringify(inputs)).toBe(true);
        expect(solution.s[0]).toBe(0);
        expectClose(solution.s[1] as number, sb, { abs: 1e-12 }, inputs);
        close(solution.attemptSuccess[1]?.[0], 1 - sb);
        close(solution.callSuccess[1]?.[0], Sb);
        close(solution.attemptSuccess[0]?.[0], Sb);
        close(solution.callSuccess[0]?.[0], mub / gamma);
        close(solution.callsIn[0]?.[0], gamma);
        close(solution.attempts[0]?.[0], gamma * Aa);
        close(solution.callsIn[1]?.[0], gamma * Aa);
        close(solution.attempts[1]?.[0], gamma * Aa * Ab);
        // The report: in = calls in, rejection = 1 − S, out = in·S; end to end S_a.
        close(report.services.b?.classes.c?.in, gamma * Aa);
        close(report.services.b?.classes.c?.out, mub);
        // The rejection is s_b^(kb+1): an error ε in s_b (the solver's tolerance is 1e-12 on s)
        // moves it by up to (kb + 1) ε.
        expectClose(
          report.services.b?.classes.c?.rejection ?? Number.NaN,
          1 - Sb,
          { abs: (kb + 1) * 1e-12 },
          inputs,
        );
        close(report.endToEnd.c?.completion, mub / gamma);
        close(report.load.attemptsPerRequest, Aa + Aa * Ab);
        close(report.load.internalPerRequest, Aa * Ab);
      }),
      { numRuns: 300 },
    );
  });

  it('worked example: γ = 100, μ_b = 50, k_a = k_b = 1 re-runs b from a', () => {
    // s_b = 0.5^(1/4); S_b = 1 − √0.5; a's second attempt happens with 1 − S_b = √0.5, so
    // A_a = 1 + √0.5 and b sees γ A_a calls, each attempted A_b = 1 + s_b times.
    const network: NetworkModel = {
      classes: oneClass(1),
      services: [
        fluidService('a', 10_000, [100], [1], { calls: [{ to: 1, n: 1 }] }),
        fluidService('b', 50, [0], [1]),
      ],
    };
    const solution = solveCalls(network);
    const sb = 0.5 ** 0.25;
    expect(solution.s[1]).toBeCloseTo(sb, 12);
    expect(solution.callsIn[1]?.[0]).toBeCloseTo(100 * (1 + Math.SQRT1_2), 9);
    expect(solution.attempts[1]?.[0]).toBeCloseTo(100 * (1 + Math.SQRT1_2) * (1 + sb), 9);
    expect(solution.callSuccess[0]?.[0]).toBeCloseTo(0.5, 12);
    // Without a's retry b sees γ calls only: the re-runs are a's.
    const flat = solveCalls({
      ...network,
      services: [
        { ...(network.services[0] as NetworkService), retryLimits: [0] },
        network.services[1] as NetworkService,
      ],
    });
    expect(flat.callsIn[1]?.[0]).toBeCloseTo(100, 9);
    expect(flat.s[1]).toBeCloseTo(Math.SQRT1_2, 12);
  });

  it('any initial s reaches the same fixed point (it is unique here)', () => {
    fc.assert(
      fc.property(
        chain,
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
          minLength: 2,
          maxLength: 2,
        }),
        ({ gamma, overload, ka, kb }, initialS) => {
          const network: NetworkModel = {
            classes: oneClass(ka),
            services: [
              fluidService('a', 100 * gamma * (ka + 1), [gamma], [ka], {
                calls: [{ to: 1, n: 1 }],
              }),
              fluidService('b', gamma / overload, [0], [kb]),
            ],
          };
          const fromZero = solveCalls(network);
          const fromElsewhere = solveCalls(network, { initialS });
          const inputs = { gamma, overload, ka, kb, initialS };
          expect(fromElsewhere.converged, JSON.stringify(inputs)).toBe(true);
          fromZero.s.forEach((s, i) => {
            expectClose(fromElsewhere.s[i] as number, s, { abs: 1e-11 }, inputs);
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('call graph: a → [b, c] with b overloaded and c idle', () => {
  const pair = fc.record({
    gamma: fc.double({ min: 1, max: 1000, noNaN: true }),
    overload: fc.double({ min: 1.2, max: 20, noNaN: true }),
    ka: fc.integer({ min: 0, max: 4 }),
    kb: fc.integer({ min: 0, max: 4 }),
  });
  const build = (
    { gamma, overload, ka, kb }: { gamma: number; overload: number; ka: number; kb: number },
    calls: NetworkCall[],
  ): NetworkModel => ({
    classes: oneClass(ka),
    services: [
      fluidService('a', 100 * gamma * (ka + 1), [gamma], [ka], { calls }),
      fluidService('b', gamma / overload, [0], [kb]),
      fluidService('c', 100 * gamma * (ka + 1) * (kb + 1), [0], [kb]),
    ],
  });

  it('sequential calls c only after b succeeded (μ_b calls/s), parallel calls it on every attempt', () => {
    // c never fails (S_c = 1), so q_a = S_b and b behaves as in the chain: calls into b = γ A_a
    // either way. Sequential: c is called by a's accepted attempts whose call to b succeeded,
    // γ A_a S_b = γ S_a = μ_b. Parallel: by every accepted attempt, γ A_a.
    fc.assert(
      fc.property(pair, (drawn) => {
        const sequential = solveCalls(
          build(drawn, [
            { to: 1, n: 1 },
            { to: 2, n: 1 },
          ]),
        );
        const parallel = solveCalls(
          build(drawn, [
            { to: 1, n: 1, parallel: true },
            { to: 2, n: 1, parallel: true },
          ]),
        );
        const cFirst = solveCalls(
          build(drawn, [
            { to: 2, n: 1 },
            { to: 1, n: 1 },
          ]),
        );
        const { gamma, overload, ka, kb } = drawn;
        const form = nested(1 / overload, (ka + 1) * (kb + 1));
        const Aa = geometric(form.power(kb + 1), ka);
        const inputs = { drawn, sequential, parallel };
        const close = (got: number | undefined, want: number) =>
          expectClose(got ?? Number.NaN, want, { rel: 1e-9 }, inputs);
        for (const solution of [sequential, parallel, cFirst]) {
          expectClose(solution.s[1] as number, form.s, { abs: 1e-12 }, inputs);
          expect(solution.s[2]).toBe(0);
          close(solution.callsIn[1]?.[0], gamma * Aa);
          close(solution.callSuccess[0]?.[0], 1 / overload);
        }
        close(sequential.callsIn[2]?.[0], gamma / overload);
        close(parallel.callsIn[2]?.[0], gamma * Aa);
        close(cFirst.callsIn[2]?.[0], gamma * Aa);
        expect(parallel.callsIn[2]?.[0] as number).toBeGreaterThan(
          sequential.callsIn[2]?.[0] as number,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('n sequential calls stop at the first failure; n parallel calls are all made', () => {
    // a (k = 0) calls b n times. Sequential: the m-th call is made if the m − 1 before it
    // succeeded, Σ_{m<n} S_b^m calls per accepted attempt; parallel: n. The attempt succeeds
    // with S_b^n either way, and b accepts μ_b attempts per second (fluid, overloaded), its
    // successes. With `followUps` and sequential calls (b makes none), once the first call
    // succeeds the n − 1 others follow it the moment it is back (docs/model.md, "Follow-up
    // calls") — let in, one attempt each, and they succeed: calls_b = γ (1 + (n − 1) S_b), a
    // succeeds with S_b, and b's μ_b accepted attempts are the γ S_b first calls that got
    // through and the γ (n − 1) S_b follow-ups: S_b = μ_b / (n γ) = 1 − π^(k_b + 1) for π a fresh
    // attempt's rejection, and s over every attempt is the fluid 1 − μ_b/attempts.
    fc.assert(
      fc.property(
        fc.double({ min: 1.2, max: 10, noNaN: true }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        fc.boolean(),
        (overload, n, kb, parallel, followUps) => {
          const gamma = 100;
          const network: NetworkModel = {
            followUps,
            classes: oneClass(0),
            services: [
              fluidService('a', 1e6, [gamma], [0], { calls: [{ to: 1, n, parallel }] }),
              fluidService('b', gamma / overload, [0], [kb]),
            ],
          };
          const solution = solveCalls(network);
          const Sb = solution.callSuccess[1]?.[0] as number;
          const sb = solution.s[1] as number;
          const inputs = { overload, n, kb, parallel, followUps, solution };
          expectClose(Sb, 1 - sb ** (kb + 1), { rel: 1e-12 }, inputs);
          if (parallel || n === 1 || !followUps) {
            expectClose(
              solution.callsIn[1]?.[0] as number,
              gamma * (parallel ? n : geometric(Sb, n - 1)),
              { rel: 1e-12 },
              inputs,
            );
            expectClose(solution.callSuccess[0]?.[0] as number, Sb ** n, { rel: 1e-12 }, inputs);
            expectClose(
              (solution.callsIn[1]?.[0] as number) * Sb,
              gamma / overload,
              { rel: 1e-9 },
              inputs,
            );
            return;
          }
          expectClose(Sb, 1 / (n * overload), { rel: 1e-9 }, inputs);
          expectClose(
            solution.callsIn[1]?.[0] as number,
            gamma * (1 + (n - 1) * Sb),
            { rel: 1e-12 },
            inputs,
          );
          expectClose(solution.callSuccess[0]?.[0] as number, Sb, { rel: 1e-12 }, inputs);
          const attempts = solution.attempts[1]?.[0] as number;
          expectClose(
            solution.attemptRejection[1] as number,
            1 - gamma / overload / attempts,
            { rel: 1e-9 },
            inputs,
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('call graph: branches and class-specific calls', () => {
  it('branches with p summing below 1: the rest makes no call and succeeds', () => {
    // a (k_a = 0) picks b with p_b, c (idle) with p_c, nothing with 1 − p_b − p_c. Calls into
    // b = γ p_b, so S_b = μ_b/(γ p_b), s_b = (1 − μ_b/(γ p_b))^(1/(k_b+1)); the end-to-end
    // completion is 1 − p_b (1 − S_b) = 1 − p_b + μ_b/γ.
    fc.assert(
      fc.property(
        fc.double({ min: 0.05, max: 0.9, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 1.2, max: 10, noNaN: true }),
        fc.integer({ min: 0, max: 4 }),
        (pb, share, overload, kb) => {
          const pc = share * (0.95 - pb) * 0.999;
          const gamma = 200;
          const mub = (gamma * pb) / overload;
          const network: NetworkModel = {
            classes: oneClass(0),
            services: [
              fluidService('a', 1e6, [gamma], [0], {
                branches: [
                  { p: pb, calls: [{ to: 1, n: 1 }] },
                  { p: pc, calls: [{ to: 2, n: 1 }] },
                ],
              }),
              fluidService('b', mub, [0], [kb]),
              fluidService('c', 1e6, [0], [kb]),
            ],
          };
          const solution = solveCalls(network);
          const report = analyzeNetwork(network);
          const form = nested(1 / overload, kb + 1);
          const inputs = { pb, pc, overload, kb, solution };
          expect(report.mode).toBe('calls');
          expectClose(solution.s[1] as number, form.s, { abs: 1e-12 }, inputs);
          expectClose(solution.callsIn[1]?.[0] as number, gamma * pb, { rel: 1e-12 }, inputs);
          expectClose(
            solution.callsIn[2]?.[0] as number,
            gamma * pc,
            { rel: 1e-12, abs: 1e-300 },
            inputs,
          );
          expectClose(solution.callSuccess[1]?.[0] as number, 1 / overload, { rel: 1e-9 }, inputs);
          expectClose(
            report.endToEnd.c?.completion ?? Number.NaN,
            1 - pb + mub / gamma,
            { abs: 1e-12 },
            inputs,
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('class-specific calls: only the named class calls b, the other never sees b overloaded', () => {
    // Classes high (0) and low (1). a calls c for both and b only for low; b is overloaded by
    // low alone, so low is the chain a → b (completion μ_b/γ_low) and high completes surely.
    fc.assert(
      fc.property(
        chain,
        fc.double({ min: 1, max: 1000, noNaN: true }),
        ({ gamma, overload, ka, kb }, high) => {
          const mub = gamma / overload;
          const network: NetworkModel = {
            classes: [
              { name: 'high', retryLimit: ka },
              { name: 'low', retryLimit: ka },
            ],
            services: [
              fluidService('a', 100 * (gamma + high) * (ka + 1), [high, gamma], [ka, ka], {
                calls: [
                  { to: 2, n: 1 },
                  { to: 1, n: 1, classIndex: 1 },
                ],
              }),
              fluidService('b', mub, [0, 0], [kb, kb]),
              fluidService('c', 1e3 * (gamma + high) * (ka + 1), [0, 0], [kb, kb]),
            ],
          };
          const solution = solveCalls(network);
          const report = analyzeNetwork(network);
          const form = nested(mub / gamma, (ka + 1) * (kb + 1));
          const Aa = geometric(form.power(kb + 1), ka);
          const inputs = { gamma, high, overload, ka, kb, solution };
          expectClose(solution.s[1] as number, form.s, { abs: 1e-12 }, inputs);
          expect(solution.callsIn[1]?.[0]).toBe(0);
          expect(solution.attempts[1]?.[0]).toBe(0);
          expectClose(solution.callsIn[1]?.[1] as number, gamma * Aa, { rel: 1e-9 }, inputs);
          expectClose(solution.callsIn[2]?.[0] as number, high, { rel: 1e-12 }, inputs);
          expectClose(solution.callsIn[2]?.[1] as number, gamma * Aa, { rel: 1e-9 }, inputs);
          expectClose(report.endToEnd.high?.completion ?? Number.NaN, 1, { abs: 1e-15 }, inputs);
          expectClose(
            report.endToEnd.low?.completion ?? Number.NaN,
            mub / gamma,
            { rel: 1e-9 },
            inputs,
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** Random call-graph DAGs: calls only go to later services; 1..2 classes; small programs. */
const callGraphs = fc
  .record({ n: fc.integer({ min: 2, max: 5 }), classCount: fc.integer({ min: 1, max: 2 }) })
  .chain(({ n, classCount }) => {
    const exactly = (length: number) => ({ minLength: length, maxLength: length });
    const call = fc.record({
      pick: fc.nat(),
      n: fc.integer({ min: 1, max: 2 }),
      parallel: fc.boolean(),
      classIndex: fc.option(fc.integer({ min: 0, max: classCount - 1 }), { freq: 3 }),
    });
    return fc.record({
      n: fc.constant(n),
      classCount: fc.constant(classCount),
      followUps: fc.boolean(),
      entry: fc.array(fc.double({ min: 0.05, max: 2, noNaN: true }), exactly(classCount)),
      services: fc.array(
        fc.record({
          model: fc.constantFrom<ModelName>('fluid', 'mm1m', 'mixed'),
          capacity: fc.double({ min: 1, max: 100, noNaN: true }),
          queue: fc.integer({ min: 1, max: 50 }),
          loads: fc.array(
            fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true })),
            exactly(classCount),
          ),
          limits: fc.array(fc.integer({ min: 0, max: 2 }), exactly(classCount)),
          calls: fc.array(call, { maxLength: 3 }),
          branches: fc.option(
            fc.record({
              mass: fc.double({ min: 0.3, max: 1, noNaN: true }),
              weights: fc.array(
                fc.record({
                  weight: fc.double({ min: 0.1, max: 1, noNaN: true }),
                  calls: fc.array(call, { minLength: 1, maxLength: 2 }),
                }),
                { minLength: 1, maxLength: 2 },
              ),
            }),
            { freq: 2 },
          ),
        }),
        exactly(n),
      ),
    });
  })
  .map(({ n, classCount, followUps, entry, services }): NetworkModel => {
    const toCall =
      (i: number) =>
      (c: {
        pick: number;
        n: number;
        parallel: boolean;
        classIndex: number | null;
      }): NetworkCall => ({
        to: i + 1 + (c.pick % (n - i - 1)),
        n: c.n,
        parallel: c.parallel,
        ...(c.classIndex === null ? {} : { classIndex: c.classIndex }),
      });
    return {
      mode: 'calls',
      followUps,
      classes: Array.from({ length: classCount }, (_, p) => ({ name: `c${p}`, retryLimit: 1 })),
      services: services.map((s, i) => {
        const leaf = i === n - 1;
        const total = s.branches?.weights.reduce((sum, b) => sum + b.weight, 0) ?? 1;
        return {
          name: `s${i}`,
          capacity: s.capacity,
          queue: s.queue,
          model: s.model,
          arrivals: s.loads.map((x, p) => (i === 0 ? (entry[p] as number) : x) * s.capacity),
          retryLimits: s.limits,
          routes: [],
          calls: leaf ? [] : s.calls.map(toCall(i)),
          branches:
            leaf || s.branches === null
              ? []
              : s.branches.weights.map((b) => ({
                  p: ((s.branches?.mass ?? 1) * b.weight) / total,
                  calls: b.calls.map(toCall(i)),
                })),
        };
      }),
    };
  });

describe('call graph: random DAGs against a brute-force evaluation', () => {
  it('every table matches the enumerated programs at the solved s, and s = φ(ρ(s)) at every service', () => {
    // At the solver's s the reference recomputes q, S, A, calls and attempts with every call's
    // outcome enumerated (sum forms for A), so these agree to rounding (1e-9 relative). The
    // solver stops when no s moved by more than 1e-12 in a sweep; the fixed-point residual
    // |s_j − φ_j(Σ_p Λ_j^p/μ_j)| is then bounded by that step times the slope, ≤ 1e-9 here.
    // fast-check likes fluid
    // loads within 1e-13 of the capacity, where Gauss–Seidel creeps (one such case needed 1,552
    // sweeps): the sweep limit is raised from the default 1,000.
    fc.assert(
      fc.property(callGraphs, (network) => {
        const solution = solveCalls(network, { maxIterations: 20_000 });
        const reference = evaluateCalls(network, solution.s);
        const rel = 1e-9;
        const inputs = { network, s: solution.s };
        expect(solution.converged, JSON.stringify(inputs)).toBe(true);
        const gaps = closureGaps(network, solution.s, (j, rho) => {
          const service = network.services[j] as NetworkService;
          return phiReference(service.model, rho, service.queue);
        });
        network.services.forEach((_, j) => {
          const s = solution.s[j] as number;
          expect(s, JSON.stringify(inputs)).toBeGreaterThanOrEqual(0);
          expect(s, JSON.stringify(inputs)).toBeLessThan(1);
          expectClose(gaps[j] as number, 0, { abs: rel }, { ...inputs, j });
          network.classes.forEach((_, p) => {
            const at = { ...inputs, j, p };
            const pairs: [string, number[][], number[][]][] = [
              ['attemptSuccess', solution.attemptSuccess, reference.attemptSuccess],
              ['callSuccess', solution.callSuccess, reference.callSuccess],
              ['callsIn', solution.callsIn, reference.callsIn],
              ['attempts', solution.attempts, reference.attempts],
            ];
            for (const [name, got, want] of pairs) {
              expectClose(
                got[j]?.[p] as number,
                want[j]?.[p] as number,
                { rel, abs: 1e-12 },
                {
                  ...at,
                  name,
                },
              );
            }
          });
        });
      }),
      // A fixed seed keeps the suite reproducible and its time bounded: some random fluid loads
      // sit within 1e-13 of capacity, where the sweeps creep.
      { numRuns: 60, seed: 20261129 },
    );
  });
});

describe('call graph: tiny attempt success', () => {
  it('attempts per call stay 1 with k = 0 when q < 1e-16 (no cancellation in (1 − (1 − q)^(k+1))/q)', () => {
    // a (k = 0, fluid, idle) calls b 8 times in sequence; b (fluid, μ = 1, k = 0) gets ~100
    // calls/s, so a call to b succeeds with S_b ≈ 0.01 and a's attempt with q_a = S_b^8 ≈ 1e-16.
    // Evaluated as written, 1 − q_a rounds and A_a came out 2 (0 for smaller q): a reported 200
    // attempts/s for 100 requests/s with no retries, and b accepted 1.9 attempts/s at capacity
    // 1. (Found by this suite; fixed in src with log1p/expm1 while it was being written.)
    const network: NetworkModel = {
      classes: oneClass(0),
      services: [
        fluidService('a', 1000, [100], [0], { calls: [{ to: 1, n: 8 }] }),
        fluidService('b', 1, [0], [0]),
      ],
    };
    const solution = solveCalls(network);
    expect(solution.attempts[0]?.[0]).toBeCloseTo(100, 9);
    const accepted = (solution.attempts[1]?.[0] as number) * (1 - (solution.s[1] as number));
    expect(accepted).toBeLessThanOrEqual(1 + 1e-9);
    // Fluid b accepts exactly μ_b = 1: calls_b·S_b = 1 with calls_b = 100 Σ_{m<8} S_b^m.
    const Sb = solution.callSuccess[1]?.[0] as number;
    expectClose(100 * geometric(Sb, 7) * Sb, 1, { rel: 1e-9 }, { solution });
    expectClose(solution.callSuccess[0]?.[0] as number, Sb ** 8, { rel: 1e-9 }, { solution });
  });
});
