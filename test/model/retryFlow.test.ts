import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ModelName,
  type ResidualClosure,
  retryFlow,
  solveService,
} from '../../src/model/index.js';
import {
  attemptsReference,
  expectClose,
  fixedPointResidual,
  residualFlowReference,
  rootSlack,
  solveReference,
} from './reference.js';

const probability = fc.double({ min: 0, max: 1, noNaN: true });
const rejectionProbability = fc.double({ min: 0, max: 0.999, noNaN: true });
const retryLimit = fc.integer({ min: 0, max: 30 });
const models = fc.constantFrom<ModelName>('fluid', 'mm1m', 'mixed');

describe('retryFlow: independent attempts', () => {
  it('attempts = (1 − s^(k+1))/(1 − s) and R = s^(k+1)', () => {
    // Sums of ≤ 31 terms in [0, 1]: 1e-13 relative.
    fc.assert(
      fc.property(rejectionProbability, retryLimit, (s, k) => {
        const flow = retryFlow(s, k);
        expectClose(flow.attemptsPerRequest, attemptsReference(s, k), { rel: 1e-13 }, { s, k });
        expectClose(flow.rejection, s ** (k + 1), { rel: 1e-13, abs: 1e-300 }, { s, k });
      }),
      { numRuns: 500 },
    );
    expect(retryFlow(0.5, 0)).toEqual({ attemptsPerRequest: 1, rejection: 0.5 });
    expect(retryFlow(0.5, 2)).toEqual({ attemptsPerRequest: 1.75, rejection: 0.125 });
    expect(retryFlow(1, 1000)).toEqual({ attemptsPerRequest: 1001, rejection: 1 });
    expect(retryFlow(0, 1000)).toEqual({ attemptsPerRequest: 1, rejection: 0 });
    expect(retryFlow(0.5, 3, [])).toEqual(retryFlow(0.5, 3));
  });

  it('every α = 1 gives back the independent model exactly', () => {
    fc.assert(
      fc.property(probability, retryLimit, fc.integer({ min: 1, max: 5 }), (s, k, n) => {
        expect(retryFlow(s, k, Array(n).fill(1)), JSON.stringify({ s, k, n })).toEqual(
          retryFlow(s, k),
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('retryFlow: residual-time correction', () => {
  it('one α: R = s s_r^k and Λ/λ = 1 + s Σ_{j<k} s_r^j with s_r = 1 − α + α s', () => {
    fc.assert(
      fc.property(probability, retryLimit, probability, (s, k, alpha) => {
        const flow = retryFlow(s, k, [alpha]);
        const reference = residualFlowReference(s, k, alpha);
        const inputs = { s, k, alpha };
        expectClose(flow.attemptsPerRequest, reference.attemptsPerRequest, { rel: 1e-13 }, inputs);
        expectClose(flow.rejection, reference.rejection, { rel: 1e-13, abs: 1e-300 }, inputs);
      }),
      { numRuns: 500 },
    );
    // α = 0: every retry meets a full system, so R = s and Λ/λ = 1 + k s.
    expect(retryFlow(0.25, 4, [0])).toEqual({ attemptsPerRequest: 2, rejection: 0.25 });
  });

  it('a shorter α array repeats its last element', () => {
    // α = (a, b, b, b): R = s · s_r(a) · s_r(b)³ and Λ/λ = 1 + s + s s_r(a) + s s_r(a) s_r(b) + ….
    fc.assert(
      fc.property(probability, probability, probability, (s, a, b) => {
        const sa = 1 - a + a * s;
        const sb = 1 - b + b * s;
        const reach = [1, s, s * sa, s * sa * sb, s * sa * sb * sb];
        const flow = retryFlow(s, 4, [a, b]);
        const inputs = { s, a, b };
        expectClose(
          flow.attemptsPerRequest,
          reach.reduce((x, y) => x + y, 0),
          { rel: 1e-14 },
          inputs,
        );
        expectClose(flow.rejection, s * sa * sb ** 3, { rel: 1e-14, abs: 1e-300 }, inputs);
        expect(retryFlow(s, 4, [a, b, b, b, 0.123])).toEqual(flow);
      }),
      { numRuns: 300 },
    );
  });

  it('smaller α ⇒ larger R and more attempts at a given s', () => {
    fc.assert(
      fc.property(probability, retryLimit, probability, probability, (s, k, x, y) => {
        const [small, large] = x <= y ? [x, y] : [y, x];
        const a = retryFlow(s, k, [small]);
        const b = retryFlow(s, k, [large]);
        const message = JSON.stringify({ s, k, small, large });
        expect(a.rejection, message).toBeGreaterThanOrEqual(b.rejection * (1 - 1e-14));
        expect(a.attemptsPerRequest, message).toBeGreaterThanOrEqual(
          b.attemptsPerRequest * (1 - 1e-14),
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('solveService with the residual-time correction', () => {
  const loads = fc.record({
    model: models,
    capacity: fc.double({ min: 0.1, max: 1000, noNaN: true }),
    queue: fc.integer({ min: 1, max: 60 }),
    shares: fc.array(
      fc.record({
        // No subnormal rates here: see the known-bug case at the end of this block.
        load: fc.oneof(fc.constant(0), fc.double({ min: 1e-9, max: 3, noNaN: true })),
        retryLimit: fc.integer({ min: 0, max: 8 }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  });
  const closures = fc.constantFrom<ResidualClosure>('flow', 'attempt');
  type Generated = {
    model: ModelName;
    capacity: number;
    queue: number;
    shares: { load: number; retryLimit: number }[];
  };
  const classesOf = ({ capacity, shares }: Generated, alpha?: number) =>
    shares.map((c) => ({
      arrivalRate: c.load * capacity,
      retryLimit: c.retryLimit,
      ...(alpha === undefined ? {} : { residualAlphas: [alpha] }),
    }));

  it('every α = 1 gives the independent model (both closures)', () => {
    // `attempt`: the same function as the independent model, so bit-identical. `flow`: s̄ = s up to
    // rounding (1 − accepted/attempts), so Brent may take another path: s agrees to the solver
    // tolerance (two solves, 2.2e-12), the per-class figures follow from s.
    fc.assert(
      fc.property(loads, closures, (generated, residualClosure) => {
        const { model, capacity, queue } = generated;
        const independent = solveService({ model, capacity, queue, classes: classesOf(generated) });
        const corrected = solveService({
          model,
          capacity,
          queue,
          residualClosure,
          classes: classesOf(generated, 1),
        });
        const inputs = { generated, residualClosure };
        if (residualClosure === 'attempt') {
          expect(corrected, JSON.stringify(inputs)).toEqual(independent);
          return;
        }
        const h = fixedPointResidual(model, capacity, queue, classesOf(generated));
        expectClose(corrected.s, independent.s, { abs: 2 * rootSlack(h, independent.s) }, inputs);
        corrected.classes.forEach((c, p) => {
          const k = generated.shares[p]?.retryLimit ?? 0;
          expectClose(
            c.rejection,
            corrected.s ** (k + 1),
            { rel: 1e-12, abs: 1e-300 },
            { ...inputs, p },
          );
        });
      }),
      { numRuns: 200 },
    );
  });

  it('constant α: R = s s_r^k, Λ = λ (1 + s Σ_{j<k} s_r^j) at the reported s (both closures)', () => {
    fc.assert(
      fc.property(loads, probability, closures, (generated, alpha, residualClosure) => {
        const { model, capacity, queue } = generated;
        const classes = classesOf(generated, alpha);
        const report = solveService({ model, capacity, queue, residualClosure, classes });
        const { s } = report;
        classes.forEach((c, p) => {
          const reference = residualFlowReference(s, c.retryLimit, alpha);
          const got = report.classes[p];
          const inputs = { generated, alpha, residualClosure, s, p };
          expectClose(
            got?.rejection ?? Number.NaN,
            reference.rejection,
            { rel: 1e-12, abs: 1e-300 },
            inputs,
          );
          expectClose(
            got?.attempts ?? Number.NaN,
            c.arrivalRate * reference.attemptsPerRequest,
            { rel: 1e-12 },
            inputs,
          );
          expectClose(
            got?.goodput ?? Number.NaN,
            c.arrivalRate * (1 - reference.rejection),
            { rel: 1e-12, abs: 1e-300 },
            inputs,
          );
        });
      }),
      { numRuns: 200 },
    );
  });

  it('`attempt` closure (docs/design.md literally): s is a root of s = φ(ρ(s))', () => {
    // This closure can have several roots (see the known-bug case below), so the check is local:
    // h changes sign (or vanishes) within 1e-12 + rootSlack of s.
    fc.assert(
      fc.property(loads, probability, (generated, alpha) => {
        const { model, capacity, queue } = generated;
        const classes = classesOf(generated, alpha);
        const { s } = solveService({ model, capacity, queue, residualClosure: 'attempt', classes });
        const reference = classes.map((c) => ({ ...c, alpha }));
        const h = fixedPointResidual(model, capacity, queue, reference, 'attempt');
        const inputs = JSON.stringify({ generated, alpha, s });
        const delta = 1e-12 + rootSlack(h, s);
        const below = h(Math.max(0, s - delta));
        const above = h(Math.min(1, s + delta));
        expect(below * above <= 0 || Math.abs(h(s)) <= 1e-15, inputs).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('`flow` closure (default): s̄(s) = φ(ρ(s)), agreeing with an independent bisection', () => {
    // s̄(s) − φ(ρ(s)) had a single sign change in every case tried, so bisection and Brent find the
    // same root; each is within ~1.1e-12 of it.
    fc.assert(
      fc.property(loads, probability, (generated, alpha) => {
        const { model, capacity, queue } = generated;
        const classes = classesOf(generated, alpha);
        const report = solveService({ model, capacity, queue, classes });
        const flowReport = solveService({
          model,
          capacity,
          queue,
          residualClosure: 'flow',
          classes,
        });
        expect(report).toEqual(flowReport);
        const reference = classes.map((c) => ({ ...c, alpha }));
        const expected = solveReference(model, capacity, queue, reference, 'flow');
        const h = fixedPointResidual(model, capacity, queue, reference, 'flow');
        expectClose(
          report.s,
          expected,
          { abs: 1.1e-12 + rootSlack(h, expected) },
          {
            generated,
            alpha,
          },
        );
      }),
      { numRuns: 200 },
    );
  });

  it('`flow` closure, fluid overload: the goodputs add up to μ', () => {
    fc.assert(
      fc.property(loads, probability, (generated, alpha) => {
        const { capacity, queue } = generated;
        const classes = classesOf(generated, alpha);
        const total = classes.reduce((sum, c) => sum + c.arrivalRate, 0);
        fc.pre(total > capacity * (1 + 1e-6));
        const report = solveService({ model: 'fluid', capacity, queue, classes });
        const goodput = report.classes.reduce((sum, c) => sum + c.goodput, 0);
        // dE/ds ≤ Σλ (k+1) ≤ 12 · 9 μ, times 1.1e-12: 1e-9 relative.
        expectClose(goodput, capacity, { rel: 1e-9 }, { generated, alpha, s: report.s });
      }),
      { numRuns: 200 },
    );
  });

  it('smaller α ⇒ larger R_p (every class under `attempt`; one class under `flow`)', () => {
    // Two solves, each within its slack of its root (rootSlack); R_p = s s_r^k moves by at most
    // (k_p + 1) times that.
    //
    // Under `flow` (the default) the law holds for one class but not class by class in a mix:
    // μ = 1, m = 1, mm1m, λ = (0.2, 0.7), k = (1, 3): α = 0.15 gives R₁ = 0.347, α = 0.75 gives
    // R₁ = 0.431 (with α small, rejected retries make up more of s̄ = φ(ρ), so first attempts are
    // rejected less). Even the total goodput can rise as α falls. So `flow` is checked on the
    // first class alone; `attempt` on every class, and its s rises as α falls.
    fc.assert(
      fc.property(loads, probability, probability, closures, (generated, x, y, residualClosure) => {
        const problem =
          residualClosure === 'flow'
            ? { ...generated, shares: generated.shares.slice(0, 1) }
            : generated;
        const { model, capacity, queue } = problem;
        const [small, large] = x <= y ? [x, y] : [y, x];
        const solve = (alpha: number) =>
          solveService({
            model,
            capacity,
            queue,
            residualClosure,
            classes: classesOf(problem, alpha),
          });
        const a = solve(small);
        const b = solve(large);
        const message = JSON.stringify({ problem, small, large, residualClosure });
        if (residualClosure === 'attempt') {
          // Several roots are possible here; compare only where the solve is unambiguous.
          fc.pre(a.s > 0 && b.s > 0);
        }
        const h = (alpha: number) =>
          fixedPointResidual(
            model,
            capacity,
            queue,
            classesOf(problem).map((c) => ({ ...c, alpha })),
            residualClosure,
          );
        const slackS = rootSlack(h(small), a.s) + rootSlack(h(large), b.s);
        // Under `flow` s need not rise: in fluid overload the goodput is pinned at μ, so R is
        // fixed and a larger α (smaller s_r) comes with a larger s.
        if (residualClosure === 'attempt') {
          expect(a.s, message).toBeGreaterThanOrEqual(b.s - slackS);
        }
        a.classes.forEach((c, p) => {
          const k = problem.shares[p]?.retryLimit ?? 0;
          expect(c.rejection, `${message} class ${p}`).toBeGreaterThanOrEqual(
            (b.classes[p]?.rejection ?? 0) - (k + 1) * slackS,
          );
        });
      }),
      { numRuns: 200 },
    );
  });

  it('α = 0 (retries always meet a full system): R = s for every k', () => {
    const classes = [{ arrivalRate: 200, retryLimit: 5, residualAlphas: [0] }];
    // `flow`, fluid: goodput λ (1 − s) = μ, so s = R = 1 − 143/200 = 0.285.
    const flow = solveService({ capacity: 143, queue: 50, model: 'fluid', classes });
    expectClose(flow.s, 0.285, { abs: 1.1e-12 }, { classes, closure: 'flow' });
    expectClose(flow.classes[0]?.rejection ?? 0, flow.s, { rel: 1e-15 }, classes);
    // `attempt`, fluid: s = 1 − μ/Λ with Λ = λ (1 + 5 s), i.e. 200 (1 − s)(1 + 5 s) = 143 or
    // 1000 s² − 800 s − 57 = 0, whose root in [0, 1] is 0.86583….
    const attempt = solveService({
      capacity: 143,
      queue: 50,
      model: 'fluid',
      residualClosure: 'attempt',
      classes,
    });
    const root = (800 + Math.sqrt(800 * 800 + 4 * 1000 * 57)) / 2000;
    expectClose(attempt.s, root, { abs: 1.1e-12 }, { classes, closure: 'attempt' });
  });

  it('`attempt` closure: the fixed point need not be unique, and the report does not say so', () => {
    // λ = 0.9, μ = 1, k = 6, α = 0, fluid: h(s) = s − φ(0.9 (1 + 6 s)) vanishes at s = 0, at
    // s ≈ 0.0228 and at s ≈ 0.8105 (0.9 (1 + 5 s − 6 s²) = 1 ⇔ 5.4 s² − 4.5 s + 0.1 = 0).
    // solveService's doc promises a unique root; here Brent returns s = 0 (h(0) = 0) without a
    // word about the other two (reported as a finding; `flow`, the default, had one root in
    // every case tried).
    const report = solveService({
      capacity: 1,
      queue: 1,
      model: 'fluid',
      residualClosure: 'attempt',
      classes: [{ arrivalRate: 0.9, retryLimit: 6, residualAlphas: [0] }],
    });
    const h = fixedPointResidual('fluid', 1, 1, [{ arrivalRate: 0.9, retryLimit: 6, alpha: 0 }]);
    const discriminant = Math.sqrt(4.5 ** 2 - 4 * 5.4 * 0.1);
    const roots = [0, (4.5 - discriminant) / 10.8, (4.5 + discriminant) / 10.8];
    for (const r of roots) expectClose(h(r), 0, { abs: 1e-14 }, { root: r });
    expect(report.s).toBe(0);
    const flow = solveService({
      capacity: 1,
      queue: 1,
      model: 'fluid',
      classes: [{ arrivalRate: 0.9, retryLimit: 6, residualAlphas: [0] }],
    });
    expect(flow.s, 'flow closure, Σλ < μ').toBe(0);
  });

  it('`flow` closure with a subnormal arrival rate solves a different problem', () => {
    // s̄ = 1 − Σλ(1 − R)/ΣΛ is formed from λ·(…) products: with λ = 5e-324 they round to 0 or
    // 5e-324, s̄ jumps from 0 to 1 at s = 1/2 and Brent returns s = 0.4999999999993405, where the
    // independent model (α = 1 is the independent model) gives s = 0. Likewise λ = 1e-320,
    // k = 3, α = 0.5, μ = 1, m = 1: s = 1.4e-4 instead of ≈ 1e-320. Dividing by Σλ first avoids it.
    const classes = [{ arrivalRate: 5e-324, retryLimit: 0 }];
    const load = { capacity: 0.1, queue: 1, model: 'mm1m' as const };
    const independent = solveService({ ...load, classes });
    const corrected = solveService({
      ...load,
      classes: classes.map((c) => ({ ...c, residualAlphas: [1] })),
    });
    expectClose(corrected.s, independent.s, { abs: 1e-12 }, { ...load, classes });
  });
});
