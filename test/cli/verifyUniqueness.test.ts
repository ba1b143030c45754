import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { runUniquenessJob } from '../../src/cli/uniquenessWorker.js';
import { networkSpecOf, writeCounterexamples } from '../../src/cli/verifyUniquenessCommand.js';
import { solveRouting } from '../../src/model/network/solveRouting.js';
import { seededRandom } from '../../src/model/random.js';
import { drawConfiguration } from '../../src/model/uniqueness/index.js';
import { generateCyclic } from '../../src/spec/generators/generateCyclic.js';
import { parseNetwork } from '../../src/spec/parseNetwork.js';
import { toNetworkModel } from '../../src/spec/toNetworkModel.js';
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
      const { elapsedSeconds, casesPerSecond, ...rest } = doc;
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
  ];
  it.each(bad)('exits 2 on %s, with one line and nothing on stdout', async (_, args, message) => {
    const { code, stdout, stderr } = await run('verify-uniqueness', ...args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
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

describe('difftry verify-uniqueness on worker threads', () => {
  it('finds what the in-process run finds, in a child process with --threads 2', async () => {
    const args = [...small, '--json'];
    const child = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args, '--threads', '2'],
      { cwd: repoRoot, timeout: 120_000 },
    );
    const parallel = JSON.parse(child.stdout);
    const inProcess = JSON.parse((await run(...args, '--threads', '1')).stdout);
    expect(parallel.threads).toBe(2);
    expect(parallel.cases).toBe(12);
    expect(parallel.cases).toBe(inProcess.cases);
    expect(parallel.counterexamples.length).toBe(inProcess.counterexamples.length);
    expect(parallel.guarantees).toEqual(inProcess.guarantees);
    expect(parallel.nonConvergedRuns).toBe(inProcess.nonConvergedRuns);
  }, 120_000);
});
