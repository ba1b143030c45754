import { describe, expect, it } from 'vitest';
import { routingStructure } from '../../../src/model/network/structure.js';
import {
  addCheck,
  type ConfigurationCheck,
  checkConfiguration,
  EMPTY_TALLY,
  INITIAL_SPREAD,
  type RoutingSolver,
  tallyChecks,
} from '../../../src/model/uniqueness/index.js';
import { cyclicBase, drawn } from './uniquenessFixtures.js';

describe('checkConfiguration', () => {
  it('is reproducible: the same network and seed give the same check', () => {
    const base = cyclicBase(20, 8, 3);
    const once = () => {
      const { network, random } = drawn(base, 5);
      return checkConfiguration(network, { inits: 6, random });
    };
    expect(once()).toEqual(once());
  });

  it('starts run 0 at γ and the others uniformly in [0, 10 (γ + Γ)]', () => {
    const { network, random } = drawn(cyclicBase(10, 2), 17);
    const starts: (readonly (readonly number[])[] | undefined)[] = [];
    const solve: RoutingSolver = (_network, initialIn) => {
      starts.push(initialIn);
      return { lambdaIn: [[1]], converged: true, iterations: 1 };
    };
    checkConfiguration(network, { inits: 5, random, solve });
    expect(starts).toHaveLength(5);
    expect(starts[0]).toBeUndefined();
    const total = network.services.flatMap((s) => s.arrivals).reduce((a, b) => a + b, 0);
    for (const start of starts.slice(1)) {
      expect(start).toHaveLength(network.services.length);
      start?.forEach((row, i) => {
        row.forEach((x, p) => {
          const gamma = network.services[i]?.arrivals[p] ?? 0;
          expect(x).toBeGreaterThanOrEqual(0);
          expect(x).toBeLessThanOrEqual(INITIAL_SPREAD * (gamma + total));
        });
      });
    }
    expect(starts[1]).not.toEqual(starts[2]);
  });

  it('reports a configuration whose runs reach two different fixed points', () => {
    const { network, random } = drawn(cyclicBase(8, 1), 3);
    const one = network.services.map(() => network.classes.map(() => 100));
    const other = network.services.map((_, i) => network.classes.map(() => (i === 0 ? 100 : 90)));
    const solve: RoutingSolver = (_network, initialIn) => ({
      lambdaIn: initialIn === undefined ? one : other,
      converged: true,
      iterations: 3,
    });
    const check = checkConfiguration(network, { inits: 4, random, solve });
    expect(check.distinct?.first.init).toBe(0);
    expect(check.distinct?.first.lambdaIn).toEqual(one);
    expect(check.distinct?.second.lambdaIn).toEqual(other);
    expect(check.distinct?.difference).toBeCloseTo(0.1, 12);
    expect(tallyChecks([check]).counterexamples).toBe(1);
  });

  it('counts runs that did not converge apart, never as a counterexample', () => {
    const { network, random } = drawn(cyclicBase(8, 1), 3);
    let call = 0;
    const solve: RoutingSolver = () => ({
      lambdaIn: network.services.map(() => network.classes.map(() => call)),
      converged: call++ % 2 === 0,
      iterations: 10_000,
    });
    const check = checkConfiguration(network, { inits: 4, random, solve });
    expect(check.converged).toBe(2);
    expect(check.nonConverged).toBe(2);
    // Runs 0 and 2 converged, to 0 and 2: they differ.
    expect(check.distinct?.second.init).toBe(2);
  });

  it('finds one fixed point for class-independent routing with P ≤ 2 (where it is proven)', () => {
    const base = cyclicBase(14, 6, 3);
    let checked = 0;
    for (let s = 0; s < 2000 && checked < 4; s++) {
      const { network, random } = drawn(base, s, 2);
      if (routingStructure(network).uniqueness !== 'class-independent') continue;
      checked++;
      expect(network.classes.length).toBeLessThanOrEqual(2);
      const check = checkConfiguration(network, { inits: 8, random });
      expect(check.guarantee).toBe('class-independent');
      expect(check.nonConverged, `configuration ${s}`).toBe(0);
      expect(check.distinct, `configuration ${s}`).toBeUndefined();
    }
    expect(checked).toBe(4);
  });

  it('rejects a bad number of starts', () => {
    const { network, random } = drawn(cyclicBase(5, 1, 1), 1);
    expect(() => checkConfiguration(network, { inits: 0, random })).toThrow(
      /inits should be a positive integer, got 0/,
    );
  });
});

describe('tallyChecks', () => {
  const check = (over: Partial<ConfigurationCheck>): ConfigurationCheck => ({
    classes: 3,
    services: 10,
    guarantee: 'none',
    runs: 5,
    converged: 5,
    nonConverged: 0,
    maxIterations: 40,
    ...over,
  });

  it('sums cases, runs and guarantees, whatever the order', () => {
    const checks = [
      check({}),
      check({ guarantee: 'norm', converged: 3, nonConverged: 2 }),
      check({ guarantee: 'class-independent' }),
    ];
    const tally = tallyChecks(checks);
    expect(tally).toEqual({
      cases: 15,
      configurations: 3,
      convergedRuns: 13,
      nonConvergedRuns: 2,
      nonConvergedConfigurations: 1,
      guarantees: { dag: 0, norm: 1, 'class-independent': 1, none: 1 },
      counterexamples: 0,
    });
    expect(tallyChecks([...checks].reverse())).toEqual(tally);
    expect(addCheck(EMPTY_TALLY, check({})).cases).toBe(5);
    expect(EMPTY_TALLY.cases).toBe(0);
  });
});
