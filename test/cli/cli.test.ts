import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { solveService } from '../../src/model/index.js';
import { runCli } from './runCli.js';

const run = runCli;

function tempFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'difftry-cli-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

afterEach(() => vi.restoreAllMocks());

describe('difftry analyze', () => {
  it('prints docs/design.md’s JSON document for the built-in example, equal to the model', async () => {
    const { code, stdout, stderr } = await run('analyze', '--example', 'single', '--json');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const doc = JSON.parse(stdout);
    const reference = solveService({
      capacity: 143,
      queue: 50,
      model: 'mixed',
      classes: [
        { arrivalRate: 50, retryLimit: 5 },
        { arrivalRate: 250, retryLimit: 1 },
      ],
    });
    expect(doc.classes).toEqual([
      { name: 'high', retries: 5 },
      { name: 'low', retries: 1 },
    ]);
    expect(doc.converged).toBe(true);
    expect(doc.iterations).toBe(1);
    expect(doc.services.frontend.s).toBeCloseTo(reference.s, 12);
    expect(doc.services.frontend.rho).toBeCloseTo(reference.rho, 12);
    const high = doc.services.frontend.classes.high;
    expect(high.in).toBe(50);
    expect(high.out).toBeCloseTo(reference.classes[0]?.goodput ?? Number.NaN, 9);
    expect(high.attempts).toBeCloseTo(reference.classes[0]?.attempts ?? Number.NaN, 9);
    expect(high.rejection).toBeCloseTo(reference.classes[0]?.rejection ?? Number.NaN, 12);
    expect(doc.endToEnd.low.rejection).toBeCloseTo(
      reference.classes[1]?.rejection ?? Number.NaN,
      12,
    );
    expect(doc.endToEnd.low.completion).toBeCloseTo(1 - (reference.classes[1]?.rejection ?? 0), 12);
  });

  it('applies --retries and --model to every hop', async () => {
    const { stdout } = await run(
      'analyze',
      '--example',
      'single',
      '--json',
      '--retries',
      'low=5',
      '--model',
      'fluid',
    );
    const doc = JSON.parse(stdout);
    // With equal limits both classes see the same rejection s^(k+1).
    expect(doc.endToEnd.high.rejection).toBeCloseTo(doc.endToEnd.low.rejection, 12);
    expect(doc.endToEnd.high.rejection).toBeCloseTo(doc.services.frontend.s ** 6, 12);
    expect(doc.services.frontend.model).toBe('fluid');
  });

  it('prints aligned tables by default', async () => {
    const { code, stdout } = await run('analyze', '--example', 'single');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Services\n/);
    expect(stdout).toContain('End to end (converged in 1 iteration)');
    const rule = stdout.split('\n')[2] ?? '';
    expect(rule).toMatch(/^─+( +─+)+$/);
  });

  it('reads a YAML file from disk', async () => {
    const path = tempFile(
      'net.yaml',
      'classes:\n  - { name: gold, retries: 2 }\nservices:\n  - { name: api, capacity: 10, queue: 5, arrivals: { gold: 5 } }\n',
    );
    const { code, stdout } = await run('analyze', path, '--json');
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(Object.keys(doc.services)).toEqual(['api']);
    expect(doc.services.api.model).toBe('mixed');
  });
});

describe('bad input exits 2 with one line and writes nothing on stdout', () => {
  const cases: [string, string[], RegExp][] = [
    ['no file', ['analyze'], /missing network/],
    ['unknown example', ['analyze', '--example', 'nope'], /built-in example .*"nope"/],
    ['bad --retries', ['analyze', '--example', 'single', '--retries', 'high=x'], /--retries/],
    [
      'unknown class in --retries',
      ['analyze', '--example', 'single', '--retries', 'gold=1'],
      /class "gold"/,
    ],
    ['bad --model', ['analyze', '--example', 'single', '--model', 'mm2'], /--model.*"mm2"/],
    ['missing file', ['analyze', '/nonexistent/difftry.yaml'], /difftry\.yaml/],
    ['bad --duration', ['simulate', '--example', 'single', '--duration', '-1'], /--duration/],
    [
      'bad --replications',
      ['simulate', '--example', 'single', '--replications', '0'],
      /--replications/,
    ],
    [
      'unknown --strategy',
      ['simulate', '--example', 'single', '--strategy', 'nope'],
      /--strategy.*"nope"/,
    ],
    ['unknown command', ['frobnicate'], /unknown command/],
  ];
  it.each(cases)('%s', async (_name, argv, pattern) => {
    const { code, stdout, stderr } = await run(...argv);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^difftry: /);
    expect(stderr).toMatch(pattern);
  });

  it('names the file, line and place of a bad field', async () => {
    const path = tempFile(
      'bad.yaml',
      'classes:\n  - { name: high, retries: 5 }\nservices:\n  - name: api\n    capacity: -3\n    queue: 5\n    arrivals: { high: 1 }\n',
    );
    const { code, stdout, stderr } = await run('analyze', path);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `difftry: ${path}:5:15: services[0].capacity: expected a positive number (requests/s), got -3\n`,
    );
  });
});

describe('difftry simulate', () => {
  it('prints the analysis shape with a Ci95 beside every figure, reproducibly', async () => {
    const argv = [
      'simulate',
      '--example',
      'single',
      '--json',
      '--duration',
      '20',
      '--replications',
      '3',
      '--seed',
      '7',
    ];
    const first = await run(...argv);
    const second = await run(...argv);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(second.stdout);
    const doc = JSON.parse(first.stdout);
    expect(doc.replications).toBe(3);
    expect(doc.seed).toBe(7);
    const high = doc.services.frontend.classes.high;
    for (const key of ['in', 'out', 'attempts', 'rejection']) {
      expect(typeof high[key]).toBe('number');
      expect(high[`${key}Ci95`]).toBeGreaterThan(0);
    }
    expect(doc.endToEnd.high.rejection).toBeGreaterThan(0);
    expect(doc.endToEnd.high.rejection).toBeLessThan(doc.endToEnd.low.rejection);
  });

  it('simulates a strategy, named in the header and the JSON, with latency and load', async () => {
    const argv = ['simulate', '--example', 'two-tier', '--duration', '10', '--replications', '2'];
    const human = await run(...argv, '--strategy', 'budget-grpc');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Strategy: budget-grpc/);
    expect(human.stdout).toMatch(/p99 ms/);
    expect(human.stdout).toMatch(/attempts\/request/);
    const json = await run(...argv, '--strategy', 'class-budget', '--json');
    const doc = JSON.parse(json.stdout);
    expect(doc.strategy).toBe('class-budget');
    expect(doc.load.attemptsPerRequest).toBeGreaterThanOrEqual(1);
    for (const e of Object.values(doc.endToEnd) as Record<string, number>[]) {
      expect(e.latencyP99).toBeGreaterThanOrEqual(e.latencyP50 as number);
    }
    const single = await run(
      'simulate',
      '--example',
      'single',
      '--duration',
      '5',
      '--replications',
      '2',
      '--strategy',
      'uniform',
      '--json',
    );
    expect(JSON.parse(single.stdout).strategy).toBe('uniform');
  });

  it('simulates a routing network of several services', async () => {
    const { code, stdout } = await run(
      'simulate',
      '--example',
      'two-tier',
      '--duration',
      '10',
      '--replications',
      '2',
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/search/);
    expect(stdout).toMatch(/^Backoff: high .*; low exponential/m);
  });

  it('simulates hotel close to the analysis, in the analysis shape with Ci95', async () => {
    const simulated = await run(
      'simulate',
      '--example',
      'hotel',
      '--json',
      '--duration',
      '40',
      '--replications',
      '3',
      '--seed',
      '2',
    );
    expect(simulated.code).toBe(0);
    const doc = JSON.parse(simulated.stdout);
    const analysis = JSON.parse((await run('analyze', '--example', 'hotel', '--json')).stdout);
    expect(doc.replications).toBe(3);
    expect(doc.duration).toBe(40);
    expect(doc.seed).toBe(2);
    expect(doc.events).toBeGreaterThan(0);
    expect(typeof doc.warmup).toBe('number');
    expect(Object.keys(doc.services).sort()).toEqual(Object.keys(analysis.services).sort());
    for (const service of Object.values(doc.services) as Record<string, unknown>[]) {
      for (const key of ['s', 'sCi95', 'rho', 'rhoCi95']) expect(service).toHaveProperty(key);
      for (const c of Object.values(service.classes as Record<string, unknown>)) {
        for (const key of ['in', 'out', 'attempts', 'rejection']) {
          expect(c).toHaveProperty(key);
          expect(c).toHaveProperty(`${key}Ci95`);
        }
      }
    }
    for (const { name } of doc.classes as { name: string }[]) {
      const e = doc.endToEnd[name];
      for (const key of ['rejection', 'rejectionCi95', 'completion', 'completionCi95']) {
        expect(typeof e[key]).toBe('number');
      }
      expect(Math.abs(e.rejection - analysis.endToEnd[name].rejection), name).toBeLessThan(0.05);
    }
  });
});

describe('difftry demo', () => {
  it('puts analysis beside simulation for DiffTry (5, 1) and uniform (5, 5)', async () => {
    const { code, stdout } = await run('demo', '--json', '--duration', '20', '--replications', '3');
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.runs.map((r: { retries: unknown }) => r.retries)).toEqual([
      { high: 5, low: 1 },
      { high: 5, low: 5 },
    ]);
    const [difftry, uniform] = doc.runs;
    // The published effect: DiffTry protects the high class at the low class's expense.
    expect(difftry.analysis.endToEnd.high.rejection).toBeLessThan(
      uniform.analysis.endToEnd.high.rejection / 2,
    );
    expect(difftry.analysis.endToEnd.low.rejection).toBeGreaterThan(
      uniform.analysis.endToEnd.low.rejection,
    );
    for (const r of doc.runs) {
      for (const name of ['high', 'low']) {
        const predicted = r.analysis.endToEnd[name].rejection;
        const simulated = r.simulation.endToEnd[name].rejection;
        expect(
          Math.abs(predicted - simulated),
          `${name} ${JSON.stringify(r.retries)}`,
        ).toBeLessThan(0.05);
      }
    }
  });
});
