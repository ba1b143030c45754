/**
 * The compiled path (a network compiled once, settled from each start) against the per-case path
 * it replaced (`perCaseReference.ts`, frozen), bit for bit, on seeded configurations.
 */
import { describe, expect, it } from 'vitest';
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';
import { solveRouting } from '../../../src/model/network/solveRouting.js';
import { checkConfiguration } from '../../../src/model/uniqueness/index.js';
import { checkConfigurationPerCase, solveRoutingPerCase } from './perCaseReference.js';
import { cyclicBase, drawn } from './uniquenessFixtures.js';

/** A few bases and configurations: seeds listed so a failure names its inputs. */
const CASES = [
  { services: 6, graphSeed: 1, backEdges: 1 },
  { services: 12, graphSeed: 4, backEdges: 3 },
  { services: 20, graphSeed: 8, backEdges: 4 },
  { services: 30, graphSeed: 2, backEdges: 7 },
].flatMap((base) => [0, 1, 2, 3, 4, 5].map((configuration) => ({ ...base, configuration })));

describe('the compiled routing solver', () => {
  it.each(CASES)('solveRouting matches the per-case solver bit for bit: %o', (c) => {
    const { network, random } = drawn(
      cyclicBase(c.services, c.graphSeed, c.backEdges),
      c.configuration,
    );
    const start = network.services.map(() => network.classes.map(() => 500 * random()));
    expect(solveRouting(network)).toStrictEqual(solveRoutingPerCase(network));
    expect(solveRouting(network, { initialIn: start })).toStrictEqual(
      solveRoutingPerCase(network, { initialIn: start }),
    );
  });

  it('takes the general single-service path for residual-time corrected services, unchanged', () => {
    const { network } = drawn(cyclicBase(12, 4, 3), 2);
    const corrected: NetworkModel = {
      ...network,
      services: network.services.map((service, i) => ({
        ...service,
        residualAlphas:
          i % 2 === 0 ? network.classes.map((_, p) => [0.5 + 0.05 * p, 0.9]) : undefined,
      })),
    };
    expect(solveRouting(corrected)).toStrictEqual(solveRoutingPerCase(corrected));
    expect(solveRouting(corrected)).not.toStrictEqual(solveRouting(network));
  });

  it('keeps a partial start: missing entries start at γ', () => {
    const { network } = drawn(cyclicBase(10, 3, 2), 1);
    const start = [[1000], [], [5, 6, 7]];
    expect(solveRouting(network, { initialIn: start })).toStrictEqual(
      solveRoutingPerCase(network, { initialIn: start }),
    );
  });
});

describe('checkConfiguration on the compiled path', () => {
  it.each(CASES)('finds what K per-case solves find, bit for bit: %o', (c) => {
    const base = cyclicBase(c.services, c.graphSeed, c.backEdges);
    const compiled = drawn(base, c.configuration);
    const perCase = drawn(base, c.configuration);
    expect(
      checkConfiguration(compiled.network, {
        inits: 6,
        random: compiled.random,
        exact: true,
      }),
    ).toEqual(checkConfigurationPerCase(perCase.network, { inits: 6, random: perCase.random }));
  });

  it('reports the same pair as the per-case path when the tolerance makes runs distinct', () => {
    // A tolerance below the solver's own makes converged runs of one fixed point "distinct": the
    // pair and its difference must still be the per-case path's.
    const base = cyclicBase(20, 8, 4);
    let compared = 0;
    for (let seed = 0; seed < 12; seed++) {
      const a = drawn(base, seed);
      const b = drawn(base, seed);
      const compiled = checkConfiguration(a.network, {
        inits: 8,
        random: a.random,
        tolerance: 0,
        exact: true,
      });
      const perCase = checkConfigurationPerCase(b.network, {
        inits: 8,
        random: b.random,
        tolerance: 0,
      });
      expect(compiled, `configuration ${seed}`).toStrictEqual(perCase);
      if (compiled.distinct !== undefined) compared++;
    }
    expect(compared).toBeGreaterThan(0);
  });
});
