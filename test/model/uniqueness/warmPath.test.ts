/**
 * The uniqueness check's warm path (`warmRoutingSolver`: the sweeps of `settleRouting` with warm,
 * inexact service solves) against the frozen per-case path (`perCaseReference.ts`, which the
 * compiled `settleRouting` matches bit for bit: `compiledPath.test.ts`). Not bit for bit: every
 * case's fixed point within {@link AGREEMENT} relative — 1/1000 of the 1e-6 that makes two runs
 * distinct — and the same verdicts.
 */
import { describe, expect, it } from 'vitest';
import { generateCyclic } from '../../../src/config/generators/generateCyclic.js';
import { databaseCount } from '../../../src/config/generators/muBenchTopology.js';
import { toNetworkModel } from '../../../src/config/toNetworkModel.js';
import {
  drawUniquenessConfiguration,
  runUniquenessJob,
} from '../../../src/experiments/uniqueness/uniquenessWorker.js';
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';
import { routingState } from '../../../src/model/network/RoutingState.js';
import { compileRouting } from '../../../src/model/network/routingPlan.js';
import { settleRouting } from '../../../src/model/network/solveRouting.js';
import { seededRandom } from '../../../src/model/random.js';
import {
  backEdgeCount,
  checkConfiguration,
  configurationSeed,
  DISTINCT_TOLERANCE,
  drawConfiguration,
  graphPlan,
  INITIAL_SPREAD,
  largestRelativeDifference,
} from '../../../src/model/uniqueness/index.js';
import { warmRoutingSolver } from '../../../src/model/uniqueness/warmRoutingSolver.js';
import { checkConfigurationPerCase, solveRoutingPerCase } from './perCaseReference.js';
import { cyclicBase, drawn } from './uniquenessFixtures.js';

/**
 * How far the warm path's fixed point may be from the per-case one, relative (flows under
 * 1e-9 Γ absolutely, as the check compares): 1/1000 of the distinctness threshold. Seen when
 * this was written: at most 2.1e-13 on the 600 cases below, and 1.7e-11 on 16,000 cases of the
 * same seed (graphs 0–39 × configurations 0–39), where a cycle that settles slowly leaves both
 * solvers about that far from its exact fixed point when their sweeps stop.
 */
const AGREEMENT = DISTINCT_TOLERANCE / 1000;

/** The CLI's jobs (seed 1): graphs 0–11, configurations 0–4, ten starts each (600 cases). */
const SETTINGS = { seed: 1, inits: 10, classesMax: 9 } as const;
const JOBS = Array.from({ length: 12 }, (_, graph) =>
  Array.from({ length: 5 }, (_, configuration) => ({ graph, configuration })),
).flat();

/** Every start of a job, drawn as the check draws them, as flat vectors (start 0: γ). */
function startsOf(network: NetworkModel, random: () => number, inits: number) {
  const classCount = network.classes.length;
  const gamma = network.services.flatMap((s) => network.classes.map((_, p) => s.arrivals[p] ?? 0));
  const total = gamma.reduce((a, b) => a + b, 0);
  const starts: (Float64Array | undefined)[] = [undefined];
  for (let init = 1; init < inits; init++) {
    starts.push(Float64Array.from(gamma, (g) => INITIAL_SPREAD * (g + total) * random()));
  }
  return { starts, classCount, floor: 1e-9 * total };
}

describe('warmRoutingSolver', () => {
  it(`reaches every start's per-case fixed point within ${AGREEMENT} relative (CLI jobs, seed 1)`, () => {
    const graphs = new Map<number, NetworkModel>();
    let worst = 0;
    let cases = 0;
    for (const job of JOBS) {
      const { network, random } = drawUniquenessConfiguration(job, SETTINGS, graphs);
      const warm = warmRoutingSolver(network, compileRouting(network));
      expect(warm, `graph ${job.graph}`).toBeDefined();
      const { starts, classCount, floor } = startsOf(network, random, SETTINGS.inits);
      starts.forEach((start, init) => {
        const table =
          start === undefined
            ? undefined
            : network.services.map((_, i) =>
                Array.from(start.subarray(i * classCount, (i + 1) * classCount)),
              );
        const expected = solveRoutingPerCase(
          network,
          table === undefined ? {} : { initialIn: table },
        );
        const got = warm?.solve(start);
        const where = `graph ${job.graph}, configuration ${job.configuration}, start ${init}`;
        expect(got?.converged, where).toBe(expected.converged);
        if (!expected.converged) return;
        const difference = largestRelativeDifference(
          expected.lambdaIn.flat(),
          got?.fixedPoint ?? [],
          floor,
        );
        expect(difference, where).toBeLessThanOrEqual(AGREEMENT);
        if (difference > worst) worst = difference;
        cases++;
      });
    }
    expect(cases).toBeGreaterThan(500);
    expect(worst).toBeLessThan(AGREEMENT);
  });

  it('solves in fewer evaluations of φ than Brent from [0, 1] takes per solve', () => {
    const { network } = drawn(cyclicBase(20, 8, 4), 3);
    const warm = warmRoutingSolver(network, compileRouting(network));
    warm?.solve(undefined);
    const profile = warm?.profile();
    expect(profile?.solves).toBeGreaterThan(0);
    expect((profile?.evaluations ?? 0) / (profile?.solves ?? 1)).toBeLessThan(4);
  });

  it('depends only on the start: the same start twice gives the same bits', () => {
    const { network, random } = drawn(cyclicBase(12, 4, 3), 2);
    const warm = warmRoutingSolver(network, compileRouting(network));
    const { starts } = startsOf(network, random, 3);
    const first = Array.from(warm?.solve(starts[1]).fixedPoint ?? []);
    warm?.solve(starts[2]);
    expect(Array.from(warm?.solve(starts[1]).fixedPoint ?? [])).toStrictEqual(first);
  });

  it('declines services the general law must solve (residual-time correction, timeouts)', () => {
    const { network } = drawn(cyclicBase(12, 4, 3), 2);
    const corrected: NetworkModel = {
      ...network,
      services: network.services.map((service, i) => ({
        ...service,
        residualAlphas: i === 3 ? network.classes.map(() => [0.5]) : undefined,
      })),
    };
    const timed: NetworkModel = {
      ...network,
      services: network.services.map((service, i) => ({
        ...service,
        timeouts: i === 1 ? network.classes.map(() => 0.2) : undefined,
      })),
    };
    expect(warmRoutingSolver(corrected, compileRouting(corrected))).toBeUndefined();
    expect(warmRoutingSolver(timed, compileRouting(timed))).toBeUndefined();
    // …and checkConfiguration then settles them exactly as the per-case path does.
    const a = drawn(cyclicBase(12, 4, 3), 2);
    const b = drawn(cyclicBase(12, 4, 3), 2);
    const withAlpha = (n: NetworkModel): NetworkModel => ({
      ...n,
      services: n.services.map((s, i) => ({
        ...s,
        residualAlphas: i === 3 ? n.classes.map(() => [0.5]) : undefined,
      })),
    });
    expect(checkConfiguration(withAlpha(a.network), { inits: 4, random: a.random })).toStrictEqual(
      checkConfigurationPerCase(withAlpha(b.network), { inits: 4, random: b.random }),
    );
  });

  it('stops at the sweep limit like settleRouting, and reports it', () => {
    const { network } = drawn(cyclicBase(20, 8, 4), 1);
    const plan = compileRouting(network);
    const warm = warmRoutingSolver(network, plan, { maxIterations: 2 });
    const reference = settleRouting(plan, routingState(plan), { maxIterations: 2 });
    const got = warm?.solve(undefined);
    expect(got?.converged).toBe(reference.converged);
    expect(got?.iterations).toBe(reference.iterations);
  });
});

describe('checkConfiguration on the warm path', () => {
  it('gives the per-case verdicts on every job (converged, guarantee, distinct or not)', () => {
    const graphs = new Map<number, NetworkModel>();
    for (const job of JOBS) {
      const warm = drawUniquenessConfiguration(job, SETTINGS, graphs);
      const perCase = drawUniquenessConfiguration(job, SETTINGS, graphs);
      const got = checkConfiguration(warm.network, { inits: 6, random: warm.random });
      const expected = checkConfigurationPerCase(perCase.network, {
        inits: 6,
        random: perCase.random,
      });
      const verdict = (c: typeof got) => ({
        classes: c.classes,
        services: c.services,
        guarantee: c.guarantee,
        runs: c.runs,
        converged: c.converged,
        nonConverged: c.nonConverged,
        distinct: c.distinct !== undefined,
      });
      expect(verdict(got), JSON.stringify(job)).toEqual(verdict(expected));
    }
  });

  it('still finds two fixed points when runs differ by more than the tolerance', () => {
    // A tolerance below both solvers' own makes runs of one fixed point "distinct": the check
    // must then report a pair, with a difference inside the agreement bound.
    const { network, random } = drawn(cyclicBase(20, 8, 4), 4);
    const check = checkConfiguration(network, { inits: 8, random, tolerance: 0 });
    expect(check.distinct).toBeDefined();
    expect(check.distinct?.difference).toBeLessThan(AGREEMENT);
  });

  it('is what a job of the CLI runs, with the per-case verdict (seed 1, graphs 0–3)', () => {
    const settings = { seed: 1, inits: 5, classesMax: 9 };
    for (let graph = 0; graph < 4; graph++) {
      const plan = graphPlan(settings.seed, graph);
      const treeSize = plan.services - databaseCount(plan.services, 2);
      const base = toNetworkModel(
        generateCyclic({
          services: plan.services,
          classes: 1,
          seed: plan.generatorSeed,
          backEdges: backEdgeCount(plan.backEdgeShare, treeSize),
        }),
      );
      for (let configuration = 0; configuration < 3; configuration++) {
        const draw = () => {
          const random = seededRandom(configurationSeed(settings.seed, graph, configuration));
          return { network: drawConfiguration(base, random), random };
        };
        const {
          form,
          graph: g,
          configuration: c,
          ...check
        } = runUniquenessJob({ graph, configuration }, settings);
        expect({ form, g, c }).toEqual({ form: 'routes', g: graph, c: configuration });
        const where = `graph ${graph}, configuration ${configuration}`;
        const warm = draw();
        expect(check, where).toStrictEqual(
          checkConfiguration(warm.network, { inits: 5, random: warm.random }),
        );
        const perCase = draw();
        const expected = checkConfigurationPerCase(perCase.network, {
          inits: 5,
          random: perCase.random,
        });
        expect(
          { converged: check.converged, distinct: check.distinct !== undefined },
          where,
        ).toEqual({ converged: expected.converged, distinct: expected.distinct !== undefined });
      }
    }
  });
});
