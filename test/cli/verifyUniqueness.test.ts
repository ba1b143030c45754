import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { writeCounterexamples } from '../../src/cli/counterexampleFiles.js';
import { generateCyclic } from '../../src/config/generators/generateCyclic.js';
import { generateMuBench } from '../../src/config/generators/generateMuBench.js';
import { networkSpecOf } from '../../src/config/networkSpecOf.js';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { toNetworkModel } from '../../src/config/toNetworkModel.js';
import {
  runUniquenessJob,
  runUniquenessRange,
} from '../../src/experiments/uniqueness/uniquenessWorker.js';
import { solveRouting } from '../../src/model/network/solveRouting.js';
import { seededRandom } from '../../src/model/random.js';
import {
  combineTallies,
  drawCallConfiguration,
  drawConfiguration,
} from '../../src/model/uniqueness/index.js';
import { runCli } from './runCli.js';

const repoRoot = resolve(import.meta.dirname, '../..');

const run = runCli;

afterEach(() => vi.restoreAllMocks());

const small = ['verify-uniqueness', '--graphs', '2', '--configs', '2', '--inits', '3'];

describe('difftry verify-uniqueness, in-process (--threads 1)', () => {
  it('prints one JSON document with the figures', async () => {
    const { code, stdout } = await run(...small, '--threads', '1', '--seed', '5', '--json');
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc).toMatchObject({
      seed: 5,
      graphs: 2,
      configurationsPerGraph: 2,
      inits: 3,
      classesMax: 9,
      threads: 1,
      tolerance: 1e-6,
      cases: 12,
      configurations: 4,
      counterexamples: [],
    });
    expect(doc.convergedRuns + doc.nonConvergedRuns).toBe(12);
    const guarantees = doc.guarantees;
    expect(Object.keys(guarantees).sort()).toEqual(['class-independent', 'dag', 'none', 'norm']);
    expect(Object.values(guarantees).reduce((a: number, b) => a + (b as number), 0)).toBe(4);
    expect(doc.elapsedSeconds).toBeGreaterThan(0);
    expect(doc.casesPerSecond).toBeGreaterThan(0);
  });

  it('gives the same results for the same seed', async () => {
    const figures = async (seed: string) => {
      const doc = JSON.parse(
        (await run(...small, '--threads', '1', '--seed', seed, '--json')).stdout,
      );
      const { elapsedSeconds, casesPerSecond, cpuSeconds, casesPerCpuSecond, ...rest } = doc;
      return rest;
    };
    expect(await figures('3')).toEqual(await figures('3'));
  });

  it('prints a table by default', async () => {
    const { code, stdout } = await run(...small, '--threads', '1', '--classes-max', '3');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^verify-uniqueness\n/);
    expect(stdout).toMatch(/cases \(solves\) +12 \(3 starts per configuration\)/);
    expect(stdout).toMatch(/configurations +4 \(2 per graph, P ≤ 3\)/);
    expect(stdout).toMatch(/counterexamples +0 /);
  });

  const bad: [string, string[], RegExp][] = [
    ['one start', ['--inits', '1'], /--inits: expected an integer from 2 to 100000, got "1"/],
    ['no graphs', ['--graphs', '0'], /--graphs: expected an integer/],
    ['text threads', ['--threads', 'many'], /--threads: expected an integer/],
    [
      'too many classes',
      ['--classes-max', '21'],
      /--classes-max: expected an integer from 1 to 20/,
    ],
    ['negative seed', ['--seed', '-1'], /--seed/],
    ['unknown option', ['--fast'], /unknown option/],
    ['an unknown form', ['--form', 'mesh'], /--form: expected one of routes, calls, got "mesh"/],
  ];
  it.each(bad)('exits 2 on %s, with one line and nothing on stdout', async (_, args, message) => {
    const { code, stdout, stderr } = await run('verify-uniqueness', ...args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('difftry verify-uniqueness --form calls, in-process', () => {
  it('checks call graphs and says that no guarantee applies', async () => {
    const out = mkdtempSync(join(tmpdir(), 'difftry-uniqueness-'));
    const calls = [...small, '--form', 'calls', '--threads', '1', '--out', out];
    const { code, stdout } = await run(...calls, '--json');
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc).toMatchObject({ form: 'calls', cases: 12, configurations: 4 });
    expect(doc.guarantees).toEqual({ dag: 0, norm: 0, 'class-independent': 0, none: 4 });
    const table = await run(...calls);
    expect(table.stdout).toMatch(/networks +call graphs/);
    expect(table.stdout).toMatch(/uniqueness is not proven for call graphs/);
    expect(table.stdout).toMatch(/bistable configurations +0 /);
  });
});

describe('jobs and counterexample files', () => {
  it('a job depends only on its indices and the settings', () => {
    const settings = { seed: 9, inits: 4, classesMax: 9 };
    const alone = runUniquenessJob({ graph: 3, configuration: 1 }, settings);
    const graphs = new Map();
    runUniquenessJob({ graph: 3, configuration: 0 }, settings, graphs);
    expect(runUniquenessJob({ graph: 3, configuration: 1 }, settings, graphs)).toEqual(alone);
    expect(alone.runs).toBe(4);
  });

  it.each(['routes', 'calls'] as const)(
    'sums ranges of jobs to the same totals however they are cut (%s)',
    (form) => {
      const settings = { seed: 4, inits: 3, classesMax: 5, form };
      const whole = runUniquenessRange(0, 12, settings, 4);
      const graphs = new Map();
      const parts = [runUniquenessRange(0, 5, settings, 4, graphs)];
      parts.push(runUniquenessRange(5, 6, settings, 4, graphs));
      parts.push(runUniquenessRange(6, 12, settings, 4));
      expect(parts.map((p) => p.tally).reduce(combineTallies)).toEqual(whole.tally);
      expect(parts.flatMap((p) => p.counterexamples)).toEqual(whole.counterexamples);
      expect(whole.tally.cases).toBe(36);
    },
  );

  const network = drawConfiguration(
    toNetworkModel(generateCyclic({ services: 12, classes: 1, seed: 4, backEdges: 3 })),
    seededRandom(21),
  );

  it('writes a network file that parses back to the same model', () => {
    const text = stringify(networkSpecOf(network));
    const back = toNetworkModel(parseNetwork(text, 'counterexample.yaml'));
    const start = network.services.map((_, i) => network.classes.map((__, p) => 10 * i + p));
    expect(solveRouting(back, { initialIn: start })).toEqual(
      solveRouting(network, { initialIn: start }),
    );
    expect(back.classes).toEqual(network.classes);
    back.services.forEach((service, i) => {
      const original = network.services[i];
      expect(service.model).toBe(original?.model);
      expect(service.capacity).toBe(original?.capacity);
      expect(service.arrivals).toEqual(original?.arrivals);
      expect(service.retryLimits).toEqual(original?.retryLimits);
    });
  });

  it('writes each counterexample as a network file and its two fixed points', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'difftry-uniqueness-')), 'found');
    const table = (value: number) => network.services.map(() => network.classes.map(() => value));
    const first = {
      init: 0,
      initialIn: undefined,
      lambdaIn: table(5),
      converged: true,
      iterations: 7,
    };
    const second = {
      init: 2,
      initialIn: table(40),
      lambdaIn: table(6),
      converged: true,
      iterations: 9,
    };
    const [paths] = await writeCounterexamples(
      [
        {
          form: 'routes',
          graph: 4,
          configuration: 1,
          classes: network.classes.length,
          services: network.services.length,
          guarantee: 'none',
          runs: 3,
          converged: 3,
          nonConverged: 0,
          maxIterations: 9,
          distinct: { first, second, difference: 1 / 6 },
          network,
        },
      ],
      7,
      dir,
    );
    expect(readdirSync(dir).sort()).toEqual([
      'uniqueness-seed7-graph4-config1.fixed-points.json',
      'uniqueness-seed7-graph4-config1.yaml',
    ]);
    const text = readFileSync(paths?.network ?? '', 'utf8');
    expect(text).toMatch(
      /^# Found by: difftry verify-uniqueness --seed 7 \(graph 4, configuration 1\)/,
    );
    expect(toNetworkModel(parseNetwork(text, 'x.yaml')).services).toHaveLength(12);
    const points = JSON.parse(readFileSync(paths?.fixedPoints ?? '', 'utf8'));
    expect(points.difference).toBeCloseTo(1 / 6, 15);
    expect(points.first.initialIn).toBeNull();
    expect(points.first.lambdaIn.frontend.c1).toBe(5);
    expect(points.second.lambdaIn.frontend.c1).toBe(6);
    expect(points.second.initialIn.frontend.c1).toBe(40);
  });
});

describe('a call-graph counterexample file', () => {
  it('writes the network with its calls and both states, healthy and storm', async () => {
    const network = drawCallConfiguration(
      toNetworkModel(generateMuBench({ services: 8, classes: 1, seed: 2, form: 'calls' })),
      seededRandom(3),
    );
    const state = (init: number, s: number, attempts: number) => ({
      init,
      initialS: init === 0 ? undefined : network.services.map(() => 0.5),
      s: network.services.map(() => s),
      attemptsPerRequest: attempts,
      completion: 1 - s,
      converged: true,
      iterations: 12,
    });
    const dir = join(mkdtempSync(join(tmpdir(), 'difftry-uniqueness-')), 'calls');
    const [paths] = await writeCounterexamples(
      [
        {
          form: 'calls',
          graph: 2,
          configuration: 5,
          classes: network.classes.length,
          services: network.services.length,
          guarantee: 'none',
          runs: 4,
          converged: 4,
          nonConverged: 0,
          maxIterations: 12,
          distinct: { healthy: state(0, 0.01, 3), storm: state(3, 0.9, 40), difference: 0.89 },
          network,
        },
      ],
      7,
      dir,
    );
    expect(readdirSync(dir).sort()).toEqual([
      'uniqueness-calls-seed7-graph2-config5.fixed-points.json',
      'uniqueness-calls-seed7-graph2-config5.yaml',
    ]);
    const text = readFileSync(paths?.network ?? '', 'utf8');
    expect(text).toMatch(/--form calls --seed 7 \(graph 2, configuration 5\)/);
    expect(text).toMatch(/bistable call graph \(a finding about the model, not a solver failure\)/);
    const back = toNetworkModel(parseNetwork(text, 'x.yaml'));
    expect(back.mode).toBe('calls');
    expect(back.services.map((s) => s.calls)).toEqual(
      network.services.map((s) =>
        (s.calls ?? []).map((c) => ({ ...c, parallel: c.parallel ?? false })),
      ),
    );
    const points = JSON.parse(readFileSync(paths?.fixedPoints ?? '', 'utf8'));
    expect(points).toMatchObject({ form: 'calls', difference: 0.89 });
    expect(points.healthy).toMatchObject({ init: 0, attemptsPerRequest: 3, initialS: null });
    expect(points.storm.s.frontend).toBe(0.9);
    expect(points.storm.initialS.frontend).toBe(0.5);
  });
});

describe('difftry verify-uniqueness on worker threads', () => {
  /** The run's document without what depends on the machine or the thread count. */
  const figures = (stdout: string) => {
    const { elapsedSeconds, casesPerSecond, cpuSeconds, casesPerCpuSecond, threads, ...rest } =
      JSON.parse(stdout);
    return { rest, threads };
  };
  /** stdout of the CLI in a child process; exit code 1 (two fixed points found) is a result. */
  const child = async (args: readonly string[]): Promise<string> => {
    try {
      return (
        await promisify(execFile)(
          process.execPath,
          ['--import', 'tsx', 'src/cli/main.ts', ...args],
          {
            cwd: repoRoot,
            timeout: 120_000,
          },
        )
      ).stdout;
    } catch (error) {
      const failed = error as { code?: number; stdout?: string };
      if (failed.code === 1 && failed.stdout) return failed.stdout;
      throw error;
    }
  };

  it.each([
    ['routes', ['--graphs', '3', '--configs', '7', '--inits', '3']],
    ['calls', ['--graphs', '3', '--configs', '5', '--inits', '3', '--form', 'calls']],
  ])(
    'finds exactly what one thread finds with 2 and 3 threads (%s, in a child process)',
    async (_, args) => {
      const out = mkdtempSync(join(tmpdir(), 'difftry-uniqueness-'));
      const base = ['verify-uniqueness', ...args, '--seed', '11', '--json', '--out', out];
      const inProcess = figures((await run(...base, '--threads', '1')).stdout);
      expect(inProcess.threads).toBe(1);
      for (const threads of ['2', '3']) {
        const parallel = figures(await child([...base, '--threads', threads]));
        expect(parallel.threads).toBe(Number(threads));
        expect(parallel.rest).toEqual(inProcess.rest);
      }
    },
    120_000,
  );
});
